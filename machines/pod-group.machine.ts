// The pod group lifecycle: waiting for quorum → placing → binding → running, with backoff; the pod machines move with it.
import { assign, type StateValueFrom, setup } from 'xstate';

/** Pod group machine context. */
export interface GroupContext {
  /** The group's id (a PodGroup's `namespace/name`). */
  key: string;
  /** Gang steps tried so far. */
  steps: number;
  /** Logical time of the group's first gang step (PodGroup `status.scheduleStartTime`); 0 before. */
  startedAt: number;
  /** Logical time the group was last placed whole (its reservations' start); 0 when not placed. */
  placedAt: number;
  /** Why the group is not running yet (quorum, what blocked its last step, a timeout). */
  reason: string | undefined;
}

/** Events the core sends to a group's machine. `now` is the event's logical time. */
export type GroupEvent =
  /** Fewer than `minMember` members can be placed (missing, gated, or no PodGroup). */
  | { type: 'QUORUM_MISSING'; reason: string }
  /** A gang step begins: the quorum exists and a member reached the head of the queue. */
  | { type: 'STEP'; now: number }
  /** The step reserved every member it needed, against one snapshot; binds are issued. */
  | { type: 'PLACED'; now: number }
  /** The step could not place the group whole; nothing was reserved. */
  | { type: 'NOT_PLACED'; reason: string }
  /** `minMember` members are bound. */
  | { type: 'ALL_BOUND' }
  /** A placed member lost its place (its bind failed, or it was deleted before binding). */
  | { type: 'MEMBER_LOST'; reason: string }
  /** The group held nodes (or stayed partially placed) longer than its schedule timeout: released. */
  | { type: 'TIMED_OUT'; reason: string };

/** What a group machine is created with. */
export interface GroupInput {
  key: string;
}

type GroupArgs = { context: GroupContext; event: GroupEvent };

const reasonOf = (event: GroupEvent): string | undefined =>
  'reason' in event ? event.reason : undefined;

/** The context updates of the group machine's `assign` actions, by action name. */
export const groupUpdates = {
  rememberReason: ({ event }: GroupArgs) => ({ reason: reasonOf(event) }),
  countStep: ({ context, event }: GroupArgs) => ({
    steps: context.steps + 1,
    startedAt: context.startedAt === 0 && event.type === 'STEP' ? event.now : context.startedAt,
  }),
  rememberPlaced: ({ event }: GroupArgs) => ({
    placedAt: event.type === 'PLACED' ? event.now : 0,
    reason: undefined,
  }),
  forgetPlaced: ({ event }: GroupArgs) => ({ placedAt: 0, reason: reasonOf(event) }),
  clearReason: () => ({ reason: undefined }),
} satisfies Record<string, (args: GroupArgs) => Partial<GroupContext>>;

/** The group machine's guards (none yet), by name. */
export const groupGuards = {};

/** The group machine's delays (none: its members' machines keep the backoff), by name. */
export const groupDelays = {};

/** The effect actions the core supplies (none: the core reports a group's status itself). */
export const groupEffects = [] as const;

/**
 * A pod group (gang). One gang step decides a whole group against one snapshot: every
 * missing member reserved, or none. The core drives it alongside the members' pod
 * machines: a step pulls the members into `filtering` together, and their decisions
 * (reserved and bound, or unschedulable with the group's reason) follow the group's.
 * The machine lives while any member is in flight.
 */
export const podGroupMachine = setup({
  types: {
    context: {} as GroupContext,
    events: {} as GroupEvent,
    input: {} as GroupInput,
  },
  actions: {
    rememberReason: assign(groupUpdates.rememberReason),
    countStep: assign(groupUpdates.countStep),
    rememberPlaced: assign(groupUpdates.rememberPlaced),
    forgetPlaced: assign(groupUpdates.forgetPlaced),
    clearReason: assign(groupUpdates.clearReason),
  },
}).createMachine({
  id: 'podGroup',
  context: ({ input }) => ({
    key: input.key,
    steps: 0,
    startedAt: 0,
    placedAt: 0,
    reason: undefined,
  }),
  initial: 'waitingForQuorum',
  on: {
    QUORUM_MISSING: { target: '.waitingForQuorum', actions: 'rememberReason' },
  },
  states: {
    waitingForQuorum: {
      description:
        'Fewer than minMember members exist, some are gated, or the PodGroup (or its API) ' +
        'is missing: members wait in the unschedulable pool and take no capacity.',
      on: { STEP: { target: 'placing', actions: 'countStep' } },
    },
    placing: {
      description:
        'The quorum exists and a member reached the head of the queue: one gang step tries ' +
        'the missing members (highest priority, then oldest) against one snapshot.',
      on: {
        PLACED: { target: 'binding', actions: 'rememberPlaced' },
        NOT_PLACED: { target: 'backoff', actions: 'rememberReason' },
        STEP: { target: 'placing', actions: 'countStep' },
      },
    },
    backoff: {
      description:
        'Not placed whole; nothing reserved. Members are parked or backing off; a cluster ' +
        'event that could help, or their backoff, brings them back for the next step. The ' +
        'first blocked group in queue order keeps the nodes where its members fitted ' +
        '(nominated) for at most its schedule timeout (TIMED_OUT releases them).',
      on: {
        STEP: { target: 'placing', actions: 'countStep' },
        TIMED_OUT: { target: 'backoff', actions: 'rememberReason' },
      },
    },
    binding: {
      description:
        'minMember members reserved in one step; their binds are in flight together. A ' +
        'member whose bind fails is re-planned alone; the rest keep their places.',
      on: {
        ALL_BOUND: { target: 'running', actions: 'clearReason' },
        MEMBER_LOST: { target: 'placing', actions: 'forgetPlaced' },
        TIMED_OUT: { target: 'backoff', actions: 'forgetPlaced' },
        STEP: { target: 'placing', actions: 'countStep' },
      },
    },
    running: {
      description:
        'minMember members bound. Further members are scheduled one by one; a member lost ' +
        'now is replaced without holding the others back.',
      on: {
        MEMBER_LOST: { target: 'placing', actions: 'rememberReason' },
        STEP: { target: 'placing', actions: 'countStep' },
      },
    },
  },
});

/** The group machine's type. */
export type PodGroupMachine = typeof podGroupMachine;

/** The group machine's state names ('waitingForQuorum', 'placing', ...), from the machine itself. */
export type GroupStateName = StateValueFrom<PodGroupMachine> & string;
