// The per-pod lifecycle: pending (or gated) → filtering → (waiting) → binding → bound, with backoff and preempting.
import { assign, type StateValueFrom, setup } from 'xstate';
import { type BackoffConfig, backoffDelayMs } from './backoff.ts';

/** Per-pod machine context. */
export interface PodContext {
  uid: string;
  key: string;
  /** Scheduling attempts so far; the current attempt's number (each SCHEDULE counts one). */
  attempts: number;
  /** Logical time of the last failed attempt (unschedulable, error or bind failure). */
  lastFailureAt: number;
  /** The node the pod is reserved on while waiting or binding, or nominated to while preempting. */
  node: string | undefined;
  /** Why the pod is not bound yet (last unschedulable message, error or bind failure). */
  reason: string | undefined;
  backoff: BackoffConfig;
}

/** Events the core sends to a pod's machine. `now` is the event's logical time. */
export type PodEvent =
  | { type: 'GATED' }
  | { type: 'UNGATED' }
  /** A scheduling cycle (or its group's gang step) takes the pod. */
  | { type: 'SCHEDULE' }
  /** Reserved on `node`; Permit's verdict says whether it binds now or waits. */
  | { type: 'RESERVED'; node: string; permit: 'allow' | 'wait' }
  | { type: 'ALLOWED' }
  | { type: 'UNRESERVED'; reason: string; now: number }
  | { type: 'UNSCHEDULABLE'; message: string; plugins: readonly string[]; now: number }
  | { type: 'CYCLE_FAILED'; message: string; now: number }
  /** No node fits; a preemption nominated the pod to `node` and chose victims there. */
  | { type: 'PREEMPTING'; node: string; message: string; now: number }
  /** Evicting a victim failed: the pod goes back to the queue after its backoff. */
  | { type: 'PREEMPTION_FAILED'; attempt: number; message: string; now: number }
  /** The victims of the pod's preemption are gone: it is scheduled again (after its backoff). */
  | { type: 'VICTIMS_GONE'; now: number }
  /** The bind of attempt `attempt` succeeded (a result for an older attempt is ignored). */
  | { type: 'BIND_SUCCEEDED'; attempt: number }
  | { type: 'BIND_FAILED'; attempt: number; message: string; now: number }
  | { type: 'BOUND'; node: string }
  | { type: 'REQUEUE'; now: number }
  /** Back to the queue at once, backoff or not (members of the group holding nodes). */
  | { type: 'RETRY' }
  | { type: 'DELETED' };

/** What a machine is created with. */
export interface PodInput {
  uid: string;
  key: string;
  backoff: BackoffConfig;
}

function eventTime(event: PodEvent): number | undefined {
  return 'now' in event ? event.now : undefined;
}

/** Milliseconds of backoff still to wait at the time of `event` (0 when it has passed). */
export function remainingBackoffMs(context: PodContext, event: PodEvent): number {
  const now = eventTime(event) ?? context.lastFailureAt;
  const until =
    context.lastFailureAt + backoffDelayMs(Math.max(1, context.attempts), context.backoff);
  return Math.max(0, until - now);
}

const failedAt = (context: PodContext, event: PodEvent) =>
  eventTime(event) ?? context.lastFailureAt;

type PodArgs = { context: PodContext; event: PodEvent };

