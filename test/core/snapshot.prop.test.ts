// The core's snapshot: a log cut anywhere between cycles, restored from JSON, replays exactly as uncut.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkClusterInvariants } from '../../src/cluster/invariants.ts';
import { SnapshotDataError } from '../../src/cluster/serialize.ts';
import type { Command } from '../../src/core/commands.ts';
import { defaultConfig } from '../../src/core/config.ts';
import type { CoreState } from '../../src/core/core-state.ts';
import { decide } from '../../src/core/evolve.ts';
import { Scheduler, type SchedulerOptions, type Step } from '../../src/core/scheduler.ts';
import {
  type CoreSnapshot,
  diffSnapshots,
  SnapshotError,
  trackedRng,
} from '../../src/core/snapshot.ts';
import { DecisionDigest, decisionText } from '../../src/events/digest.ts';
import {
  type DecisionEvent,
  type Envelope,
  type InputEvent,
  isDecision,
} from '../../src/events/types.ts';
import { seededRng } from '../../src/framework/rng.ts';
import type { NodeObject, PodObject } from '../../src/model/objects.ts';
import { simulate } from '../../src/runtime/simulate.ts';
import { runScenario } from '../support/generators.ts';
import { nodeObject, podObject } from '../support/objects.ts';
import { propertySeed } from '../support/property-seed.ts';
import {
  nodeObject as modelNode,
  podObject as modelPod,
  type RunScenario,
  scriptOf,
} from '../support/run-models.ts';

const RUNS = { numRuns: 100, seed: propertySeed(20261104).seed };

/** A clock that keeps what is armed, as `<timer> <uid>` (and `flush`) → deadline. */
class ArmedTimers {
  readonly armed = new Map<string, number>();
  armPod(pod: { uid: string }, timer: string, deadline: number): void {
    this.armed.set(`${timer} ${pod.uid}`, deadline);
  }
  disarmPod(uid: string, timer: string): void {
    this.armed.delete(`${timer} ${uid}`);
  }
  armFlush(deadline: number): void {
    this.armed.set('flush', deadline);
  }
  /** Carries out the timer commands among `commands`. */
  take(commands: readonly Command[]): void {
    for (const c of commands) {
      if (c.kind === 'armPodTimer') this.armPod(c.pod, c.timer, c.deadline);
      else if (c.kind === 'disarmPodTimer') this.disarmPod(c.uid, c.timer);
      else if (c.kind === 'armFlushTimer') this.armFlush(c.deadline);
    }
  }
  /** Carries out a step's timer commands; returns its decisions. */
  run(step: Step): Envelope<DecisionEvent>[] {
    this.take(step.commands);
    return step.decisions;
  }
}

const options = (seed: number): SchedulerOptions => ({ config: defaultConfig, seed });

const text = (env: Envelope<DecisionEvent>): string => `#${env.seq} ${decisionText(env.event)}`;

/**
 * Drives a core through recorded envelopes as replay does: inputs are applied, and a
 * recorded decision with nothing owed starts a cycle. Collects every decision it made.
 */
class Driver {
  readonly made: Envelope<DecisionEvent>[] = [];
  private owed: Envelope<DecisionEvent>[] = [];
  constructor(readonly core: Scheduler) {}

  /** True when the core owes no decision: a cut may go before the next envelope. */
  get atCut(): boolean {
    return this.owed.length === 0;
  }

  step(env: Envelope): void {
    if (isDecision(env.event)) {
      if (this.owed.length === 0) this.owed.push(...this.core.cycle(env.time).decisions);
      const made = this.owed.shift();
      if (made === undefined) throw new Error(`#${env.seq}: no decision made`);
      this.made.push(made);
      return;
    }
    if (this.owed.length > 0) throw new Error(`#${env.seq}: input while decisions are owed`);
    this.owed.push(...this.core.applyInput(env as Envelope<InputEvent>).decisions);
  }
}

/** A recorded log: the seed of its header and its envelopes. */
interface Log {
  seed: number;
  envelopes: Envelope[];
}

