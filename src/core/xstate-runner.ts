// Runs an XState machine with XState's own pure transition(): each event yields the next snapshot and the actions to execute.
import {
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
  type ExecutableActionObject,
  initialTransition,
  transition,
} from 'xstate';
import type { MachineActor, MachineHooks, MachineRunner } from './machine-runner.ts';

/** The params XState gives a delayed `xstate.raise` (an `after` transition being armed). */
interface DelayedRaise {
  event: EventObject;
  delay?: number;
}

/**
 * A flat machine executed by XState itself: `initialTransition()` to start, `transition()`
 * per event, and the returned actions handed to the hooks (named effects with their
 * params, a delayed raise as `armDelay`, its cancel as `cancelDelay`; `assign` is already
 * in the snapshot). The machine's own action implementations are never executed.
 */
export class XStateRunner<C, E extends EventObject, I, S extends string>
  implements MachineRunner<C, E, I, S>
{
  constructor(private readonly machine: AnyStateMachine) {}

  spawn(input: I, hooks: MachineHooks<C, E>): MachineActor<C, E, S> {
    const [snapshot, actions] = initialTransition(this.machine, input);
    const actor = new XStateActor<C, E, S>(this.machine, snapshot, hooks);
    actor.execute(actions);
    return actor;
  }

  restore(state: S, context: C, hooks: MachineHooks<C, E>): MachineActor<C, E, S> {
    const snapshot = this.machine.resolveState({ value: state, context });
    return new XStateActor<C, E, S>(this.machine, snapshot, hooks);
  }

  isLiveState(name: string): name is S {
    const node = (this.machine.root.states as Record<string, { type: string } | undefined>)[name];
    return (
      node !== undefined && Object.hasOwn(this.machine.root.states, name) && node.type !== 'final'
    );
  }
}

class XStateActor<C, E extends EventObject, S extends string> implements MachineActor<C, E, S> {
  /** The event XState raises when the armed delay ends, while one is armed. */
  private delayEvent: EventObject | undefined;

  constructor(
    private readonly machine: AnyStateMachine,
    private snapshot: AnyMachineSnapshot,
    private readonly hooks: MachineHooks<C, E>,
  ) {}

  get state(): S {
    return this.snapshot.value as S;
  }

  get context(): C {
    return this.snapshot.context as C;
  }

  get done(): boolean {
    return this.snapshot.status !== 'active';
  }

  can(event: E): boolean {
    return !this.done && this.snapshot.can(event);
  }

  send(event: E): boolean {
    if (this.done) return false;
    return this.step(event);
  }

  fireDelay(): boolean {
    const event = this.delayEvent;
    if (event === undefined || this.done) return false;
    this.delayEvent = undefined;
    return this.step(event);
  }

  /** Hands XState's executable actions to the hooks, in XState's order. */
  execute(actions: readonly ExecutableActionObject[]): void {
    for (const a of actions) {
      const context = a.info.context as C;
      if (a.type === 'xstate.raise') {
        const raise = a.params as DelayedRaise;
        if (raise.delay === undefined) continue;
        this.delayEvent = raise.event;
        this.hooks.armDelay(raise.delay, context);
      } else if (a.type === 'xstate.cancel') {
        this.delayEvent = undefined;
        this.hooks.cancelDelay(context);
      } else this.hooks.effect(a.type, context, a.info.event as E, a.params);
    }
  }

  /** One macrostep; handled as XState's `can` says (asked only when nothing visibly changed). */
  private step(event: EventObject): boolean {
    const before = this.snapshot;
    const [next, actions] = transition(this.machine, before, event);
    const handled = next !== before || actions.length > 0 || before.can(event);
    this.snapshot = next;
    this.execute(actions);
    return handled;
  }
}
