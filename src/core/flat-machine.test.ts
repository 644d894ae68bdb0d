// The compiled pod machine takes the same transitions, effects and delays as XState's interpreter.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, setup } from 'xstate';
import {
  type PodContext,
  type PodEvent,
  podDelays,
  podEffects,
  podGuards,
  podMachine,
  podUpdates,
} from '../../machines/pod.machine.ts';
import { FlatMachine, FlatMachineError } from './flat-machine.ts';

const backoff = { initialMs: 1000, maxMs: 10_000 };
const implementations = {
  guards: podGuards,
  updates: podUpdates,
  delays: podDelays,
  effects: podEffects,
};

/** A step: an event for the machine, or the armed delay ending. */
type Step = PodEvent | { type: 'FIRE' };

const now = fc.integer({ min: 0, max: 60_000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ type: 'GATED' } as const),
  fc.constant({ type: 'UNGATED' } as const),
  fc.constant({ type: 'SCHEDULE' } as const),
  fc.record({
    type: fc.constant('RESERVED' as const),
    node: fc.constantFrom('n1', 'n2'),
    permit: fc.constantFrom('allow' as const, 'wait' as const),
  }),
  fc.constant({ type: 'ALLOWED' } as const),
  fc.record({ type: fc.constant('UNRESERVED' as const), reason: fc.string(), now }),
  fc.record({
    type: fc.constant('UNSCHEDULABLE' as const),
    message: fc.string(),
    plugins: fc.array(fc.constantFrom('NodeResourcesFit', 'TaintToleration')),
    now,
  }),
  fc.record({ type: fc.constant('CYCLE_FAILED' as const), message: fc.string(), now }),
  fc.constant({ type: 'BIND_SUCCEEDED' } as const),
  fc.record({ type: fc.constant('BIND_FAILED' as const), message: fc.string(), now }),
  fc.record({ type: fc.constant('REQUEUE' as const), now }),
  fc.record({ type: fc.constant('BOUND' as const), node: fc.constantFrom('n1', 'n2') }),
  fc.constant({ type: 'DELETED' } as const),
  fc.constant({ type: 'FIRE' } as const),
);

/** What a run looked like after each step: state, context, done, and the effects so far. */
interface Trace {
  state: string;
  context: PodContext;
  done: boolean;
  effects: string[];
}

function effectText(name: string, params: unknown, context: PodContext): string {
  return `${name}(${JSON.stringify(params ?? null)}) attempts=${context.attempts} at=${context.lastFailureAt}`;
}

function runXState(steps: Step[]): Trace[] {
  const effects: string[] = [];
  let armed: (() => void) | undefined;
  let nextId = 0;
  let current = -1;
  const record =
    (name: string) =>
    ({ context }: { context: PodContext }, params?: unknown) =>
      void effects.push(effectText(name, params, context));
  const machine = podMachine.provide({
    actions: {
      enqueue: record('enqueue'),
      dequeue: record('dequeue'),
      park: record('park'),
      unpark: record('unpark'),
    },
  });
  const actor = createActor(machine, {
    input: { uid: 'u', key: 'ns/p', backoff },
    clock: {
      setTimeout: (fire: () => void, ms: number) => {
        effects.push(`arm ${ms}`);
        armed = fire;
        current = ++nextId;
        return current;
      },
      clearTimeout: (id: unknown) => {
        if (id !== current || armed === undefined) return;
        effects.push('cancel');
        armed = undefined;
      },
    },
  });
  actor.start();
  const traces: Trace[] = [];
  for (const s of steps) {
    if (s.type === 'FIRE') {
      const fire = armed;
      armed = undefined;
      fire?.();
      // A stopped actor ignores events (XState would also warn on the console for each).
    } else if (actor.getSnapshot().status === 'active') actor.send(s);
    const snap = actor.getSnapshot();
    traces.push({
      state: String(snap.value),
      context: snap.context,
      done: snap.status !== 'active',
      effects: [...effects],
    });
  }
  return traces;
}

