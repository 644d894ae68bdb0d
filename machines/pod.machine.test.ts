// Pins the pod lifecycle: paths through the states, effects requested by name, backoff timing.
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { type PodEvent, podMachine } from './pod.machine.ts';

function start(gated = false) {
  const effects: string[] = [];
  const clock = new SimulatedClock();
  const machine = podMachine.provide({
    actions: {
      enqueue: () => void effects.push('enqueue'),
      dequeue: () => void effects.push('dequeue'),
      park: (_, params) => void effects.push(`park ${params.plugins.join(',')}`),
      unpark: () => void effects.push('unpark'),
    },
  });
  const actor = createActor(machine, {
    input: { uid: 'u1', key: 'ns/p', backoff: { initialMs: 1000, maxMs: 10_000 } },
    clock,
  });
  actor.start();
  if (gated) actor.send({ type: 'GATED' });
  const send = (...events: PodEvent[]) => {
    for (const e of events) actor.send(e);
  };
  return { actor, effects, clock, send, state: () => actor.getSnapshot().value };
}

const reserve = (node = 'n1', permit: 'allow' | 'wait' = 'allow'): PodEvent[] => [
  { type: 'SCHEDULE' },
  { type: 'RESERVED', node, permit },
];
const bindFailed = (message: string, now: number, attempt = 1): PodEvent => ({
  type: 'BIND_FAILED',
  attempt,
  message,
  now,
});
const unschedulable = (now: number, plugins: string[] = []): PodEvent => ({
  type: 'UNSCHEDULABLE',
  message: '0/1 nodes are available.',
  plugins,
  now,
});

describe('pod machine: the way to bound', () => {
  it('goes pending → filtering → binding (reserved and allowed) → boundUnconfirmed, and ends only when the watch shows it bound', () => {
    const { send, effects, state, actor } = start();
    expect(state()).toBe('pending');
    send({ type: 'SCHEDULE' });
    expect(state()).toBe('filtering');
    send({ type: 'RESERVED', node: 'n1', permit: 'allow' });
    expect(state()).toBe('binding');
    expect(actor.getSnapshot().context.node).toBe('n1');
    // Protocol v1 ended the machine here, so a stale watch update could start a second one.
    send({ type: 'BIND_SUCCEEDED', attempt: 1 });
    expect(state()).toBe('boundUnconfirmed');
    expect(actor.getSnapshot().status).toBe('active');
    send({ type: 'BOUND', node: 'n1' });
    expect(state()).toBe('bound');
    expect(actor.getSnapshot().status).toBe('done');
    expect(effects).toEqual(['enqueue', 'dequeue']);
  });

  it("takes a bind result only for the attempt it is binding (isCurrentAttempt): an older attempt's is ignored", () => {
    const { send, state, clock } = start();
    send(...reserve(), bindFailed('first', 0));
    clock.increment(1000);
    send({ type: 'REQUEUE', now: 1000 }, ...reserve());
    expect(state()).toBe('binding');
    send({ type: 'BIND_SUCCEEDED', attempt: 1 }, bindFailed('stale', 1000, 1));
    expect(state()).toBe('binding');
    send({ type: 'BIND_SUCCEEDED', attempt: 2 });
    expect(state()).toBe('boundUnconfirmed');
  });

  it('leaves preempting when its victims are gone (VICTIMS_GONE), and only preempting takes it', () => {
    const { send, state } = start();
    send({ type: 'VICTIMS_GONE', now: 0 });
    expect(state()).toBe('pending');
    send(
      { type: 'SCHEDULE' },
      { type: 'PREEMPTING', node: 'n1', message: 'no fit', now: 0 },
      { type: 'PREEMPTION_FAILED', attempt: 2, message: 'stale', now: 0 },
    );
    expect(state()).toBe('preempting');
    send({ type: 'VICTIMS_GONE', now: 60_000 });
    expect(state()).toBe('pending');
  });

  it('counts one attempt per SCHEDULE', () => {
    const { send, clock, actor } = start();
    send(...reserve(), { type: 'ALLOWED' }, bindFailed('x', 0));
    expect(actor.getSnapshot().context.attempts).toBe(1);
    clock.increment(1000);
    send(...reserve());
    expect(actor.getSnapshot().context.attempts).toBe(2);
  });

  it.each<[string, PodEvent]>([
    ['a requeue', { type: 'REQUEUE', now: 5 }],
    ['a schedule', { type: 'SCHEDULE' }],
    ['a late bind failure', bindFailed('late', 5)],
    ['an ungate', { type: 'UNGATED' }],
  ])('stays boundUnconfirmed on %s', (_name, event) => {
    const { send, state, effects } = start();
    send(...reserve(), { type: 'ALLOWED' }, { type: 'BIND_SUCCEEDED', attempt: 1 });
    send(event);
    expect(state()).toBe('boundUnconfirmed');
    expect(effects).toEqual(['enqueue', 'dequeue']);
  });

  it('waits at permit holding its node, then binds when allowed', () => {
    const { send, state, actor } = start();
    send(...reserve('n2', 'wait'));
    expect(state()).toBe('waiting');
    expect(actor.getSnapshot().context.node).toBe('n2');
    send({ type: 'ALLOWED' });
    expect(state()).toBe('binding');
  });

  it('backs off when its wait at permit is released, forgetting the node', () => {
    const { send, state, actor, clock } = start();
    send(...reserve('n1', 'wait'), { type: 'UNRESERVED', reason: 'timed out', now: 0 });
    expect(state()).toBe('backoff');
    expect(actor.getSnapshot().context).toMatchObject({
      node: undefined,
      reason: 'reservation released: timed out',
    });
    clock.increment(1000);
    expect(state()).toBe('pending');
  });
});