/** Simulates a run and reads back the log it recorded. */
function simulatedLog(opts: Omit<Parameters<typeof simulate>[0], 'config' | 'record'>): Log {
  const lines: string[] = [];
  simulate({ ...opts, config: defaultConfig, record: (line) => lines.push(line) });
  const header = JSON.parse(lines[0] as string) as { seed: number };
  const envelopes = lines
    .map((l) => JSON.parse(l) as Envelope)
    .filter((l) => typeof l.seq === 'number');
  return { seed: header.seed, envelopes };
}

/** The log of a generated scenario (the generators of the whole-run properties). */
const scenarioLog = (s: RunScenario): Log =>
  simulatedLog({
    nodes: s.nodes.map(modelNode),
    pods: s.pods.map(modelPod),
    seed: s.seed,
    bindLatencyMs: s.bindLatencyMs,
    bindFailureRate: s.bindFailureRate,
    watchFirstRate: s.watchFirstRate,
    script: scriptOf(s),
  });

/** A log replayed uncut, with a JSON snapshot at the cut points asked for. */
interface Recorded extends Log {
  /** Every index into `envelopes` a cut may go before, with the snapshot (as JSON) if asked. */
  cuts: { at: number; json: string | undefined }[];
  /** Every decision of the uncut replay. */
  made: Envelope<DecisionEvent>[];
  digest: string;
  final: CoreSnapshot;
  pending: Map<string, string>;
}

/**
 * Replays `log` uncut; a cut may go before any envelope where the core owes no decision
 * (before an input, or before the first decision of a cycle). `snapshotAt(k)` says whether
 * to keep the snapshot at the k-th cut.
 */
function uncut({ seed, envelopes }: Log, snapshotAt: (k: number) => boolean): Recorded {
  const driver = new Driver(new Scheduler(options(seed)));
  const cuts: Recorded['cuts'] = [];
  envelopes.forEach((env, at) => {
    if (driver.atCut) {
      const json = snapshotAt(cuts.length) ? JSON.stringify(driver.core.snapshot()) : undefined;
      cuts.push({ at, json });
    }
    driver.step(env);
  });
  const recorded = envelopes.filter((e) => isDecision(e.event)) as Envelope<DecisionEvent>[];
  expect(driver.made.map(text), 'the uncut replay reproduces the recording').toEqual(
    recorded.map(text),
  );
  const digest = new DecisionDigest();
  for (const d of driver.made) digest.add(d.event);
  return {
    seed,
    envelopes,
    cuts,
    made: driver.made,
    digest: digest.hex(),
    final: driver.core.snapshot(),
    pending: driver.core.pendingReasons(),
  };
}

/** What a snapshot holds that the generated runs must reach at some cut. */
function features(s: CoreSnapshot): string[] {
  const out = s.machines.map((m) => `machine ${m.state}`);
  if (s.backoffTimers.length > 0) out.push('backoff timer');
  if (s.parked.length > 0) out.push('parked');
  if (s.cluster.pods.some((p) => p.charge.kind === 'assumed')) out.push('assumed charge');
  if (s.cluster.absentNodes.length > 0) out.push('absent node');
  if (s.cluster.resync.Pod !== undefined || s.cluster.resync.Node !== undefined)
    out.push('open relist');
  if (s.flushDeadline !== null) out.push('flush armed');
  return out;
}

/** Restores `json`, checking what a restore must give back at once. */
function restore(json: string | undefined, seed: number): { core: Scheduler; timers: ArmedTimers } {
  if (json === undefined) throw new Error('no snapshot kept at this cut');
  const snapshot = JSON.parse(json) as CoreSnapshot;
  const timers = new ArmedTimers();
  const { core, commands } = Scheduler.restore(snapshot, options(seed + 1));
  timers.take(commands);
  expect(checkClusterInvariants(core.state)).toEqual([]);
  const again = core.snapshot();
  expect(diffSnapshots(again, snapshot)).toBeUndefined();
  expect(JSON.parse(JSON.stringify(again))).toEqual(snapshot);
  const expected = new Map<string, number>();
  for (const t of snapshot.backoffTimers) expected.set(`backoff ${t.uid}`, t.deadline);
  for (const t of snapshot.permitTimers) expected.set(`permit ${t.uid}`, t.deadline);
  if (snapshot.flushDeadline !== null) expected.set('flush', snapshot.flushDeadline);
  expect(timers.armed, 'the armed timers are armed again').toEqual(expected);
  return { core, timers };
}

