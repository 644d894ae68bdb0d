// The per-pod lifecycle: pending → filtering → binding → bound, with unschedulable and backoff.
import { assign, setup } from 'xstate';
import { type BackoffConfig, backoffDelayMs } from '../src/queue/backoff.ts';

/** Per-pod machine context. */
export interface PodContext {
  key: string;
  /** Scheduling attempts so far (each SCHEDULE counts one, as kube-scheduler counts pops). */
  attempts: number;
  /** Logical time of the last failed attempt (unschedulable or bind failure). */
  lastFailureAt: number;
  /** The node the pod is assumed on while binding. */
  node: string | undefined;
  /** Why the pod is not bound yet (last unschedulable message or bind error). */
  reason: string | undefined;
  backoff: BackoffConfig;
}

/** Events the runtime sends to a pod's machine. `now` is the event's logical time. */
export type PodEvent =
  | { type: 'SCHEDULE' }
  | { type: 'ASSUMED'; node: string }
  | { type: 'UNSCHEDULABLE'; message: string; now: number }
  | { type: 'BIND_SUCCEEDED' }
  | { type: 'BIND_FAILED'; message: string; now: number }
  | { type: 'BOUND'; node: string }
  | { type: 'REQUEUE'; now: number }
  | { type: 'DELETED' };

/** What a machine is created with. */
export interface PodInput {
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

/**
 * The pod lifecycle. Effects are declared by name and supplied by the runtime with
 * `.provide()`: `enqueue` (add to activeQ), `dequeue`, `park` / `unpark` (unschedulable
 * pool) and `requestBind` (issue the bind command; its result returns as an event).
 */
export const podMachine = setup({
  types: {
    context: {} as PodContext,
    events: {} as PodEvent,
    input: {} as PodInput,
  },
  actions: {
    // Declared effects: the default implementations do nothing; the runtime supplies them.
    enqueue: () => {},
    dequeue: () => {},
    park: () => {},
    unpark: () => {},
    requestBind: () => {},
    countAttempt: assign({ attempts: ({ context }) => context.attempts + 1 }),
    rememberNode: assign({
      node: ({ event }) => (event.type === 'ASSUMED' ? event.node : undefined),
    }),
    rememberUnschedulable: assign({
      reason: ({ event }) => (event.type === 'UNSCHEDULABLE' ? event.message : undefined),
      lastFailureAt: ({ context, event }) => eventTime(event) ?? context.lastFailureAt,
    }),
    rememberBindFailure: assign({
      reason: ({ event }) =>
        event.type === 'BIND_FAILED' ? `binding failed: ${event.message}` : undefined,
      lastFailureAt: ({ context, event }) => eventTime(event) ?? context.lastFailureAt,
      node: () => undefined,
    }),
  },
  guards: {
    backoffExpired: ({ context, event }) => remainingBackoffMs(context, event) === 0,
  },
  delays: {
    backoff: ({ context, event }) => remainingBackoffMs(context, event),
  },
}).createMachine({
  id: 'pod',
  context: ({ input }) => ({
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
    pending: {
      description: 'Waiting in the activeQ for a scheduling cycle.',
      entry: 'enqueue',
      exit: 'dequeue',
      on: { SCHEDULE: { target: 'filtering', actions: 'countAttempt' } },
    },
    filtering: {
      description: 'In a scheduling cycle: filter, score, select against one snapshot.',
      on: {
        ASSUMED: { target: 'binding', actions: 'rememberNode' },
        UNSCHEDULABLE: { target: 'unschedulable', actions: 'rememberUnschedulable' },
      },
    },
    binding: {
      description: 'Assumed on a node; the bind effect is in flight.',
      entry: 'requestBind',
      on: {
        BIND_SUCCEEDED: { target: 'bound' },
        BIND_FAILED: { target: 'backoff', actions: 'rememberBindFailure' },
      },
    },
    unschedulable: {
      description: 'No node fits; parked until a cluster event could help.',
      entry: 'park',
      exit: 'unpark',
      on: {
        REQUEUE: [{ guard: 'backoffExpired', target: 'pending' }, { target: 'backoff' }],
      },
    },
    backoff: {
      description: 'Waiting out 1 s × 2^(attempts−1), capped, before retrying.',
      after: { backoff: { target: 'pending' } },
    },
    bound: { type: 'final', description: 'Bound to a node; the machine stops.' },
    deleted: { type: 'final', description: 'Deleted while in flight; the machine stops.' },
  },
});

/** The pod machine's type, for the runtime's `.provide()`. */
export type PodMachine = typeof podMachine;
