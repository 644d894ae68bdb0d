// FlatMachine compiles the flat machines the core runs, takes XState's self-transition rule, and refuses every other feature by name.
import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { type PodContext, type PodEvent, podMachine } from '../../machines/pod.machine.ts';
import { podImplementations } from './core-machines.ts';
import { FlatMachine, FlatMachineError } from './flat-machine.ts';
import type { MachineHooks } from './machine-runner.ts';

/** Hooks that write what they are called with into `log`. */
function recorder<C>(log: string[]): MachineHooks<C, { type: string }> {
  return {
    effect: (name, _context, event, params) =>
      void log.push(
        `${name}${params === undefined ? '' : JSON.stringify(params)} on ${event.type}`,
      ),
    armDelay: (ms) => void log.push(`arm ${ms}`),
    cancelDelay: () => void log.push('cancel'),
  };
}

describe('FlatMachine running the pod machine', () => {
  const pod = new FlatMachine<PodContext, PodEvent, unknown>(podMachine, podImplementations);
  const input = { uid: 'u', key: 'ns/p', backoff: { initialMs: 1000, maxMs: 10_000 } };

  it('takes a pod through a failed bind, its backoff and a second attempt to bound', () => {
    const log: string[] = [];
    const actor = pod.spawn(input, recorder(log));
    const states: string[] = [];
    const steps: PodEvent[] = [
      { type: 'SCHEDULE' },
      { type: 'RESERVED', node: 'n1', permit: 'allow' },
      { type: 'BIND_FAILED', attempt: 1, message: 'conflict', now: 100 },
    ];
    for (const e of steps) states.push(actor.send(e) ? actor.state : 'ignored');
    expect(actor.fireDelay()).toBe(true);
    states.push(actor.state);
    for (const e of [{ type: 'SCHEDULE' }, { type: 'BIND_SUCCEEDED', attempt: 1 }] as PodEvent[])
      states.push(actor.send(e) ? actor.state : 'ignored');
    expect(states).toEqual(['filtering', 'binding', 'backoff', 'pending', 'filtering', 'ignored']);
    expect(log).toEqual([
      'enqueue on xstate.init',
      'dequeue on SCHEDULE',
      'arm 1000',
      // XState cancels the delay of the state it leaves, even the one that just fired.
      'cancel',
      'enqueue on xstate.after.backoff.pod.backoff',
      'dequeue on SCHEDULE',
    ]);
    expect(actor.context).toMatchObject({ attempts: 2, lastFailureAt: 100, node: undefined });
  });

  it('says what it would handle (can) without taking it, and ignores everything once done', () => {
    const actor = pod.spawn(input, recorder([]));
    expect(actor.can({ type: 'SCHEDULE' })).toBe(true);
    expect(actor.can({ type: 'BIND_SUCCEEDED', attempt: 1 })).toBe(false);
    expect(actor.state).toBe('pending');
    expect(actor.send({ type: 'DELETED' })).toBe(true);
    expect(actor.done).toBe(true);
    expect(actor.can({ type: 'BOUND', node: 'n1' })).toBe(false);
    expect(actor.send({ type: 'BOUND', node: 'n1' })).toBe(false);
  });

  it('restores a machine in a live state without running its entry actions', () => {
    const log: string[] = [];
    const context = { ...input, attempts: 3, lastFailureAt: 7, node: undefined, reason: 'r' };
    expect(pod.isLiveState('unschedulable')).toBe(true);
    expect(pod.isLiveState('bound')).toBe(false);
    expect(pod.isLiveState('nowhere')).toBe(false);
    const actor = pod.restore('unschedulable', context, recorder(log));
    expect([actor.state, log]).toEqual(['unschedulable', []]);
    expect(actor.send({ type: 'RETRY' })).toBe(true);
    expect(log).toEqual(['unpark on RETRY', 'enqueue on RETRY']);
  });
});