/**
 * Cuts `log` at its `pick`-th cut point (modulo), restores the snapshot there from JSON into
 * a fresh core, replays the rest, and checks it against the uncut replay: every decision
 * (seq and text), the digest of them all, the final snapshot and the pending reasons.
 */
function cutAndCompare(log: Log, pick: number): CoreSnapshot {
  const cutCount = uncut(log, () => false).cuts.length;
  const k = pick % cutCount;
  const run = uncut(log, (i) => i === k);
  const cut = run.cuts[k] as Recorded['cuts'][number];
  const { core } = restore(cut.json, run.seed);
  const driver = new Driver(core);
  for (const env of run.envelopes.slice(cut.at)) driver.step(env);
  const cutSeq = run.envelopes[cut.at]?.seq ?? Number.POSITIVE_INFINITY;
  const joined = [...run.made.filter((d) => d.seq < cutSeq), ...driver.made];
  expect(joined.map(text)).toEqual(run.made.map(text));
  const digest = new DecisionDigest();
  for (const d of joined) digest.add(d.event);
  expect(digest.hex()).toBe(run.digest);
  expect(diffSnapshots(core.snapshot(), run.final)).toBeUndefined();
  expect(core.pendingReasons()).toEqual(run.pending);
  return JSON.parse(cut.json as string) as CoreSnapshot;
}

/**
 * From each kept cut, replays only up to the next cut and checks that the core reaches the
 * snapshot the uncut replay had there (by induction, every cut replays to the end alike).
 */
function stretchesJoin(run: Recorded, seen: Map<string, number>): void {
  for (let k = 0; k < run.cuts.length; k++) {
    const cut = run.cuts[k] as Recorded['cuts'][number];
    if (cut.json === undefined) continue;
    for (const f of new Set(features(JSON.parse(cut.json) as CoreSnapshot)))
      seen.set(f, (seen.get(f) ?? 0) + 1);
    const next = run.cuts[k + 1];
    const { core } = restore(cut.json, run.seed);
    const driver = new Driver(core);
    for (const env of run.envelopes.slice(cut.at, next?.at)) driver.step(env);
    const wanted = next === undefined ? run.final : uncutSnapshotAt(run, k + 1);
    const where = `from the cut before #${run.envelopes[cut.at]?.seq}`;
    expect(diffSnapshots(core.snapshot(), wanted), where).toBeUndefined();
  }
}

function uncutSnapshotAt(run: Recorded, k: number): CoreSnapshot {
  const json = run.cuts[k]?.json;
  if (json !== undefined) return JSON.parse(json) as CoreSnapshot;
  return JSON.parse(uncut(run, (i) => i === k).cuts[k]?.json as string) as CoreSnapshot;
}

describe('core snapshots over generated runs', () => {
  it('a log cut between cycles and restored from JSON replays to the same decisions, digest and state', () => {
    fc.assert(
      fc.property(runScenario(), fc.nat(), (scenario, pick) => {
        cutAndCompare(scenarioLog(scenario), pick);
      }),
      RUNS,
    );
  });

  it('from every cut, one stretch of the log leads to the snapshot of the next cut', () => {
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(runScenario(), (scenario) => {
        stretchesJoin(
          uncut(scenarioLog(scenario), () => true),
          seen,
        );
      }),
      { ...RUNS, numRuns: 25 },
    );
    for (const state of ['backoff', 'unschedulable', 'gated', 'binding', 'pending'])
      expect(seen.get(`machine ${state}`) ?? 0, `cuts with a pod in ${state}`).toBeGreaterThan(0);
    for (const f of ['backoff timer', 'parked', 'assumed charge'])
      expect(seen.get(f) ?? 0, `cuts with ${f}`).toBeGreaterThan(0);
  });
});

/** A cluster of more than 100 nodes, so that cycles sample nodes and the cursor moves. */
const bigCluster = fc.record({
  nodes: fc.integer({ min: 101, max: 180 }),
  cpus: fc.array(fc.constantFrom('1', '2', '4'), { minLength: 1, maxLength: 3 }),
  pods: fc.array(fc.integer({ min: 100, max: 5_000 }), { minLength: 10, maxLength: 60 }),
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  bindFailureRate: fc.constantFrom(0, 0.3),
});

