// Runs a flat XState machine straight from its config: the same states, guards, actions and delays, compiled to tables.

/** The arguments guards, context updates, delays and action params are called with. */
export interface FlatArgs<C, E> {
  context: C;
  event: E;
}

/**
 * What the machine's named guards, `assign` actions and delays compute, as plain
 * functions. The XState machine is set up from the same functions (`assign(update)`),
 * so the compiled runner and the interpreter share one definition of each.
 */
export interface FlatImplementations<C, E> {
  guards: Readonly<Record<string, (args: FlatArgs<C, E>) => boolean>>;
  updates: Readonly<Record<string, (args: FlatArgs<C, E>) => Partial<C>>>;
  delays: Readonly<Record<string, (args: FlatArgs<C, E>) => number>>;
  /** Names of the effect actions the runtime supplies (everything not an update). */
  effects: readonly string[];
}

/** Where a running machine's effects go: named actions, and arming/cancelling its delay. */
export interface FlatHooks<C, E> {
  effect(name: string, context: C, event: E, params: unknown): void;
  /** The state entered has an `after` delay of `ms`; fire it with `fireDelay()`. */
  armDelay(ms: number, context: C): void;
  /** The state with the armed delay was left before it fired. */
  cancelDelay(context: C): void;
}

/** The config of a flat machine could not be compiled (a feature the runner does not run). */
export class FlatMachineError extends Error {
  override name = 'FlatMachineError';
}

type Action<C, E> =
  | { kind: 'update'; update: (args: FlatArgs<C, E>) => Partial<C> }
  | { kind: 'effect'; name: string; params: ((args: FlatArgs<C, E>) => unknown) | undefined };

interface Transition<C, E> {
  guard: ((args: FlatArgs<C, E>) => boolean) | undefined;
  /** Index of the target state; undefined for a targetless transition (actions only). */
  target: number | undefined;
  actions: Action<C, E>[];
}

interface CompiledState<C, E> {
  name: string;
  final: boolean;
  entry: Action<C, E>[];
  exit: Action<C, E>[];
  on: Map<string, Transition<C, E>[]>;
  after:
    | {
        /** The event XState raises when the delay ends (one shared object: it has no data). */
        event: E;
        delay: (args: FlatArgs<C, E>) => number;
        transitions: Transition<C, E>[];
      }
    | undefined;
}

