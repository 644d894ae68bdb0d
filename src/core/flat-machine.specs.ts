// The machines the differential property runs: the pod and pod-group machines, and a probe of every feature FlatMachine compiles.
import fc from 'fast-check';
import { type AnyStateMachine, assign, type EventObject, setup } from 'xstate';
import { podMachine } from '../../machines/pod.machine.ts';
import { podGroupMachine } from '../../machines/pod-group.machine.ts';
import { groupImplementations, podImplementations } from './core-machines.ts';
import type { FlatImplementations } from './flat-machine.ts';

/** An event of any of the machines (its type, and whatever data it carries). */
export type AnyEvent = EventObject & Record<string, unknown>;

/** A machine with what the property needs to run it three ways. */
export interface MachineSpec {
  name: string;
  machine: AnyStateMachine;
  // biome-ignore lint/suspicious/noExplicitAny: each spec has its own context and events
  impl: FlatImplementations<any, any>;
  input: unknown;
  /** Random events (with random data) appended to the graph's paths. */
  events: fc.Arbitrary<AnyEvent>;
  /** The events xstate/graph explores from the initial state (one of each kind). */
  graphEvents: readonly AnyEvent[];
  /** How many states the graph must reach (every state of the machine). */
  reachableStates: number;
}

const now = fc.integer({ min: 0, max: 60_000 });
const text = fc.constantFrom('', 'no fit', 'conflict');
/** Attempt numbers around a machine's own: a result may name the current attempt or an older one. */
const attempt = fc.integer({ min: 0, max: 3 });

export const podSpec: MachineSpec = {
  name: 'pod',
  machine: podMachine,
  impl: podImplementations,
  input: { uid: 'u', key: 'ns/p', backoff: { initialMs: 1000, maxMs: 10_000 } },
  events: fc.oneof(
    fc.constantFrom(
      { type: 'GATED' },
      { type: 'UNGATED' },
      { type: 'SCHEDULE' },
      { type: 'ALLOWED' },
      { type: 'RETRY' },
      { type: 'DELETED' },
    ),
    fc.record({
      type: fc.constant('RESERVED'),
      node: fc.constantFrom('n1', 'n2'),
      permit: fc.constantFrom('allow', 'wait'),
    }),
    fc.record({ type: fc.constant('UNRESERVED'), reason: text, now }),
    fc.record({
      type: fc.constant('UNSCHEDULABLE'),
      message: text,
      plugins: fc.array(fc.constantFrom('NodeResourcesFit', 'TaintToleration')),
      now,
    }),
    fc.record({ type: fc.constant('PREEMPTING'), message: text, node: fc.constant('n1'), now }),
    fc.record({ type: fc.constant('PREEMPTION_FAILED'), attempt, message: text, now }),
    fc.record({ type: fc.constant('VICTIMS_GONE'), now }),
    fc.record({ type: fc.constant('BIND_SUCCEEDED'), attempt }),
    fc.record({ type: fc.constant('CYCLE_FAILED'), message: text, now }),
    fc.record({ type: fc.constant('BIND_FAILED'), attempt, message: text, now }),
    fc.record({ type: fc.constant('REQUEUE'), now }),
    fc.record({ type: fc.constant('BOUND'), node: fc.constantFrom('n1', 'n2') }),
  ),
  graphEvents: [
    { type: 'GATED' },
    { type: 'UNGATED' },
    { type: 'SCHEDULE' },
    { type: 'RESERVED', node: 'n1', permit: 'allow' },
    { type: 'RESERVED', node: 'n1', permit: 'wait' },
    { type: 'ALLOWED' },
    { type: 'UNRESERVED', reason: 'rejected', now: 5 },
    { type: 'UNSCHEDULABLE', message: 'no fit', plugins: ['NodeResourcesFit'], now: 10 },
    { type: 'PREEMPTING', message: 'no fit', node: 'n1', now: 10 },
    { type: 'PREEMPTION_FAILED', attempt: 1, message: 'gone', now: 20 },
    { type: 'CYCLE_FAILED', message: 'boom', now: 3 },
    { type: 'BIND_SUCCEEDED', attempt: 1 },
    { type: 'BIND_SUCCEEDED', attempt: 2 },
    { type: 'BIND_FAILED', attempt: 1, message: 'conflict', now: 4 },
    { type: 'VICTIMS_GONE', now: 100_000 },
    { type: 'VICTIMS_GONE', now: 0 },
    { type: 'REQUEUE', now: 100_000 },
    { type: 'REQUEUE', now: 0 },
    { type: 'RETRY' },
    { type: 'BOUND', node: 'n1' },
    { type: 'DELETED' },
    { type: 'xstate.after.backoff.pod.backoff' },
  ],
  reachableStates: 11,
};

