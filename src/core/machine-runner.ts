// What the core needs from whatever runs its XState machines: actors with a state, a context, send/can, and a delay hook.

/** Where a running machine's effects go: named actions, and arming/cancelling its delay. */
export interface MachineHooks<C, E> {
  effect(name: string, context: C, event: E, params: unknown): void;
  /** The state entered has an `after` delay of `ms`; fire it with `fireDelay()`. */
  armDelay(ms: number, context: C): void;
  /** The state with the armed delay was left before it fired. */
  cancelDelay(context: C): void;
}

/** One running machine, however it is executed. */
export interface MachineActor<C, E, S extends string = string> {
  /** The current state's name. */
  readonly state: S;
  readonly context: C;
  /** True once a final state has been entered. */
  readonly done: boolean;
  /**
   * Applies `event`; returns true when it was handled (a transition with a target or
   * actions was taken), false when it was ignored. A done machine ignores everything.
   */
  send(event: E): boolean;
  /** True when `send(event)` would be handled now (XState's `snapshot.can`). */
  can(event: E): boolean;
  /** The armed delay ended: takes the state's delayed transition; false when none was taken. */
  fireDelay(): boolean;
}

/** Makes actors of one machine: fresh ones (entry actions run) and restored ones (none run). */
export interface MachineRunner<C, E, I, S extends string = string> {
  /** A new machine from `input`, in its initial state, its entry actions and delay run. */
  spawn(input: I, hooks: MachineHooks<C, E>): MachineActor<C, E, S>;
  /** A machine put back in `state` with `context`, no action run (a snapshot being loaded). */
  restore(state: S, context: C, hooks: MachineHooks<C, E>): MachineActor<C, E, S>;
  /** True when `name` is a state of the machine that is not final (a machine can rest in it). */
  isLiveState(name: string): name is S;
}

/**
 * How the core runs its machines: `compiled` (FlatMachine's tables, the default) or
 * `xstate` (XState's own pure `transition()` on each event). Both take the same
 * transitions; docs/machine-runner.md has what each costs and why the default is the default.
 */
export type MachineRunnerKind = 'compiled' | 'xstate';

let selected: MachineRunnerKind = 'compiled';

/**
 * Chooses the runner for pod actors and gangs created from now on (benchmarks compare the
 * two; the core never calls this). Returns the previous choice.
 */
export function selectMachineRunner(kind: MachineRunnerKind): MachineRunnerKind {
  const previous = selected;
  selected = kind;
  return previous;
}

/** The runner chosen for new pod actors and gangs. */
export function selectedMachineRunner(): MachineRunnerKind {
  return selected;
}