const toArray = (value: unknown): unknown[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

const supportedStateKeys = new Set(['entry', 'exit', 'on', 'after', 'type', 'description']);
const supportedRootKeys = new Set([
  'id',
  'context',
  'initial',
  'on',
  'states',
  'types',
  'schemas',
  'description',
]);

/**
 * A flat XState machine (one level of states, no parallel or history states, no invoked
 * actors, no eventless transitions, every guard, action and delay named), compiled from
 * its config into per-state transition tables. Running it takes the transitions XState
 * would take, runs the same actions in the same order (exit, cancel delay, transition
 * actions, entry, arm delay) and ends in the same state and context, at a fraction of
 * the interpreter's cost per event. Compiling throws FlatMachineError on anything else.
 */
export class FlatMachine<C, E extends { type: string }> {
  private readonly states: CompiledState<C, E>[] = [];
  private readonly index = new Map<string, number>();
  private readonly root: Map<string, Transition<C, E>[]>;
  /** Index of the initial state. */
  readonly initial: number;

  constructor(
    machine: { readonly config: unknown },
    private readonly impl: FlatImplementations<C, E>,
  ) {
    const config = machine.config as Record<string, unknown>;
    const id = String(config.id ?? '(machine)');
    for (const key of Object.keys(config))
      if (!supportedRootKeys.has(key))
        throw new FlatMachineError(`machine ${id}: root key "${key}" is not supported`);
    const states = (config.states ?? {}) as Record<string, Record<string, unknown>>;
    for (const name of Object.keys(states)) this.index.set(name, this.index.size);
    for (const [name, node] of Object.entries(states)) {
      for (const key of Object.keys(node))
        if (!supportedStateKeys.has(key))
          throw new FlatMachineError(`state ${name}: key "${key}" is not supported`);
      if (node.type !== undefined && node.type !== 'final' && node.type !== 'atomic')
        throw new FlatMachineError(`state ${name}: type "${String(node.type)}" is not supported`);
      this.states.push({
        name,
        final: node.type === 'final',
        entry: this.actions(node.entry, name),
        exit: this.actions(node.exit, name),
        on: this.transitionMap(node.on, name, false),
        after: this.after(node.after, name, id),
      });
    }
    this.root = this.transitionMap(config.on, '(root)', true);
    const initial = this.index.get(String(config.initial));
    if (initial === undefined)
      throw new FlatMachineError(
        `machine ${id}: initial state "${String(config.initial)}" is unknown`,
      );
    this.initial = initial;
  }

  /** The name of state `i`. */
  stateName(i: number): string {
    return (this.states[i] as CompiledState<C, E>).name;
  }

  /** The index of the state called `name`, if there is one. */
  stateIndex(name: string): number | undefined {
    return this.index.get(name);
  }

  /** True when state `i` is final (a machine that enters it is done). */
  isFinal(i: number): boolean {
    return (this.states[i] as CompiledState<C, E>).final;
  }

  /** A machine at `state` with `context` (entry actions not run: restoring, or before `start`). */
  actor(state: number, context: C, hooks: FlatHooks<C, E>): FlatActor<C, E> {
    return new FlatActor(this, state, context, hooks);
  }

  /** @internal the transition `event` takes from `state`, if any (own transitions, then the root's). */
  select(state: number, event: E, context: C): Transition<C, E> | undefined {
    const node = this.states[state] as CompiledState<C, E>;
    const args = { context, event };
    const own = node.on.get(event.type);
    if (own !== undefined)
      for (const t of own) if (t.guard === undefined || t.guard(args)) return t;
    const inherited = this.root.get(event.type);
    if (inherited !== undefined)
      for (const t of inherited) if (t.guard === undefined || t.guard(args)) return t;
    return undefined;
  }

  /** @internal */
  node(state: number): CompiledState<C, E> {
    return this.states[state] as CompiledState<C, E>;
  }

  private actions(value: unknown, where: string): Action<C, E>[] {
    return toArray(value).map((a) => {
      const type = typeof a === 'string' ? a : (a as { type?: unknown } | null)?.type;
      if (typeof type !== 'string')
        throw new FlatMachineError(`${where}: inline action is not supported (name it in setup)`);
      const update = this.impl.updates[type];
      if (update !== undefined) return { kind: 'update', update };
      if (!this.impl.effects.includes(type))
        throw new FlatMachineError(`${where}: action "${type}" has no implementation`);
      const params = typeof a === 'string' ? undefined : (a as { params?: unknown }).params;
      if (params !== undefined && typeof params !== 'function')
        throw new FlatMachineError(`${where}: params of "${type}" must be a function`);
      return {
        kind: 'effect',
        name: type,
        params: params as ((args: FlatArgs<C, E>) => unknown) | undefined,
      };
    });
  }

  private transitionMap(
    value: unknown,
    where: string,
    atRoot: boolean,
  ): Map<string, Transition<C, E>[]> {
    const map = new Map<string, Transition<C, E>[]>();
    for (const [eventType, raw] of Object.entries((value ?? {}) as Record<string, unknown>)) {
      if (eventType === '*' || eventType.includes('.*'))
        throw new FlatMachineError(`${where}: wildcard event "${eventType}" is not supported`);
      map.set(eventType, this.transitions(raw, `${where} on ${eventType}`, atRoot));
    }
    return map;
  }

  private transitions(raw: unknown, where: string, atRoot: boolean): Transition<C, E>[] {
    return toArray(raw).map((t) => {
      const def = (typeof t === 'string' ? { target: t } : t) as Record<string, unknown>;
      if (def.reenter !== undefined)
        throw new FlatMachineError(`${where}: reenter is not supported`);
      const guardName = def.guard;
      if (guardName !== undefined && typeof guardName !== 'string')
        throw new FlatMachineError(`${where}: inline guard is not supported (name it in setup)`);
      const guard = guardName === undefined ? undefined : this.impl.guards[guardName];
      if (guardName !== undefined && guard === undefined)
        throw new FlatMachineError(`${where}: guard "${guardName}" has no implementation`);
      return {
        guard,
        target: this.target(def.target, where, atRoot),
        actions: this.actions(def.actions, where),
      };
    });
  }

  private target(raw: unknown, where: string, atRoot: boolean): number | undefined {
    if (raw === undefined) return undefined;
    if (typeof raw !== 'string')
      throw new FlatMachineError(`${where}: only one target, by name, is supported`);
    const name = atRoot ? raw.replace(/^\./, '') : raw;
    if (atRoot !== raw.startsWith('.'))
      throw new FlatMachineError(`${where}: target "${raw}" is not a state of this flat machine`);
    const i = this.index.get(name);
    if (i === undefined) throw new FlatMachineError(`${where}: target "${raw}" is unknown`);
    return i;
  }

  private after(value: unknown, where: string, id: string): CompiledState<C, E>['after'] {
    if (value === undefined) return undefined;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length !== 1)
      throw new FlatMachineError(`state ${where}: exactly one after delay is supported`);
    const [delayKey, raw] = entries[0] as [string, unknown];
    const fixed = Number(delayKey);
    const named = this.impl.delays[delayKey];
    if (named === undefined && !Number.isFinite(fixed))
      throw new FlatMachineError(`state ${where}: delay "${delayKey}" has no implementation`);
    return {
      // The event XState raises when the delay ends.
      event: Object.freeze({ type: `xstate.after.${delayKey}.${id}.${where}` }) as unknown as E,
      delay: named ?? (() => fixed),
      transitions: this.transitions(raw, `state ${where} after ${delayKey}`, false),
    };
  }
}

/** One running flat machine: its state, its context, and whether it is done (final). */
export class FlatActor<C, E extends { type: string }> {
  constructor(
    private readonly machine: FlatMachine<C, E>,
    private current: number,
    private ctx: C,
    private readonly hooks: FlatHooks<C, E>,
  ) {}

  /** The current state's name. */
  get state(): string {
    return this.machine.stateName(this.current);
  }

  get context(): C {
    return this.ctx;
  }

  /** True once a final state has been entered. */
  get done(): boolean {
    return this.machine.isFinal(this.current);
  }

  /** Enters the current state as a new machine does: its entry actions and its delay. */
  start(event: E): void {
    this.enter(this.current, event);
  }

  /** Applies `event`: the transition it enables, if any, with its actions. Ignored once done. */
  send(event: E): void {
    if (this.done) return;
    const t = this.machine.select(this.current, event, this.ctx);
    if (t !== undefined) this.take(t, event);
  }

  /** The armed delay ended: takes the state's delayed transition. */
  fireDelay(): void {
    if (this.done) return;
    const after = this.machine.node(this.current).after;
    if (after === undefined) return;
    const event = after.event;
    const args = { context: this.ctx, event };
    for (const t of after.transitions)
      if (t.guard === undefined || t.guard(args)) {
        this.take(t, event);
        return;
      }
  }

  private take(t: Transition<C, E>, event: E): void {
    if (t.target === undefined) {
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

  private run(actions: readonly Action<C, E>[], event: E): void {
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