export const groupSpec: MachineSpec = {
  name: 'pod group',
  machine: podGroupMachine,
  impl: groupImplementations,
  input: { key: 'ns/g' },
  events: fc.oneof(
    fc.constantFrom({ type: 'ALL_BOUND' }),
    fc.record({ type: fc.constantFrom('STEP', 'PLACED'), now }),
    fc.record({
      type: fc.constantFrom('QUORUM_MISSING', 'NOT_PLACED', 'MEMBER_LOST', 'TIMED_OUT'),
      reason: text,
    }),
  ),
  graphEvents: [
    { type: 'QUORUM_MISSING', reason: 'quorum' },
    { type: 'STEP', now: 1 },
    { type: 'PLACED', now: 2 },
    { type: 'NOT_PLACED', reason: 'no fit' },
    { type: 'ALL_BOUND' },
    { type: 'MEMBER_LOST', reason: 'lost' },
    { type: 'TIMED_OUT', reason: 'timeout' },
  ],
  reachableStates: 5,
};

type ProbeArgs = { context: { n: number }; event: EventObject };
const probeImpl = {
  guards: {
    even: ({ context }: ProbeArgs) => context.n % 2 === 0,
    left: ({ event }: ProbeArgs) => (event as { left?: boolean }).left === true,
  },
  updates: { count: ({ context }: ProbeArgs) => ({ n: context.n + 1 }) },
  delays: { wait: ({ context }: ProbeArgs) => 100 + context.n },
  effects: ['enter', 'leave', 'note'],
};

/**
 * Every feature FlatMachine runs, where it is easy to get wrong: a state's transition to
 * itself (no exit, no entry) and with `reenter: true` (both), a root transition to the
 * current state (both), guards in order, targetless transitions, effects with params,
 * fixed and named delays, a delayed transition to its own state, a final state.
 */
const probeMachine = setup({
  types: { context: {} as { n: number } },
  actions: {
    enter: (_, _params: { n: number }) => {},
    leave: () => {},
    note: () => {},
    count: assign(probeImpl.updates.count),
  },
  guards: probeImpl.guards,
  delays: probeImpl.delays,
}).createMachine({
  id: 'probe',
  context: { n: 0 },
  initial: 'a',
  on: { RESET: { target: '.a', actions: 'count' } },
  states: {
    a: {
      entry: { type: 'enter', params: ({ context }) => ({ n: context.n }) },
      exit: 'leave',
      on: {
        TICK: { target: 'a', actions: 'count' },
        BUMP: { target: 'a', reenter: true, actions: 'count' },
        GO: [{ guard: 'left', target: 'b' }, { target: 'c' }],
        WAIT: 'timed',
        NOTE: { actions: 'note' },
        STOP: 'end',
      },
    },
    b: { entry: 'note', on: { BACK: 'a', TICK: { target: 'b' } } },
    c: {
      after: {
        50: [
          { guard: 'even', target: 'a' },
          { target: 'c', actions: 'count' },
        ],
      },
      on: { BACK: 'a' },
    },
    timed: {
      entry: { type: 'enter', params: ({ context }) => ({ n: context.n }) },
      exit: 'leave',
      after: { wait: { target: 'a' } },
      on: {
        TICK: { target: 'timed', actions: 'count' },
        BUMP: { target: 'timed', reenter: true, actions: 'count' },
        NOTE: { actions: ['count', 'note'] },
      },
    },
    end: { type: 'final' },
  },
});

const probeEvents: AnyEvent[] = [
  ...['RESET', 'TICK', 'BUMP', 'WAIT', 'NOTE', 'STOP', 'BACK'].map((type) => ({ type })),
  { type: 'GO', left: true },
  { type: 'GO', left: false },
];

export const probeSpec: MachineSpec = {
  name: 'feature probe',
  machine: probeMachine,
  impl: probeImpl,
  input: undefined,
  events: fc.constantFrom(...probeEvents),
  graphEvents: [
    ...probeEvents,
    { type: 'xstate.after.50.probe.c' },
    { type: 'xstate.after.wait.probe.timed' },
  ],
  reachableStates: 5,
};
