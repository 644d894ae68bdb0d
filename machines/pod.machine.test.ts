// Pins the pod lifecycle: paths through the states, effects requested by name, backoff timing.
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { type PodEvent, podMachine } from './pod.machine.ts';

function start() {
  const effects: string[] = [];
  const clock = new SimulatedClock();
  const machine = podMachine.provide({
    actions: {
      enqueue: () => void effects.push('enqueue'),
      dequeue: () => void effects.push('dequeue'),
      park: () => void effects.push('park'),
      unpark: () => void effects.push('unpark'),
      requestBind: ({ context }) => void effects.push(`bind ${context.node}`),
    },
  });
  const actor = createActor(machine, {
    input: { key: 'ns/p', backoff: { initialMs: 1000, maxMs: 10_000 } },
    clock,
  });
  actor.start();
  const send = (...events: PodEvent[]) => {
    for (const e of events) actor.send(e);
  };
  return { actor, effects, clock, send, state: () => actor.getSnapshot().value };
}

describe('pod machine', () => {
  it('goes pending → filtering → binding → bound, asking to enqueue and to bind', () => {
    const { send, effects, state, actor } = start();
    expect(state()).toBe('pending');
    send({ type: 'SCHEDULE' }, { type: 'ASSUMED', node: 'n1' });
    expect(state()).toBe('binding');
    send({ type: 'BIND_SUCCEEDED' });
    expect(state()).toBe('bound');
    expect(actor.getSnapshot().status).toBe('done');
    expect(effects).toEqual(['enqueue', 'dequeue', 'bind n1']);
  });

  it('backs off 1 s after a failed bind, then 2 s after the next one', () => {
    const { send, state, clock, effects, actor } = start();
    send(
      { type: 'SCHEDULE' },
      { type: 'ASSUMED', node: 'n1' },
      { type: 'BIND_FAILED', message: 'boom', now: 0 },
    );
    expect(state()).toBe('backoff');
    expect(actor.getSnapshot().context.reason).toBe('binding failed: boom');
    clock.increment(999);
    expect(state()).toBe('backoff');
    clock.increment(1);
    expect(state()).toBe('pending');
    send(
      { type: 'SCHEDULE' },
      { type: 'ASSUMED', node: 'n2' },
      { type: 'BIND_FAILED', message: 'again', now: 1000 },
    );
    clock.increment(1999);
    expect(state()).toBe('backoff');
    clock.increment(1);
    expect(state()).toBe('pending');
    expect(effects.filter((e) => e === 'enqueue')).toHaveLength(3);
  });

  it('parks an unschedulable pod and requeues it straight to pending once its backoff has passed', () => {
    const { send, state, effects } = start();
    send(
      { type: 'SCHEDULE' },
      { type: 'UNSCHEDULABLE', message: '0/1 nodes are available.', now: 100 },
    );
    expect(state()).toBe('unschedulable');
    send({ type: 'REQUEUE', now: 1100 });
    expect(state()).toBe('pending');
    expect(effects).toEqual(['enqueue', 'dequeue', 'park', 'unpark', 'enqueue']);
  });

  it('waits out the rest of the backoff when requeued early', () => {
    const { send, state, clock } = start();
    send({ type: 'SCHEDULE' }, { type: 'UNSCHEDULABLE', message: 'no', now: 100 });
    send({ type: 'REQUEUE', now: 400 });
    expect(state()).toBe('backoff');
    clock.increment(699);
    expect(state()).toBe('backoff');
    clock.increment(1);
    expect(state()).toBe('pending');
  });

  it.each(['pending', 'binding', 'unschedulable', 'backoff'])(
    'stops when the pod is deleted while %s',
    (where) => {
      const { send, state, actor } = start();
      if (where !== 'pending') send({ type: 'SCHEDULE' });
      if (where === 'binding' || where === 'backoff') send({ type: 'ASSUMED', node: 'n' });
      if (where === 'backoff') send({ type: 'BIND_FAILED', message: 'x', now: 0 });
      if (where === 'unschedulable') send({ type: 'UNSCHEDULABLE', message: 'x', now: 0 });
      expect(state()).toBe(where);
      send({ type: 'DELETED' });
      expect(state()).toBe('deleted');
      expect(actor.getSnapshot().status).toBe('done');
    },
  );

  it('ends bound when the watch shows the pod bound by someone else', () => {
    const { send, state } = start();
    send({ type: 'BOUND', node: 'elsewhere' });
    expect(state()).toBe('bound');
  });
});