function runCompiled(steps: Step[]): Trace[] {
  const machine = new FlatMachine<PodContext, PodEvent>(podMachine, implementations);
  const effects: string[] = [];
  let armed = false;
  const context: PodContext = {
    uid: 'u',
    key: 'ns/p',
    attempts: 0,
    lastFailureAt: 0,
    node: undefined,
    reason: undefined,
    backoff,
  };
  const actor = machine.actor(machine.initial, context, {
    effect: (name, ctx, _event, params) => void effects.push(effectText(name, params, ctx)),
    armDelay: (ms) => {
      effects.push(`arm ${ms}`);
      armed = true;
    },
    cancelDelay: () => {
      if (!armed) return;
      effects.push('cancel');
      armed = false;
    },
  });
  actor.start({ type: 'xstate.init' } as unknown as PodEvent);
  const traces: Trace[] = [];
  for (const s of steps) {
    if (s.type === 'FIRE') {
      if (armed) {
        armed = false;
        actor.fireDelay();
      }
    } else actor.send(s);
    traces.push({
      state: actor.state,
      context: actor.context,
      done: actor.done,
      effects: [...effects],
    });
  }
  return traces;
}

describe('FlatMachine running the pod machine', () => {
  it('matches XState step by step: state, context, done, effects and delays in order', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        expect(runCompiled(steps)).toEqual(runXState(steps));
      }),
      { numRuns: 500 },
    );
  });

  it('takes a pod through a failed bind, its backoff and a second attempt to bound', () => {
    const steps: Step[] = [
      { type: 'SCHEDULE' },
      { type: 'RESERVED', node: 'n1', permit: 'allow' },
      { type: 'BIND_FAILED', message: 'conflict', now: 100 },
      { type: 'FIRE' },
      { type: 'SCHEDULE' },
      { type: 'RESERVED', node: 'n2', permit: 'allow' },
      { type: 'BIND_SUCCEEDED' },
      { type: 'BOUND', node: 'n2' },
    ];
    const traces = runCompiled(steps);
    expect(traces.map((t) => t.state)).toEqual([
      'filtering',
      'binding',
      'backoff',
      'pending',
      'filtering',
      'binding',
      'boundUnconfirmed',
      'bound',
    ]);
    expect(traces.at(-1)?.done).toBe(true);
    expect(traces[2]?.effects.at(-1)).toBe('arm 1000');
    expect(traces).toEqual(runXState(steps));
  });
});

describe('FlatMachine compiling', () => {
  const compile = (config: object) =>
    new FlatMachine(
      setup({ actions: { a: () => {} }, guards: { g: () => true } }).createMachine(config as never),
      { guards: { g: () => true }, updates: {}, delays: {}, effects: ['a'] },
    );

  it('compiles a flat machine whose actions and guards are all named', () => {
    const m = compile({
      id: 'm',
      initial: 'x',
      states: { x: { entry: 'a', on: { GO: { guard: 'g', target: 'y' } } }, y: { type: 'final' } },
    });
    expect(m.stateName(m.initial)).toBe('x');
    expect(m.isFinal(m.stateIndex('y') as number)).toBe(true);
  });

  it.each([
    [
      'nested states',
      { id: 'm', initial: 'x', states: { x: { initial: 'i', states: { i: {} } } } },
    ],
    ['parallel states', { id: 'm', type: 'parallel', states: { x: {} } }],
    ['eventless transitions', { id: 'm', initial: 'x', states: { x: { always: 'y' }, y: {} } }],
    ['inline actions', { id: 'm', initial: 'x', states: { x: { entry: () => {} } } }],
    ['unknown actions', { id: 'm', initial: 'x', states: { x: { entry: 'b' } } }],
    [
      'inline guards',
      { id: 'm', initial: 'x', states: { x: { on: { E: { guard: () => true } } } } },
    ],
    ['wildcard events', { id: 'm', initial: 'x', states: { x: { on: { '*': 'x' } } } }],
    ['targets by id', { id: 'm', initial: 'x', states: { x: { on: { E: '#m.y' } }, y: {} } }],
    ['invoked actors', { id: 'm', initial: 'x', states: { x: { invoke: { src: 'a' } } } }],
  ])('refuses %s', (_what, config) => {
    expect(() => compile(config as never)).toThrow(FlatMachineError);
  });
});