/** The context updates of the pod machine's `assign` actions, by action name. */
export const podUpdates = {
  countAttempt: ({ context }: PodArgs) => ({ attempts: context.attempts + 1 }),
  rememberNode: ({ event }: PodArgs) => ({
    node: event.type === 'RESERVED' ? event.node : undefined,
  }),
  rememberUnschedulable: ({ context, event }: PodArgs) => ({
    reason: event.type === 'UNSCHEDULABLE' ? event.message : undefined,
    lastFailureAt: failedAt(context, event),
  }),
  rememberError: ({ context, event }: PodArgs) => ({
    reason: event.type === 'CYCLE_FAILED' ? `scheduling error: ${event.message}` : undefined,
    lastFailureAt: failedAt(context, event),
  }),
  rememberUnreserve: ({ context, event }: PodArgs) => ({
    reason: event.type === 'UNRESERVED' ? `reservation released: ${event.reason}` : undefined,
    lastFailureAt: failedAt(context, event),
    node: undefined,
  }),
  rememberPreemption: ({ context, event }: PodArgs) => ({
    reason:
      event.type === 'PREEMPTING'
        ? `${event.message} Preempting lower-priority pods on node ${event.node}: waiting for them to go.`
        : undefined,
    lastFailureAt: failedAt(context, event),
    node: event.type === 'PREEMPTING' ? event.node : undefined,
  }),
  rememberPreemptionFailure: ({ context, event }: PodArgs) => ({
    reason: event.type === 'PREEMPTION_FAILED' ? `preemption failed: ${event.message}` : undefined,
    lastFailureAt: failedAt(context, event),
    node: undefined,
  }),
  rememberBindFailure: ({ context, event }: PodArgs) => ({
    reason: event.type === 'BIND_FAILED' ? `binding failed: ${event.message}` : undefined,
    lastFailureAt: failedAt(context, event),
    node: undefined,
  }),
} satisfies Record<string, (args: PodArgs) => Partial<PodContext>>;

/** The pod machine's guards, by name. */
export const podGuards = {
  permitWaits: ({ event }: PodArgs) => event.type === 'RESERVED' && event.permit === 'wait',
  backoffExpired: ({ context, event }: PodArgs) => remainingBackoffMs(context, event) === 0,
  /** A result (bind, eviction) names the attempt the machine is on: older attempts' results are stale. */
  isCurrentAttempt: ({ context, event }: PodArgs) =>
    'attempt' in event && event.attempt === context.attempts,
};

/** The pod machine's delays, by name. */
export const podDelays = {
  backoff: ({ context, event }: PodArgs) => remainingBackoffMs(context, event),
};

/** The effect actions the core supplies with `.provide()` (the rest update the context). */
export const podEffects = ['enqueue', 'dequeue', 'park', 'unpark'] as const;

/**
 * The pod lifecycle. Effects are declared by name and supplied by the core with
 * `.provide()`: `enqueue` (add to activeQ), `dequeue`, `park` / `unpark` (unschedulable
 * pool). Commands (bind) and the permit timeout are the core's decisions, which it
 * reports to the machine as events; the backoff delay runs on the core's log clock.
 * Guards, context updates and delays are the plain functions above, so that the core's
 * compiled runner (src/core/flat-machine.ts) and this interpreter share them.
 */
