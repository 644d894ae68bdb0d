// The live runtime's own rules, with in-memory sources: sync before scheduling, clean drain.
import pino from 'pino';
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { trimNode, trimPod } from '../../src/adapters/trim.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { parseLog } from '../../src/events/reader.ts';
import type { AttemptRef, InputEvent } from '../../src/events/types.ts';
import { type LiveOptions, LiveScheduler } from '../../src/runtime/live.ts';
import { replay } from '../../src/runtime/replay.ts';

const node = (name: string) =>
  trimNode({
    metadata: { name },
    status: { allocatable: { cpu: '2', memory: '4Gi', pods: '10' } },
  });
const pod = (name: string, nodeName?: string) =>
  trimPod({
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      schedulerName: 'berth',
      ...(nodeName ? { nodeName } : {}),
      containers: [{ resources: { requests: { cpu: '1' } } }],
    },
  });

const tick = () => new Promise((resolve) => setImmediate(resolve));
/** Enough turns for a handful of pending pods (a burst starts with one cycle per turn). */
const turns = async (n = 8) => {
  for (let i = 0; i < n; i++) await tick();
};

function setup(config = defaultConfig, extra: Partial<LiveOptions> = {}) {
  const nodes = new Subject<InputEvent>();
  const pods = new Subject<InputEvent>();
  const binds: {
    attempt: AttemptRef;
    node: string;
    complete: () => void;
    fail: () => void;
  }[] = [];
  let inFlight = 0;
  let settle: (() => void) | undefined;
  let stopped = false;
  const lines: string[] = [];
  let ingest: (event: InputEvent) => void = () => {};
  const bind = (attempt: AttemptRef, target: string) => {
    if (stopped) return;
    inFlight++;
    binds.push({
      attempt,
      node: target,
      complete: () => {
        ingest({ type: 'BindSucceeded', ...attempt, node: target });
        if (--inFlight === 0) settle?.();
      },
      fail: () => {
        ingest({
          type: 'BindFailed',
          ...attempt,
          node: target,
          reason: 'Error',
          message: 'etcd timeout',
        });
        if (--inFlight === 0) settle?.();
      },
    });
  };
  const live = new LiveScheduler({
    config,
    seed: 1,
    sources: [nodes, pods],
    logger: pino({ level: 'silent' }),
    record: (l) => lines.push(l),
    ...extra,
    effects: (into) => {
      ingest = into;
      return {
        binder: { execute: (c) => c.kind === 'bind' && bind(c.attempt, c.node) },
        idle: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => (settle = r))),
        stop: () => {
          stopped = true;
        },
      };
    },
  });
  return { nodes, pods, binds, live, lines, isStopped: () => stopped };
}

/** Lists node n1 (2 cpu) whole, then starts the pod relist with `bound` (1 cpu) on n1. */
function listOneNodeHolding(nodes: Subject<InputEvent>, pods: Subject<InputEvent>, bound: string) {
  nodes.next({ type: 'ResyncStarted', kind: 'Node' });
  nodes.next({ type: 'NodeUpserted', node: node('n1') });
  nodes.next({ type: 'ResyncDone', kind: 'Node' });
  pods.next({ type: 'ResyncStarted', kind: 'Pod' });
  pods.next({ type: 'PodUpserted', pod: pod(bound, 'n1') });
}