describe('pod machine: gates', () => {
  it('leaves the queue at once when gated (PreEnqueue), and re-enters it when ungated', () => {
    const { send, state, effects } = start(true);
    expect(state()).toBe('gated');
    expect(effects).toEqual(['enqueue', 'dequeue']);
    send({ type: 'SCHEDULE' });
    expect(state()).toBe('gated');
    send({ type: 'UNGATED' });
    expect(state()).toBe('pending');
    expect(effects).toEqual(['enqueue', 'dequeue', 'enqueue']);
  });
});

describe('pod machine: failures and backoff', () => {
  it('backs off 1 s after a failed bind, then 2 s after the next one', () => {
    const { send, state, clock, effects, actor } = start();
    send(...reserve(), { type: 'ALLOWED' }, bindFailed('boom', 0));
    expect(state()).toBe('backoff');
    expect(actor.getSnapshot().context.reason).toBe('binding failed: boom');
    expect(actor.getSnapshot().context.node).toBeUndefined();
    clock.increment(999);
    expect(state()).toBe('backoff');
    clock.increment(1);
    expect(state()).toBe('pending');
    send(...reserve('n2'), { type: 'ALLOWED' }, bindFailed('again', 1000, 2));
    clock.increment(1999);
    expect(state()).toBe('backoff');
    clock.increment(1);
    expect(state()).toBe('pending');
    expect(effects.filter((e) => e === 'enqueue')).toHaveLength(3);
  });

  it('backs off after a cycle error and retries (a throwing plugin no longer strands the pod)', () => {
    const { send, state, clock, actor } = start();
    send({ type: 'SCHEDULE' }, { type: 'CYCLE_FAILED', message: 'Boom: kaput', now: 0 });
    expect(state()).toBe('backoff');
    expect(actor.getSnapshot().context.reason).toBe('scheduling error: Boom: kaput');
    clock.increment(1000);
    expect(state()).toBe('pending');
  });

  it('parks an unschedulable pod with its rejecting plugins, and requeues it straight to pending once its backoff has passed', () => {
    const { send, state, effects } = start();
    send({ type: 'SCHEDULE' }, unschedulable(100, ['NodeAffinity']));
    expect(state()).toBe('unschedulable');
    send({ type: 'REQUEUE', now: 1100 });
    expect(state()).toBe('pending');
    expect(effects).toEqual(['enqueue', 'dequeue', 'park NodeAffinity', 'unpark', 'enqueue']);
  });

  it('waits out the rest of the backoff when requeued early', () => {
    const { send, state, clock } = start();
    send({ type: 'SCHEDULE' }, unschedulable(100));
    send({ type: 'REQUEUE', now: 400 });
    expect(state()).toBe('backoff');
    clock.increment(699);
    expect(state()).toBe('backoff');
    clock.increment(1);
    expect(state()).toBe('pending');
  });
});

describe('pod machine: ends', () => {
  const paths: Record<string, PodEvent[]> = {
    pending: [],
    filtering: [{ type: 'SCHEDULE' }],
    waiting: reserve('n1', 'wait'),
    binding: [...reserve(), { type: 'ALLOWED' }],
    boundUnconfirmed: [...reserve(), { type: 'ALLOWED' }, { type: 'BIND_SUCCEEDED', attempt: 1 }],
    unschedulable: [{ type: 'SCHEDULE' }, unschedulable(0)],
    backoff: [...reserve(), { type: 'ALLOWED' }, bindFailed('x', 0)],
  };

  it.each(['gated', ...Object.keys(paths)])('stops when the pod is deleted while %s', (where) => {
    const { send, state, actor } = start(where === 'gated');
    send(...(paths[where] ?? []));
    expect(state()).toBe(where);
    send({ type: 'DELETED' });
    expect(state()).toBe('deleted');
    expect(actor.getSnapshot().status).toBe('done');
  });

  it.each(['gated', ...Object.keys(paths)])(
    'stops when the watch shows the pod bound while %s',
    (where) => {
      const { send, state, actor } = start(where === 'gated');
      send(...(paths[where] ?? []));
      send({ type: 'BOUND', node: 'elsewhere' });
      expect(state()).toBe('bound');
      expect(actor.getSnapshot().status).toBe('done');
    },
  );

  it('reaches every state from pending', () => {
    const events: PodEvent[] = [
      { type: 'GATED' },
      { type: 'UNGATED' },
      { type: 'SCHEDULE' },
      { type: 'RESERVED', node: 'n', permit: 'allow' },
      { type: 'RESERVED', node: 'n', permit: 'wait' },
      { type: 'ALLOWED' },
      { type: 'UNRESERVED', reason: 'r', now: 0 },
      unschedulable(0),
      { type: 'CYCLE_FAILED', message: 'm', now: 0 },
      { type: 'PREEMPTING', node: 'n', message: 'm', now: 0 },
      { type: 'PREEMPTION_FAILED', attempt: 1, message: 'm', now: 0 },
      { type: 'BIND_SUCCEEDED', attempt: 1 },
      bindFailed('m', 0),
      { type: 'BOUND', node: 'n' },
      { type: 'REQUEUE', now: 0 },
      { type: 'DELETED' },
    ];
    const reached = new Set<string>();
    const input = { uid: 'u', key: 'k', backoff: { initialMs: 1, maxMs: 1 } };
    const found = getShortestPaths(podMachine, {
      events,
      input,
      serializeState: (s) => JSON.stringify(s.value),
    });
    for (const p of found) reached.add(String(p.state.value));
    const declared = Object.keys(podMachine.root.states);
    expect([...reached].sort()).toEqual(declared.sort());
  });
});