describe('FlatMachine taking a transition to the state it is in', () => {
  const machine = setup({
    types: { context: {} as { n: number } },
    actions: {
      in: () => {},
      out: () => {},
      count: assign(({ context }) => ({ n: context.n + 1 })),
    },
  }).createMachine({
    id: 'm',
    context: { n: 0 },
    initial: 'x',
    on: { ROOT: { target: '.x' } },
    states: {
      x: {
        entry: 'in',
        exit: 'out',
        on: { SELF: { target: 'x', actions: 'count' }, AGAIN: { target: 'x', reenter: true } },
        after: { 10: { target: 'x' } },
      },
    },
  });
  const impl = {
    guards: {},
    updates: { count: ({ context }: { context: { n: number } }) => ({ n: context.n + 1 }) },
    delays: {},
    effects: ['in', 'out'],
  };
  const run = (event: string) => {
    const log: string[] = [];
    const actor = new FlatMachine(machine, impl).spawn(undefined, recorder(log));
    log.length = 0;
    if (event === 'FIRE') actor.fireDelay();
    else actor.send({ type: event });
    return log;
  };

  it('neither exits nor enters it by default (XState v5: reenter is false)', () => {
    expect(run('SELF')).toEqual([]);
    expect(run('FIRE')).toEqual([]);
  });

  it('exits and enters it with reenter: true, and from a root transition', () => {
    expect(run('AGAIN')).toEqual(['out on AGAIN', 'cancel', 'in on AGAIN', 'arm 10']);
    expect(run('ROOT')).toEqual(['out on ROOT', 'cancel', 'in on ROOT', 'arm 10']);
  });
});

describe('FlatMachine compiling', () => {
  const compile = (config: object) =>
    new FlatMachine(
      setup({
        actions: { a: () => {} },
        guards: { g: () => true },
        actors: { child: setup({}).createMachine({}) },
      }).createMachine(config as never),
      { guards: { g: () => true }, updates: {}, delays: {}, effects: ['a'] },
    );
  const flat = (x: object) => ({ id: 'm', initial: 'x', states: { x, y: {} } });

  it('compiles a flat machine whose actions and guards are all named', () => {
    const m = compile({
      id: 'm',
      initial: 'x',
      states: { x: { entry: 'a', on: { GO: { guard: 'g', target: 'y' } } }, y: { type: 'final' } },
    });
    expect(m.isLiveState('x')).toBe(true);
    expect(m.isLiveState('y')).toBe(false);
  });

  it.each([
    [
      'nested states',
      { id: 'm', initial: 'x', states: { x: { initial: 'i', states: { i: {} } } } },
    ],
    ['parallel states', { id: 'm', type: 'parallel', states: { x: {} } }],
    ['parallel states', flat({ type: 'parallel', states: { i: {} } })],
    ['history states', { id: 'm', initial: 'x', states: { x: {}, h: { type: 'history' } } }],
    ['invoked actors', flat({ invoke: { src: 'child' } })],
    ['eventless transitions', flat({ always: 'y' })],
    ['done transitions', flat({ onDone: 'y' })],
    ['inline actions', flat({ entry: () => {} })],
    ['action "b" has no implementation', flat({ entry: 'b' })],
    ['inline guards', flat({ on: { E: { guard: () => true, target: 'y' } } })],
    ['guards with params', flat({ on: { E: { guard: { type: 'g', params: {} }, target: 'y' } } })],
    ['guard "h" has no implementation', flat({ on: { E: { guard: 'h', target: 'y' } } })],
    ['wildcard events', flat({ on: { '*': 'y' } })],
    ['wildcard events', flat({ on: { 'pod.*': 'y' } })],
    ['targets by id', flat({ on: { E: '#m.y' } })],
    ['multiple targets', flat({ on: { E: { target: ['y', 'x'] } } })],
    ['reenter: true without a target', flat({ on: { E: { reenter: true, actions: 'a' } } })],
    [
      'reenter: true on a root transition',
      { id: 'm', initial: 'x', on: { E: { target: '.x', reenter: true } }, states: { x: {} } },
    ],
    ['more than one after delay', flat({ after: { 10: 'y', 20: 'y' } })],
    ['delay "slow" has no implementation', flat({ after: { slow: 'y' } })],
    ['root entry actions', { id: 'm', initial: 'x', entry: 'a', states: { x: {} } }],
    ['root delayed transitions', { id: 'm', initial: 'x', after: { 10: '.x' }, states: { x: {} } }],
    ['output', { id: 'm', initial: 'x', output: {}, states: { x: {} } }],
    ['tags', flat({ tags: ['busy'] })],
    ['meta not supported', flat({ on: { E: { target: 'y', meta: {} } } })],
    ['initial state "z" is unknown', { id: 'm', initial: 'z', states: { x: {} } }],
  ])('refuses %s, naming it', (feature, config) => {
    expect(() => compile(config)).toThrow(FlatMachineError);
    expect(() => compile(config)).toThrow(feature);
  });
});