describe('LiveScheduler', () => {
  it('does not schedule until both the node and the pod relists are complete', async () => {
    const { nodes, pods, binds, live } = setup();
    live.start();
    pods.next({ type: 'ResyncStarted', kind: 'Pod' });
    pods.next({ type: 'PodUpserted', pod: pod('a') });
    pods.next({ type: 'ResyncDone', kind: 'Pod' });
    nodes.next({ type: 'ResyncStarted', kind: 'Node' });
    nodes.next({ type: 'NodeUpserted', node: node('n1') });
    await tick();
    expect(binds).toHaveLength(0);
    // Only once the node relist is complete too may a cycle run.
    nodes.next({ type: 'NodeUpserted', node: node('n2') });
    nodes.next({ type: 'ResyncDone', kind: 'Node' });
    await tick();
    expect(live.ready).toBe(true);
    expect(binds.map((b) => b.attempt)).toEqual([{ uid: 'uid-a', key: 'default/a', attempt: 1 }]);
    await live.stop(100);
  });

  it('once the bound pods are listed, schedules pending pods as they arrive, counting the bound ones', async () => {
    const { nodes, pods, binds, live, lines } = setup();
    live.start();
    listOneNodeHolding(nodes, pods, 'running');
    await tick();
    expect(live.ready).toBe(false);
    live.assignedPodsListed();
    expect(live.ready).toBe(true);
    // n1 has 2 cpu, `running` holds 1: the first pending pod fits, the second does not.
    pods.next({ type: 'PodUpserted', pod: pod('a') });
    await turns();
    expect(binds.map((b) => b.attempt.key)).toEqual(['default/a']);
    pods.next({ type: 'PodUpserted', pod: pod('b') });
    pods.next({ type: 'ResyncDone', kind: 'Pod' });
    await turns();
    expect(binds.map((b) => b.attempt.key)).toEqual(['default/a']);
    expect(lines.some((l) => l.includes('"PodUnschedulable"') && l.includes('default/b'))).toBe(
      true,
    );
    for (const b of binds) b.complete();
    await live.stop(100);
    // The log does not record when scheduling began; replay follows its decisions all the same.
    expect(replay(parseLog(lines.join('\n'))).matches).toBe(true);
  });

  it('starts a burst with one cycle per turn and doubles up to cyclesPerTurn', async () => {
    const { nodes, pods, binds, live } = setup(defaultConfig, { cyclesPerTurn: 4 });
    live.start();
    nodes.next({ type: 'ResyncStarted', kind: 'Node' });
    for (let i = 0; i < 8; i++) nodes.next({ type: 'NodeUpserted', node: node(`n${i}`) });
    nodes.next({ type: 'ResyncDone', kind: 'Node' });
    pods.next({ type: 'ResyncStarted', kind: 'Pod' });
    for (let i = 0; i < 12; i++) pods.next({ type: 'PodUpserted', pod: pod(`p${i}`) });
    pods.next({ type: 'ResyncDone', kind: 'Pod' });
    const afterEachTurn: number[] = [];
    for (let turn = 0; turn < 5; turn++) {
      await tick();
      afterEachTurn.push(binds.length);
    }
    // 1, then 2, then 4 (the cap), then 4 more, then the last one.
    expect(afterEachTurn).toEqual([1, 3, 7, 11, 12]);
    // Idle again: the next arrival is decided in a turn of one.
    pods.next({ type: 'PodUpserted', pod: pod('late-0') });
    pods.next({ type: 'PodUpserted', pod: pod('late-1') });
    await tick();
    expect(binds).toHaveLength(13);
    await live.stop(100);
  });

  it('waits for binds in flight on stop, logs their results, and the log replays', async () => {
    const { nodes, pods, binds, live, lines } = setup();
    live.start();
    listOneNodeHolding(nodes, pods, 'full');
    pods.next({ type: 'PodUpserted', pod: pod('a') });
    pods.next({ type: 'PodUpserted', pod: pod('b') });
    pods.next({ type: 'ResyncDone', kind: 'Pod' });
    await turns();
    expect(binds.map((b) => b.attempt)).toEqual([{ uid: 'uid-a', key: 'default/a', attempt: 1 }]);
    const stopped = live.stop(5_000);
    binds[0]?.complete();
    await stopped;
    const log = parseLog(`${lines.join('\n')}\n`);
    expect(log.digest).toBeDefined();
    const types = log.envelopes.map((e) => e.event.type);
    expect(types).toContain('BindSucceeded');
    expect(types.filter((t) => t === 'PodUnschedulable')).toHaveLength(1);
    const result = replay(log);
    expect(result.matches).toBe(true);
    expect(result.summary.placements).toEqual({ 'default/a': 'n1' });
    expect(result.summary.pending['default/b']).toBe(
      '0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    );
  });
});

function syncOneNode(nodes: Subject<InputEvent>, pods: Subject<InputEvent>, names: string[]) {
  nodes.next({ type: 'ResyncStarted', kind: 'Node' });
  nodes.next({ type: 'NodeUpserted', node: node('n1') });
  nodes.next({ type: 'ResyncDone', kind: 'Node' });
  pods.next({ type: 'ResyncStarted', kind: 'Pod' });
  for (const name of names) pods.next({ type: 'PodUpserted', pod: pod(name) });
  pods.next({ type: 'ResyncDone', kind: 'Pod' });
}

describe('LiveScheduler: leadership', () => {
  it('a standby applies watch events but binds nothing until it leads', async () => {
    const seen: boolean[] = [];
    const { nodes, pods, binds, live, lines } = setup(defaultConfig, {
      leading: false,
      observer: { leading: (l) => seen.push(l) },
    });
    live.start();
    syncOneNode(nodes, pods, ['a']);
    await tick();
    expect(live.ready).toBe(true);
    expect(live.core.state.pods.size).toBe(1);
    expect(binds).toHaveLength(0);
    live.lead('host_1');
    await tick();
    expect(binds.map((b) => b.attempt.key)).toEqual(['default/a']);
    expect(seen).toEqual([false, true]);
    binds[0]?.complete();
    await live.stop(100);
    const log = parseLog(`${lines.join('\n')}\n`);
    const change = log.envelopes.find((e) => e.event.type === 'LeadershipChanged');
    expect(change?.event).toEqual({ type: 'LeadershipChanged', leading: true, identity: 'host_1' });
    // A leadership change is an input: replay passes it and reproduces every decision.
    expect(replay(log).matches).toBe(true);
  });

  it('on abdication stops the effects at once, records it, and runs no more cycles', async () => {
    const { nodes, pods, binds, live, lines, isStopped } = setup();
    live.start();
    syncOneNode(nodes, pods, []);
    await tick();
    live.abdicate('host_1');
    expect(isStopped()).toBe(true);
    pods.next({ type: 'PodUpserted', pod: pod('late') });
    await tick();
    expect(binds).toHaveLength(0);
    expect(live.leading).toBe(false);
    await live.stop(100);
    const types = parseLog(`${lines.join('\n')}\n`).envelopes.map((e) => e.event.type);
    expect(types).toContain('LeadershipChanged');
    expect(types).not.toContain('PodReserved');
  });

  it('tells the observer every envelope and every cycle with its duration', async () => {
    const envelopes: string[] = [];
    const cycles: number[] = [];
    const { nodes, pods, binds, live } = setup(defaultConfig, {
      observer: {
        envelope: (env) => envelopes.push(env.event.type),
        cycle: (decisions, seconds) => {
          expect(seconds).toBeGreaterThanOrEqual(0);
          cycles.push(decisions.length);
        },
      },
    });
    live.start();
    syncOneNode(nodes, pods, ['a', 'b', 'c']);
    await turns();
    // The 2-cpu node takes a and b (reserve, then bind), and c is unschedulable.
    expect(cycles).toEqual([2, 2, 1]);
    expect(envelopes.filter((t) => t === 'BindRequested')).toHaveLength(2);
    for (const b of binds) b.complete();
    await live.stop(100);
  });
});

describe('LiveScheduler: results and timers come back through the log', () => {
  it('backs off after a failed bind on a timer that fires into the log, then binds attempt 2', async () => {
    const { nodes, pods, binds, live, lines } = setup({
      ...defaultConfig,
      backoff: { initialMs: 20, maxMs: 40 },
    });
    live.start();
    nodes.next({ type: 'ResyncStarted', kind: 'Node' });
    nodes.next({ type: 'NodeUpserted', node: node('n1') });
    nodes.next({ type: 'ResyncDone', kind: 'Node' });
    pods.next({ type: 'ResyncStarted', kind: 'Pod' });
    pods.next({ type: 'PodUpserted', pod: pod('a') });
    pods.next({ type: 'ResyncDone', kind: 'Pod' });
    await tick();
    binds[0]?.fail();
    await new Promise((r) => setTimeout(r, 100));
    expect(binds.map((b) => b.attempt.attempt)).toEqual([1, 2]);
    binds[1]?.complete();
    await live.stop(1_000);
    const log = parseLog(`${lines.join('\n')}\n`);
    const types = log.envelopes.map((e) => e.event.type);
    expect(types).toEqual([
      'ResyncStarted',
      'NodeUpserted',
      'ResyncDone',
      'ResyncStarted',
      'PodUpserted',
      'ResyncDone',
      'PodReserved',
      'BindRequested',
      'BindFailed',
      'TimerFired',
      'PodReserved',
      'BindRequested',
      'BindSucceeded',
    ]);
    expect(log.envelopes[9]?.event).toEqual({
      type: 'TimerFired',
      timer: 'backoff',
      uid: 'uid-a',
      key: 'default/a',
    });
    expect(replay(log).matches).toBe(true);
  });
});

describe('requeueing on node updates', () => {
  it('retries a parked pod when a node grows, not on heartbeats', async () => {
    const { nodes, pods, live, lines } = setup();
    live.start();
    nodes.next({ type: 'ResyncStarted', kind: 'Node' });
    nodes.next({ type: 'NodeUpserted', node: node('n1') });
    nodes.next({ type: 'ResyncDone', kind: 'Node' });
    pods.next({ type: 'ResyncStarted', kind: 'Pod' });
    pods.next({
      type: 'PodUpserted',
      pod: trimPod({
        metadata: { name: 'big', uid: 'uid-big' },
        spec: { schedulerName: 'berth', containers: [{ resources: { requests: { cpu: '3' } } }] },
      }),
    });
    pods.next({ type: 'ResyncDone', kind: 'Pod' });
    await tick();
    const decisions = () =>
      lines.filter((l) => l.includes('"PodUnschedulable"') || l.includes('"PodReserved"')).length;
    expect(decisions()).toBe(1);
    for (let i = 0; i < 3; i++) nodes.next({ type: 'NodeUpserted', node: node('n1') });
    await new Promise((r) => setTimeout(r, 1_100));
    expect(decisions()).toBe(1);
    nodes.next({
      type: 'NodeUpserted',
      node: trimNode({
        metadata: { name: 'n1' },
        status: { allocatable: { cpu: '4', memory: '4Gi', pods: '10' } },
      }),
    });
    await new Promise((r) => setTimeout(r, 1_100));
    expect(lines.filter((l) => l.includes('"PodReserved"'))).toHaveLength(1);
    await live.stop(100);
  });
});
