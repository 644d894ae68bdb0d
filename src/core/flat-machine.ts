// Compiles a flat XState machine config to transition tables, refusing every feature the compiled runner does not run.
import {
  type FlatAction,
  FlatActor,
  type FlatArgs,
  type FlatState,
  type FlatTables,
  type FlatTransition,
} from './flat-actor.ts';
import type { MachineHooks, MachineRunner } from './machine-runner.ts';

export type { FlatArgs } from './flat-actor.ts';

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

/** The config of a flat machine could not be compiled (a feature the runner does not run). */
export class FlatMachineError extends Error {
  override name = 'FlatMachineError';
}

const toArray = (value: unknown): unknown[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** The XState features behind config keys the runner refuses, named in the error. */
const refusedKeys: Readonly<Record<string, string>> = {
  states: 'nested states',
  initial: 'nested states (initial)',
  invoke: 'invoked actors (invoke)',
  always: 'eventless transitions (always)',
  onDone: 'done transitions (onDone)',
  history: 'history states',
  target: 'history state targets',
  output: 'output',
  tags: 'tags',
  meta: 'meta',
  id: 'state ids',
  entry: 'root entry actions',
  exit: 'root exit actions',
  after: 'root delayed transitions (after)',
  type: 'parallel states',
};
const stateKeys = new Set(['entry', 'exit', 'on', 'after', 'type', 'description']);
const rootKeys = new Set(['id', 'context', 'initial', 'on', 'states', 'types', 'schemas']);
const transitionKeys = new Set(['target', 'guard', 'actions', 'reenter', 'description']);

function refuseUnknownKeys(node: object, allowed: Set<string>, where: string): void {
  for (const key of Object.keys(node))
    if (!allowed.has(key) && key !== 'description')
      throw new FlatMachineError(`${where}: ${refusedKeys[key] ?? `key "${key}"`} not supported`);
}

/**
 * A flat XState machine (one level of states, no parallel or history states, no invoked
 * actors, no eventless transitions, every guard, action and delay named), compiled from
 * its config into per-state transition tables. Running it takes the transitions XState
 * would take, runs the same actions in the same order (exit, cancel delay, transition
 * actions, entry, arm delay; a state's transition to itself neither exits nor enters it
 * unless `reenter: true`) and ends in the same state and context, at a fraction of the
 * interpreter's cost per event (flat-machine.prop.test.ts checks both against XState).
 * Compiling throws FlatMachineError naming any other feature.
 */
export class FlatMachine<C, E extends { type: string }, I = unknown, S extends string = string>
  implements MachineRunner<C, E, I, S>, FlatTables<C, E>
{
  private readonly states: FlatState<C, E>[] = [];
  private readonly index = new Map<string, number>();
  private readonly root: Map<string, FlatTransition<C, E>[]>;
  private readonly initialContext: (input: I) => C;
  /** Index of the initial state. */
  readonly initial: number;

  constructor(
    machine: { readonly config: unknown },
    private readonly impl: FlatImplementations<C, E>,
  ) {
    const config = machine.config as Record<string, unknown>;
    const id = String(config.id ?? '(machine)');
    refuseUnknownKeys(config, rootKeys, `machine ${id}`);
    const states = (config.states ?? {}) as Record<string, Record<string, unknown>>;
    for (const name of Object.keys(states)) this.index.set(name, this.index.size);
    for (const [name, node] of Object.entries(states)) this.states.push(this.state(name, node, id));
    this.root = this.transitionMap(config.on, '(root)', -1);
    const initial = this.index.get(String(config.initial));
    if (initial === undefined)
      throw new FlatMachineError(
        `machine ${id}: initial state "${String(config.initial)}" is unknown`,
      );
    this.initial = initial;
    const context = config.context;
    this.initialContext =
      typeof context === 'function'
        ? (input) => (context as (args: { input: I }) => C)({ input })
        : () => context as C;
  }

  spawn(input: I, hooks: MachineHooks<C, E>): FlatActor<C, E, S> {
    const actor = new FlatActor<C, E, S>(this, this.initial, this.initialContext(input), hooks);
    actor.start({ type: 'xstate.init', input } as unknown as E);
    return actor;
  }

  restore(state: S, context: C, hooks: MachineHooks<C, E>): FlatActor<C, E, S> {
    const i = this.index.get(state);
    if (i === undefined) throw new FlatMachineError(`state "${state}" is unknown`);
    return new FlatActor<C, E, S>(this, i, context, hooks);
  }

  isLiveState(name: string): name is S {
    const i = this.index.get(name);
    return i !== undefined && !this.node(i).final;
  }

  /** The name of state `i`. */
  stateName(i: number): string {
    return this.node(i).name;
  }

  /** @internal */
  node(state: number): FlatState<C, E> {
    return this.states[state] as FlatState<C, E>;
  }

  /** @internal the transition `event` takes from `state`, if any (own transitions, then the root's). */
  select(state: number, event: E, context: C): FlatTransition<C, E> | undefined {
    const args = { context, event };
    const own = this.node(state).on.get(event.type);
    if (own !== undefined)
      for (const t of own) if (t.guard === undefined || t.guard(args)) return t;
    const inherited = this.root.get(event.type);
    if (inherited !== undefined)
      for (const t of inherited) if (t.guard === undefined || t.guard(args)) return t;
    return undefined;
  }

  private state(name: string, node: Record<string, unknown>, id: string): FlatState<C, E> {
    const where = `state ${name}`;
    if (node.type === 'parallel' || node.type === 'history')
      throw new FlatMachineError(`${where}: ${node.type} states not supported`);
    if (node.type !== undefined && node.type !== 'final' && node.type !== 'atomic')
      throw new FlatMachineError(`${where}: state type "${String(node.type)}" not supported`);
    refuseUnknownKeys(node, stateKeys, where);
    const self = this.index.get(name) as number;
    return {
      name,
      final: node.type === 'final',
      entry: this.actions(node.entry, where),
      exit: this.actions(node.exit, where),
      on: this.transitionMap(node.on, where, self),
      after: this.after(node.after, name, id, self),
    };
  }

  private actions(value: unknown, where: string): FlatAction<C, E>[] {
    return toArray(value).map((a) => {
      const type = typeof a === 'string' ? a : (a as { type?: unknown } | null)?.type;
      if (typeof type !== 'string')
        throw new FlatMachineError(`${where}: inline actions not supported (name them in setup)`);
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

  /** The transitions of state `self` (-1: the root), by event type. */
  private transitionMap(
    value: unknown,
    where: string,
    self: number,
  ): Map<string, FlatTransition<C, E>[]> {
    const map = new Map<string, FlatTransition<C, E>[]>();
    for (const [eventType, raw] of Object.entries((value ?? {}) as Record<string, unknown>)) {
      if (eventType === '*' || eventType.endsWith('.*'))
        throw new FlatMachineError(`${where}: wildcard events ("${eventType}") not supported`);
      map.set(eventType, this.transitions(raw, `${where} on ${eventType}`, self));
    }
    return map;
  }

  private transitions(raw: unknown, where: string, self: number): FlatTransition<C, E>[] {
    return toArray(raw).map((t) => {
      if (typeof t === 'function')
        throw new FlatMachineError(`${where}: inline transition functions not supported`);
      const def = (typeof t === 'string' ? { target: t } : t) as Record<string, unknown>;
      refuseUnknownKeys(def, transitionKeys, where);
      if (def.reenter !== undefined && typeof def.reenter !== 'boolean')
        throw new FlatMachineError(`${where}: reenter must be true or false`);
      if (def.reenter === true && self < 0)
        throw new FlatMachineError(`${where}: reenter: true on a root transition not supported`);
      const target = this.target(def.target, where, self < 0);
      if (def.reenter === true && target === undefined)
        throw new FlatMachineError(`${where}: reenter: true without a target not supported`);
      return {
        guard: this.guard(def.guard, where),
        target,
        reenters: target !== self || def.reenter === true,
        actions: this.actions(def.actions, where),
      };
    });
  }

  private guard(name: unknown, where: string): FlatTransition<C, E>['guard'] {
    if (name === undefined) return undefined;
    if (typeof name === 'function')
      throw new FlatMachineError(`${where}: inline guards not supported (name them in setup)`);
    if (typeof name !== 'string')
      throw new FlatMachineError(`${where}: guards with params not supported`);
    const guard = this.impl.guards[name];
    if (guard === undefined)
      throw new FlatMachineError(`${where}: guard "${name}" has no implementation`);
    return guard;
  }

  private target(raw: unknown, where: string, atRoot: boolean): number | undefined {
    if (raw === undefined) return undefined;
    if (Array.isArray(raw) && raw.length === 1) return this.target(raw[0], where, atRoot);
    if (typeof raw !== 'string')
      throw new FlatMachineError(`${where}: multiple targets not supported`);
    if (raw.startsWith('#'))
      throw new FlatMachineError(`${where}: targets by id ("${raw}") not supported`);
    if (atRoot !== raw.startsWith('.'))
      throw new FlatMachineError(`${where}: target "${raw}" is not a state of this flat machine`);
    const i = this.index.get(atRoot ? raw.slice(1) : raw);
    if (i === undefined) throw new FlatMachineError(`${where}: target "${raw}" is unknown`);
    return i;
  }

  private after(value: unknown, where: string, id: string, self: number): FlatState<C, E>['after'] {
    if (value === undefined) return undefined;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length !== 1)
      throw new FlatMachineError(`state ${where}: more than one after delay not supported`);
    const [delayKey, raw] = entries[0] as [string, unknown];
    const fixed = Number(delayKey);
    const named = this.impl.delays[delayKey];
    if (named === undefined && !Number.isFinite(fixed))
      throw new FlatMachineError(`state ${where}: delay "${delayKey}" has no implementation`);
    return {
      // The event XState raises when the delay ends.
      event: Object.freeze({ type: `xstate.after.${delayKey}.${id}.${where}` }) as unknown as E,
      delay: named ?? (() => fixed),
      transitions: this.transitions(raw, `state ${where} after ${delayKey}`, self),
    };
  }
}