const bigLog = (c: typeof bigCluster extends fc.Arbitrary<infer T> ? T : never): Log =>
  simulatedLog({
    nodes: Array.from({ length: c.nodes }, (_, i) =>
      nodeObject(`node-${i}`, {
        allocatable: { cpu: c.cpus[i % c.cpus.length] as string, memory: '8Gi', pods: '110' },
      }),
    ),
    pods: c.pods.map((milli, i) =>
      podObject(`pod-${i}`, { schedulerName: 'berth', requests: { cpu: `${milli}m` } }),
    ),
    seed: c.seed,
    bindLatencyMs: 5,
    bindFailureRate: c.bindFailureRate,
  });

describe('core snapshots of clusters large enough to sample', () => {
  it('a cut restores the sampling cursor and the generator: the rest replays the same', () => {
    let cursorMoved = 0;
    fc.assert(
      fc.property(bigCluster, fc.nat(), (cluster, pick) => {
        const at = cutAndCompare(bigLog(cluster), pick);
        if (at.nextStartNodeIndex !== 0) cursorMoved++;
      }),
      // A fixed seed unless FC_SEED is given: the count below is about the sample, and a
      // time-based seed occasionally drew 25 cuts all at cursor 0 (a flaky CI failure).
      { ...RUNS, numRuns: 25, seed: Number(process.env.FC_SEED ?? 20261124) },
    );
    expect(cursorMoved, 'cuts where the cursor is not at the first node').toBeGreaterThan(0);
  });
});

describe('the generator state', () => {
  const op = fc.constantFrom('uint32', 'float', 'int');
  const draw =
    (r: { nextUint32(): number; nextFloat(): number; nextInt(n: number): number }) => (o: string) =>
      o === 'uint32' ? r.nextUint32() : o === 'float' ? r.nextFloat() : r.nextInt(7);

  it('draws what seededRng draws, and seededRng(state) continues the same sequence', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.array(op),
        fc.array(op),
        (seed, first, then) => {
          const tracked = trackedRng(seed);
          const plain = seededRng(seed);
          expect(first.map(draw(tracked))).toEqual(first.map(draw(plain)));
          const resumed = seededRng(tracked.state());
          expect(then.map(draw(resumed))).toEqual(then.map(draw(plain)));
        },
      ),
    );
  });
});

/** The core's own state, reached past `private` to stand in for a Permit plugin that waits. */
const internals = (core: Scheduler): CoreState => (core as unknown as { core: CoreState }).core;

/**
 * A cycle whose Permit answers Wait: what `runCycle` does, with PodWaiting in place of
 * BindRequested. No plugin of berth's profile waits yet (gang scheduling will), so the test
 * drives the core's own decide step, which applies PodWaiting as it would then.
 */
function cycleThatWaits(core: Scheduler, time: number, node: string, timeoutMs: number) {
  const inner = internals(core);
  inner.now = time;
  const uid = inner.pods.queue.pop()?.key as string;
  inner.pods.send(uid, { type: 'SCHEDULE' });
  const m = inner.pods.inspect(uid);
  const ref = { uid, key: m?.key as string, attempt: m?.attempt as number };
  decide(inner, { type: 'PodReserved', ...ref, node });
  decide(inner, { type: 'PodWaiting', ...ref, node, timeoutMs });
  return { ref, step: inner.takeStep() };
}

function berthPod(name: string, cpu: string): PodObject {
  const p = podObject(name, { schedulerName: 'berth', requests: { cpu } });
  p.metadata.uid = `${name}-uid`;
  return p;
}

const nodeEvent = (name: string, cpu: string): InputEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, { allocatable: { cpu, memory: '8Gi', pods: '110' } }) as NodeObject,
});

