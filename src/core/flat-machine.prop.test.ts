// Differential property: FlatMachine and XStateRunner take XState's own steps, for every machine the core compiles.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, createActor, type EventObject } from 'xstate';
import { getSimplePaths } from 'xstate/graph';
import { groupSpec, type MachineSpec, podSpec, probeSpec } from './flat-machine.specs.ts';
import { FlatMachine } from './flat-machine.ts';
import type { MachineActor, MachineHooks, MachineRunner } from './machine-runner.ts';
import { XStateRunner } from './xstate-runner.ts';

/** A step: an event for the machine, or the armed delay ending. */
type Step = EventObject;
const fire: Step = { type: 'FIRE' };

/** What a run looked like after each step. */
interface Trace {
  state: string;
  context: unknown;
  done: boolean;
  /** Whether the event was handled (sends only; undefined for FIRE). */
  handled: boolean | undefined;
  /** Every effect action so far, in order, with its params and the context it saw. */
  effects: string[];
  /**
   * Every delay armed and cancelled so far, in order. Apart from the effects: XState's
   * interpreter defers its clock calls to the end of the macrostep.
   */
  timers: string[];
}

const effectText = (name: string, params: unknown, context: unknown) =>
  `${name}(${JSON.stringify(params ?? null)}) in ${JSON.stringify(context)}`;

/** The oracle: XState's interpreter (`createActor`), its delays on a hand-driven clock. */
function runInterpreter(spec: MachineSpec, steps: readonly Step[]): Trace[] {
  const effects: string[] = [];
  const timers: string[] = [];
  let armed: { id: number; fire: () => void } | undefined;
  let nextId = 0;
  const record = (name: string) => (args: { context: unknown }, params?: unknown) =>
    void effects.push(effectText(name, params, args.context));
  const machine = (spec.machine as AnyStateMachine).provide({
    actions: Object.fromEntries(spec.impl.effects.map((n) => [n, record(n)])),
  });
  const actor = createActor(machine, {
    input: spec.input,
    clock: {
      setTimeout: (f: () => void, ms: number) => {
        timers.push(`arm ${ms}`);
        armed = { id: ++nextId, fire: f };
        return armed.id;
      },
      clearTimeout: (id: unknown) => {
        if (armed?.id !== id) return;
        timers.push('cancel');
        armed = undefined;
      },
    },
  });
  actor.start();
  return steps.map((s) => {
    let handled: boolean | undefined;
    if (s.type === 'FIRE') {
      const due = armed;
      armed = undefined;
      due?.fire();
    } else {
      const snap = actor.getSnapshot();
      handled = snap.status === 'active' && snap.can(s);
      // A stopped actor ignores events (XState would also warn on the console for each).
      if (snap.status === 'active') actor.send(s);
    }
    const snap = actor.getSnapshot();
    const done = snap.status !== 'active';
    return {
      state: String(snap.value),
      context: snap.context,
      done,
      handled,
      effects: [...effects],
      timers: [...timers],
    };
  });
}

/** The same steps through one of the core's runners. */
function runRunner(
  spec: MachineSpec,
  runner: MachineRunner<unknown, Step, unknown>,
  steps: readonly Step[],
): Trace[] {
  const effects: string[] = [];
  const timers: string[] = [];
  let armed = false;
  const hooks: MachineHooks<unknown, Step> = {
    effect: (name, context, _event, params) => void effects.push(effectText(name, params, context)),
    armDelay: (ms) => {
      timers.push(`arm ${ms}`);
      armed = true;
    },
    cancelDelay: () => {
      if (!armed) return;
      timers.push('cancel');
      armed = false;
    },
  };
  const actor: MachineActor<unknown, Step> = runner.spawn(spec.input, hooks);
  return steps.map((s) => {
    let handled: boolean | undefined;
    if (s.type === 'FIRE') {
      if (armed) {
        armed = false;
        actor.fireDelay();
      }
    } else {
      const can = actor.can(s);
      handled = actor.send(s);
      expect(can).toBe(handled);
    }
    const { state, context, done } = actor;
    return { state, context, done, handled, effects: [...effects], timers: [...timers] };
  });
}

/** Event sequences: each simple path XState's graph finds to a state, then random events. */
function sequences(spec: MachineSpec): fc.Arbitrary<Step[]> {
  const paths = getSimplePaths(spec.machine as AnyStateMachine, {
    input: spec.input,
    events: [...spec.graphEvents],
    serializeState: (s) => String(s.value),
  });
  const prefixes = paths.map((p) =>
    p.steps
      .map((s) => s.event as Step)
      .filter((e) => e.type !== 'xstate.init')
      .map((e) => (e.type.startsWith('xstate.after.') ? fire : e)),
  );
  expect(new Set(paths.map((p) => String(p.state.value))).size).toBe(spec.reachableStates);
  return fc
    .tuple(
      fc.constantFrom(...prefixes),
      fc.array(fc.oneof(spec.events, fc.constant(fire)), { maxLength: 30 }),
    )
    .map(([prefix, tail]) => [...prefix, ...tail]);
}

describe.each([podSpec, groupSpec, probeSpec])('the $name machine', (spec) => {
  const compiled = new FlatMachine(spec.machine, spec.impl) as MachineRunner<
    unknown,
    Step,
    unknown
  >;
  const xstate = new XStateRunner(spec.machine as AnyStateMachine) as MachineRunner<
    unknown,
    Step,
    unknown
  >;

  it('compiled by FlatMachine: state, context, handled and effects equal the interpreter after every step', () => {
    fc.assert(
      fc.property(sequences(spec), (steps) => {
        expect(runRunner(spec, compiled, steps)).toEqual(runInterpreter(spec, steps));
      }),
      { numRuns: 300 },
    );
  });

  it("run by XState's transition(): the same as the interpreter after every step", () => {
    fc.assert(
      fc.property(sequences(spec), (steps) => {
        expect(runRunner(spec, xstate, steps)).toEqual(runInterpreter(spec, steps));
      }),
      { numRuns: 100 },
    );
  });
});
