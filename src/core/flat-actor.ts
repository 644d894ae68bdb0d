// One running machine compiled by FlatMachine: its state, its context, and the steps XState would take on each event.
import type { MachineActor, MachineHooks } from './machine-runner.ts';

/** The arguments guards, context updates, delays and action params are called with. */
export interface FlatArgs<C, E> {
  context: C;
  event: E;
}

/** A compiled action: a context update (`assign`) or a named effect for the hooks. */
export type FlatAction<C, E> =
  | { kind: 'update'; update: (args: FlatArgs<C, E>) => Partial<C> }
  | { kind: 'effect'; name: string; params: ((args: FlatArgs<C, E>) => unknown) | undefined };

/** A compiled transition. */
export interface FlatTransition<C, E> {
  guard: ((args: FlatArgs<C, E>) => boolean) | undefined;
  /** Index of the target state; undefined for a targetless transition (actions only). */
  target: number | undefined;
  /**
   * True when taking it exits the source state and enters the target: always for a
   * target other than the source or declared on the root; for a state's transition to
   * itself only with `reenter: true` (XState v5's default is not to re-enter).
   */
  reenters: boolean;
  actions: FlatAction<C, E>[];
}

/** A compiled state. */
export interface FlatState<C, E> {
  name: string;
  final: boolean;
  entry: FlatAction<C, E>[];
  exit: FlatAction<C, E>[];
  on: Map<string, FlatTransition<C, E>[]>;
  after:
    | {
        /** The event XState raises when the delay ends (one shared object: it has no data). */
        event: E;
        delay: (args: FlatArgs<C, E>) => number;
        transitions: FlatTransition<C, E>[];
      }
    | undefined;
}

/** What a FlatActor needs from its compiled machine. */
export interface FlatTables<C, E> {
  stateName(i: number): string;
  node(i: number): FlatState<C, E>;
  /** The transition `event` takes from `state`, if any (own transitions, then the root's). */
  select(state: number, event: E, context: C): FlatTransition<C, E> | undefined;
}

/** One running flat machine: its state, its context, and whether it is done (final). */
export class FlatActor<C, E extends { type: string }, S extends string>
  implements MachineActor<C, E, S>
{
  constructor(
    private readonly machine: FlatTables<C, E>,
    private current: number,
    private ctx: C,
    private readonly hooks: MachineHooks<C, E>,
  ) {}

  get state(): S {
    return this.machine.stateName(this.current) as S;
  }

  get context(): C {
    return this.ctx;
  }

  get done(): boolean {
    return this.machine.node(this.current).final;
  }

  /** Enters the current state as a new machine does: its entry actions and its delay. */
  start(event: E): void {
    this.enter(this.current, event);
  }

  can(event: E): boolean {
    if (this.done) return false;
    const t = this.machine.select(this.current, event, this.ctx);
    return t !== undefined && (t.target !== undefined || t.actions.length > 0);
  }

  send(event: E): boolean {
    if (this.done) return false;
    const t = this.machine.select(this.current, event, this.ctx);
    if (t === undefined) return false;
    this.take(t, event);
    return t.target !== undefined || t.actions.length > 0;
  }

  fireDelay(): boolean {
    if (this.done) return false;
    const after = this.machine.node(this.current).after;
    if (after === undefined) return false;
    const event = after.event;
    const args = { context: this.ctx, event };
    for (const t of after.transitions)
      if (t.guard === undefined || t.guard(args)) {
        this.take(t, event);
        return true;
      }
    return false;
  }

  private take(t: FlatTransition<C, E>, event: E): void {
    if (t.target === undefined || !t.reenters) {
      this.run(t.actions, event);
      return;
    }
    const left = this.machine.node(this.current);
    this.run(left.exit, event);
    if (left.after !== undefined) this.hooks.cancelDelay(this.ctx);
    this.run(t.actions, event);
    this.current = t.target;
    this.enter(t.target, event);
  }

  private enter(state: number, event: E): void {
    const node = this.machine.node(state);
    this.run(node.entry, event);
    if (node.after !== undefined)
      this.hooks.armDelay(node.after.delay({ context: this.ctx, event }), this.ctx);
  }

  private run(actions: readonly FlatAction<C, E>[], event: E): void {
    for (const a of actions) {
      if (a.kind === 'update') {
        this.ctx = { ...this.ctx, ...a.update({ context: this.ctx, event }) };
      } else {
        const params = a.params === undefined ? undefined : a.params({ context: this.ctx, event });
        this.hooks.effect(a.name, this.ctx, event, params);
      }
    }
  }
}