describe('a pod waiting at Permit', () => {
  /** A core with pod p reserved on n1 and waiting (permit timeout at t=5010), q queued. */
  function waitingCore(timers: ArmedTimers) {
    const core = new Scheduler(options(7));
    timers.run(core.ingest(nodeEvent('n1', '2'), 1));
    timers.run(core.ingest({ type: 'PodUpserted', pod: berthPod('p', '1') }, 2));
    const { ref, step } = cycleThatWaits(core, 10, 'n1', 5_000);
    const decisions = timers.run(step);
    expect(decisions.map((d) => d.event.type)).toEqual(['PodReserved', 'PodWaiting']);
    timers.run(core.ingest({ type: 'PodUpserted', pod: berthPod('q', '2') }, 11));
    return { core, ref };
  }

  it('is snapshotted waiting, with its reservation and permit deadline, and restored so', () => {
    const { core, ref } = waitingCore(new ArmedTimers());
    const s = core.snapshot();
    expect(s.machines.find((m) => m.uid === ref.uid)).toMatchObject({
      state: 'waiting',
      node: 'n1',
    });
    expect(s.permitTimers).toEqual([{ uid: ref.uid, deadline: 5_010 }]);
    expect(s.cluster.pods.find((p) => p.info.uid === ref.uid)?.charge).toEqual({
      kind: 'assumed',
      node: 'n1',
      attempt: 1,
    });
    const { timers } = restore(JSON.stringify(s), 7);
    expect(timers.armed.get(`permit ${ref.uid}`)).toBe(5_010);
  });

  it('times out at Permit alike in the original and the restored core', () => {
    const original = waitingCore(new ArmedTimers());
    const { core: restored, timers } = restore(JSON.stringify(original.core.snapshot()), 7);
    const fired: InputEvent = {
      type: 'TimerFired',
      timer: 'permit',
      uid: original.ref.uid,
      key: original.ref.key,
    };
    const a = original.core.ingest(fired, 5_010).decisions.map(text);
    const b = timers.run(restored.ingest(fired, 5_010)).map(text);
    expect(a).toEqual(['#7 unreserved default/p p-uid #1 n1 timed out waiting at permit']);
    expect(b).toEqual(a);
    // p backs off 1 s from the timeout; q (2 cpu), queued, now fits the freed n1.
    expect(restored.machineState(original.ref.uid)).toBe('backoff');
    expect(timers.armed.get(`backoff ${original.ref.uid}`)).toBe(6_010);
    expect(restored.snapshot().permitTimers, 'the fired permit timer is no longer armed').toEqual(
      [],
    );
    expect(original.core.cycle(5_011).decisions.map(text)).toEqual(
      restored.cycle(5_011).decisions.map(text),
    );
    expect(diffSnapshots(restored.snapshot(), original.core.snapshot())).toBeUndefined();
  });

  it('is allowed alike in the original and the restored core, which disarm its permit timer', () => {
    const original = waitingCore(new ArmedTimers());
    const { core: restored, timers } = restore(JSON.stringify(original.core.snapshot()), 7);
    for (const core of [original.core, restored]) {
      const inner = internals(core);
      inner.now = 20;
      decide(inner, { type: 'BindRequested', ...original.ref, node: 'n1' });
      if (core === restored) timers.run(inner.takeStep());
      else inner.takeStep();
    }
    expect(restored.machineState(original.ref.uid)).toBe('binding');
    expect(timers.armed.has(`permit ${original.ref.uid}`)).toBe(false);
    expect(restored.snapshot().permitTimers).toEqual([]);
    expect(diffSnapshots(restored.snapshot(), original.core.snapshot())).toBeUndefined();
  });

  it('is deleted alike: the restored core releases its node and disarms its permit timer', () => {
    const original = waitingCore(new ArmedTimers());
    const { core: restored, timers } = restore(JSON.stringify(original.core.snapshot()), 7);
    const gone: InputEvent = { type: 'PodDeleted', uid: original.ref.uid, key: original.ref.key };
    expect(timers.run(restored.ingest(gone, 30)).map(text)).toEqual(
      original.core.ingest(gone, 30).decisions.map(text),
    );
    expect(timers.armed.has(`permit ${original.ref.uid}`)).toBe(false);
    expect(restored.state.nodes.get('n1')?.pods.size).toBe(0);
    expect(diffSnapshots(restored.snapshot(), original.core.snapshot())).toBeUndefined();
  });
});