export const podMachine = setup({
  types: {
    context: {} as PodContext,
    events: {} as PodEvent,
    input: {} as PodInput,
  },
  actions: {
    // Declared effects: the default implementations do nothing; the core supplies them.
    enqueue: () => {},
    dequeue: () => {},
    park: (_, _params: { plugins: readonly string[] }) => {},
    unpark: () => {},
    countAttempt: assign(podUpdates.countAttempt),
    rememberNode: assign(podUpdates.rememberNode),
    rememberUnschedulable: assign(podUpdates.rememberUnschedulable),
    rememberError: assign(podUpdates.rememberError),
    rememberUnreserve: assign(podUpdates.rememberUnreserve),
    rememberBindFailure: assign(podUpdates.rememberBindFailure),
    rememberPreemption: assign(podUpdates.rememberPreemption),
    rememberPreemptionFailure: assign(podUpdates.rememberPreemptionFailure),
  },
  guards: podGuards,
  delays: podDelays,
}).createMachine({
  id: 'pod',
  context: ({ input }) => ({
    uid: input.uid,
    key: input.key,
    attempts: 0,
    lastFailureAt: 0,
    node: undefined,
    reason: undefined,
    backoff: input.backoff,
  }),
  initial: 'pending',
  on: {
    DELETED: { target: '.deleted' },
    BOUND: { target: '.bound' },
  },
  states: {
    gated: {
      description: 'Has scheduling gates (PreEnqueue): takes no capacity, not in the queue.',
      on: { UNGATED: { target: 'pending' } },
    },
    pending: {
      description: 'Waiting in the activeQ for a scheduling cycle.',
      entry: 'enqueue',
      exit: 'dequeue',
      on: {
        SCHEDULE: { target: 'filtering', actions: 'countAttempt' },
        // PreEnqueue: a pod with scheduling gates is taken out of the queue at once.
        GATED: { target: 'gated' },
      },
    },
    filtering: {
      description: 'In a scheduling cycle: PreFilter, Filter, Score, select against one snapshot.',
      on: {
        RESERVED: [
          { guard: 'permitWaits', target: 'waiting', actions: 'rememberNode' },
          { target: 'binding', actions: 'rememberNode' },
        ],
        UNSCHEDULABLE: { target: 'unschedulable', actions: 'rememberUnschedulable' },
        PREEMPTING: { target: 'preempting', actions: 'rememberPreemption' },
        CYCLE_FAILED: { target: 'backoff', actions: 'rememberError' },
      },
    },
    preempting: {
      description:
        'Fits nowhere; nominated to a node whose lower-priority victims are being evicted. ' +
        'Parked (no cluster event moves it) until the victims are gone, the periodic flush ' +
        'retries it, or an eviction fails.',
      entry: { type: 'park', params: () => ({ plugins: ['DefaultPreemption'] }) },
      exit: 'unpark',
      on: {
        REQUEUE: [{ guard: 'backoffExpired', target: 'pending' }, { target: 'backoff' }],
        VICTIMS_GONE: [{ guard: 'backoffExpired', target: 'pending' }, { target: 'backoff' }],
        PREEMPTION_FAILED: {
          guard: 'isCurrentAttempt',
          target: 'backoff',
          actions: 'rememberPreemptionFailure',
        },
      },
    },
    waiting: {
      description:
        'Waiting at Permit (e.g. a gang member), holding its reservation until allowed, ' +
        'or released by the core (rejected, or its permit timer fired).',
      on: {
        ALLOWED: { target: 'binding' },
        UNRESERVED: { target: 'backoff', actions: 'rememberUnreserve' },
      },
    },
    binding: {
      description: 'Reserved on a node and allowed by Permit; the bind command is in flight.',
      on: {
        BIND_SUCCEEDED: { guard: 'isCurrentAttempt', target: 'boundUnconfirmed' },
        BIND_FAILED: {
          guard: 'isCurrentAttempt',
          target: 'backoff',
          actions: 'rememberBindFailure',
        },
      },
    },
    boundUnconfirmed: {
      description:
        'Bound by the API, not yet seen bound by the watch: stays assumed; a watch update ' +
        'without nodeName never re-queues it.',
    },
    unschedulable: {
      description: 'No node fits; parked until a cluster event could help.',
      entry: {
        type: 'park',
        params: ({ event }) => ({ plugins: event.type === 'UNSCHEDULABLE' ? event.plugins : [] }),
      },
      exit: 'unpark',
      on: {
        REQUEUE: [{ guard: 'backoffExpired', target: 'pending' }, { target: 'backoff' }],
        // A gang step takes every waiting member of its group at once.
        SCHEDULE: { target: 'filtering', actions: 'countAttempt' },
        // Gang fairness: the holding group retries without backoff when room may have freed.
        RETRY: { target: 'pending' },
      },
    },
    backoff: {
      description: 'Waiting out 1 s × 2^(attempts−1), capped, before retrying.',
      after: { backoff: { target: 'pending' } },
      on: { SCHEDULE: { target: 'filtering', actions: 'countAttempt' } },
    },
    bound: { type: 'final', description: 'Seen bound to a node; the machine stops.' },
    deleted: { type: 'final', description: 'Deleted while in flight; the machine stops.' },
  },
});

/** The pod machine's type, for the core's `.provide()`. */
export type PodMachine = typeof podMachine;

/**
 * The pod machine's state names ('pending', 'filtering', ...), from the machine itself
 * (XState's `StateValueFrom`: a flat machine's state value is its state's name).
 */
export type PodStateName = StateValueFrom<PodMachine> & string;