describe('snapshots that cannot be taken or restored', () => {
  function parkedCore(): Scheduler {
    const core = new Scheduler(options(3));
    core.ingest(nodeEvent('n1', '1'), 1);
    core.ingest({ type: 'PodUpserted', pod: berthPod('big', '2') }, 2);
    core.ingest({ type: 'PodUpserted', pod: berthPod('small', '1') }, 3);
    core.cycle(4);
    return core;
  }
  const edited = (edit: (s: CoreSnapshot) => void): CoreSnapshot => {
    const s = JSON.parse(JSON.stringify(parkedCore().snapshot())) as CoreSnapshot;
    edit(s);
    return s;
  };

  it.each<[string, (s: CoreSnapshot) => void, RegExp]>([
    [
      'another version',
      (s) => Object.assign(s, { snapshotVersion: 2 }),
      /version 2 is not supported/,
    ],
    [
      'a parked pod whose machine is pending',
      (s) => {
        s.parked.push({ uid: 'small-uid', at: 4, plugins: [] });
      },
      /parked pod small-uid has a machine in pending/,
    ],
    [
      'a queued pod whose machine is parked',
      (s) => {
        s.activeQ.push({ key: 'big-uid', priority: 0, enqueuedAt: 0, order: 9 });
      },
      /queued pod big-uid has a machine in unschedulable/,
    ],
    [
      'a pod in backoff without its timer',
      (s) => {
        const m = s.machines.find((x) => x.uid === 'big-uid');
        if (m !== undefined) m.state = 'backoff';
        s.parked = [];
      },
      /big-uid is in backoff without a backoff timer/,
    ],
    [
      'a machine in a final state',
      (s) => {
        const m = s.machines.find((x) => x.uid === 'big-uid');
        if (m !== undefined) m.state = 'bound';
        s.parked = [];
      },
      /big-uid is in "bound", not a live state/,
    ],
    [
      'a node charging a pod the state lacks',
      (s) => {
        s.cluster.nodes[0]?.pods.push('ghost');
      },
      /charges unknown pod ghost/,
    ],
  ])('refuses %s, naming it', (_what, edit, message) => {
    expect(() => Scheduler.restore(edited(edit), options(3))).toThrow(message);
  });

  it('refuses malformed data with a one-line SnapshotError', () => {
    const s = edited((x) => Object.assign(x, { cluster: { pods: 'nope' } }));
    expect(() => Scheduler.restore(s, options(3))).toThrow(/^snapshot: malformed data \(.+\)$/);
  });

  it('refuses data errors as SnapshotError or SnapshotDataError', () => {
    const bad = edited((s) => s.cluster.nodes[0]?.pods.push('ghost'));
    expect(() => Scheduler.restore(bad, options(3))).toThrow(SnapshotDataError);
    const old = edited((s) => Object.assign(s, { snapshotVersion: 0 }));
    expect(() => Scheduler.restore(old, options(3))).toThrow(SnapshotError);
  });

  it('is not taken while an envelope is being applied', () => {
    let thrown: unknown;
    const core: Scheduler = new Scheduler({
      ...options(1),
      inspect: () => {
        try {
          core.snapshot();
        } catch (err) {
          thrown = err;
        }
      },
    });
    core.ingest(nodeEvent('n1', '1'), 1);
    expect(thrown).toBeInstanceOf(SnapshotError);
    expect(() => core.snapshot()).not.toThrow();
  });
});

describe('a snapshot at scale', () => {
  it('of 5,000 nodes and 50,000 pods takes well under a second', () => {
    const core = new Scheduler(options(1));
    let seq = 0;
    for (let i = 0; i < 5_000; i++) core.ingest(nodeEvent(`node-${i}`, '32'), ++seq);
    for (let i = 0; i < 50_000; i++) {
      const p = berthPod(`pod-${i}`, '100m');
      p.spec.nodeName = `node-${i % 5_000}`;
      core.ingest({ type: 'PodUpserted', pod: p }, ++seq);
    }
    for (let i = 0; i < 1_000; i++)
      core.ingest(
        { type: 'PodUpserted', pod: berthPod(`pending-${i}`, i < 20 ? '64' : '1') },
        ++seq,
      );
    for (let i = 0; i < 20; i++) core.cycle(++seq);
    const started = performance.now();
    const s = core.snapshot();
    const ms = performance.now() - started;
    expect(s.cluster.pods.length).toBe(51_000);
    expect(s.machines.length).toBe(1_000);
    expect(ms).toBeLessThan(1_000);
  }, 60_000);
});
