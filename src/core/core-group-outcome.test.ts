// Tests the PodGroupInitiallyScheduled condition berth writes after a core PodGroup's gang step, against kube's GangScheduling texts.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import { neverPolicyMessage } from '../framework/preemption/evaluate.ts';
import {
  gangPreemptionText,
  gangUnschedulableMessage,
  initiallyScheduledCondition,
  preemptionText,
  withClaimsPostFilter,
} from './core-group-outcome.ts';
import { noGroupVictimsMessage } from './gang-preemption.ts';

describe('gangUnschedulableMessage (kube GangScheduling PlacementFeasible, 1.37.2)', () => {
  it.each([
    {
      name: 'A gang of 4 of which 3 fit stops once the last member fails',
      args: [4, 0, 4, 3],
      want: 'minCount (4) cannot be satisfied: 3 scheduled, 0 remaining',
    },
    {
      name: 'A gang of 3 of which 1 fits stops after the second member fails, one left untried',
      args: [3, 0, 3, 1],
      want: 'minCount (3) cannot be satisfied: 1 scheduled, 1 remaining',
    },
    {
      name: 'A gang of which none fits stops at the first member',
      args: [3, 0, 3, 0],
      want: 'minCount (3) cannot be satisfied: 0 scheduled, 2 remaining',
    },
    {
      name: 'Extra members are tried until the count cannot be reached',
      args: [2, 0, 5, 1],
      want: 'minCount (2) cannot be satisfied: 1 scheduled, 0 remaining',
    },
    {
      name: 'Members placed before the step count as scheduled',
      args: [4, 2, 2, 0],
      want: 'minCount (4) cannot be satisfied: 2 scheduled, 1 remaining',
    },
  ])('$name', ({ args, want }) => {
    const [minCount, scheduled, waiting, fitted] = args as [number, number, number, number];
    expect(gangUnschedulableMessage(minCount, scheduled, waiting, fitted)).toBe(want);
  });

  it('agrees with a step-by-step run of kube’s loop when every member after the first failure fails', () => {
    for (let minCount = 1; minCount <= 6; minCount++)
      for (let scheduled = 0; scheduled < minCount; scheduled++)
        for (let waiting = minCount - scheduled; waiting <= 8; waiting++)
          for (let fitted = 0; scheduled + fitted < minCount && fitted < waiting; fitted++)
            expect(gangUnschedulableMessage(minCount, scheduled, waiting, fitted)).toBe(
              kubeLoop(minCount, scheduled, waiting, fitted),
            );
  });
});

/** kube's pod group loop over `waiting` members, the first `fitted` fitting and the rest not. */
function kubeLoop(minCount: number, scheduledBefore: number, waiting: number, fitted: number) {
  let scheduled = scheduledBefore;
  let remaining = waiting;
  let message = '';
  for (let i = 0; i < waiting; i++) {
    remaining--;
    if (i < fitted) scheduled++;
    if (remaining + scheduled < minCount)
      return `minCount (${minCount}) cannot be satisfied: ${scheduled} scheduled, ${remaining} remaining`;
    if (scheduled < minCount)
      message = `minCount (${minCount}) is not yet satisfied: ${scheduled} scheduled, ${remaining} remaining`;
  }
  return message;
}

describe('initiallyScheduledCondition', () => {
  it('is True/Scheduled with no message when the group is placed', () => {
    expect(initiallyScheduledCondition({ kind: 'placed' }, 4)).toEqual({
      status: 'True',
      reason: 'Scheduled',
      message: '',
      observedGeneration: 4,
    });
  });

  it('is False/Unschedulable with kube’s reasons joined: PlacementFeasible’s, then the PostFilter’s', () => {
    const outcome = {
      kind: 'unschedulable' as const,
      minCount: 3,
      scheduled: 0,
      waiting: 3,
      fitted: 1,
      preemption: 'pod group preemption: No preemption victims found for incoming preemptor',
    };
    expect(initiallyScheduledCondition(outcome, 2)).toEqual({
      status: 'False',
      reason: 'Unschedulable',
      message:
        'minCount (3) cannot be satisfied: 1 scheduled, 1 remaining, pod group preemption: No preemption victims found for incoming preemptor',
      observedGeneration: 2,
    });
  });

  it('is False/SchedulerError with the error when a plugin failed', () => {
    expect(initiallyScheduledCondition({ kind: 'error', message: 'boom' }, 1)).toMatchObject({
      status: 'False',
      reason: 'SchedulerError',
      message: 'boom',
    });
  });
});

describe('preemptionText (kube DefaultPreemption as a PodGroupPostFilter)', () => {
  /** A cluster with one node running a pod of priority `priority`. */
  function running(priority: number) {
    const state = initialState();
    const pod = podObject('p', { nodeName: 'n1', priority });
    pod.metadata.uid = 'p-1';
    evolve(state, { seq: 1, time: 0, event: { type: 'NodeUpserted', node: nodeObject('n1') } });
    evolve(state, { seq: 2, time: 0, event: { type: 'PodUpserted', pod } });
    return state;
  }
  const member = (priority: number, preemptionPolicy = 'PreemptLowerPriority') => ({
    priority,
    preemptionPolicy,
  });

  it.each([
    {
      name: 'No pod runs at a lower priority: no victims',
      running: 5,
      members: [member(5)],
      want: 'pod group preemption: No preemption victims found for incoming preemptor',
    },
    {
      name: 'A member with preemptionPolicy Never is not eligible',
      running: 0,
      members: [member(5, 'Never')],
      want: 'pod group preemption: not eligible due to preemptionPolicy=Never.',
    },
    {
      name: 'A lower-priority pod runs: kube would look for victims, berth says it does not',
      running: 0,
      members: [member(5)],
      want: 'pod group preemption: berth does not preempt for a pod group (lower-priority pods run)',
    },
  ])('$name', ({ running: priority, members, want }) => {
    expect(preemptionText(running(priority), members)).toBe(want);
  });
});

describe('gangPreemptionText (the condition once gang preemption ran)', () => {
  it.each([
    {
      name: 'a plan: kube’s text, with the victim pods',
      answer: { kind: 'plan' as const, victims: 3 },
      want: 'pod group preemption: found a placement for podgroup, preempting 3 victims',
    },
    {
      name: 'no lower-priority unit: kube’s text',
      answer: { kind: 'refused' as const, message: noGroupVictimsMessage },
      want: 'pod group preemption: No preemption victims found for incoming preemptor',
    },
    {
      name: 'preemptionPolicy Never: kube’s text',
      answer: { kind: 'refused' as const, message: neverPolicyMessage },
      want: 'pod group preemption: not eligible due to preemptionPolicy=Never.',
    },
    {
      name: 'no room even with every victim gone: GangScheduling’s reason for that trial, as kube',
      answer: {
        kind: 'refused' as const,
        message: 'the group does not fit even with all 2 lower-priority victim(s) gone',
        fittedWithout: 1,
      },
      want: 'pod group preemption: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining',
    },
    {
      name: 'off (an older log): left to preemptionText',
      answer: { kind: 'refused' as const, message: 'gang preemption is off' },
      want: undefined,
    },
    {
      name: 'not run (a topology group): left to preemptionText',
      answer: undefined,
      want: undefined,
    },
  ])('$name', ({ answer, want }) => {
    expect(gangPreemptionText(answer, { minCount: 2, scheduled: 0, waiting: 2 })).toBe(want);
  });
});

describe('withClaimsPostFilter (kube DynamicResources as a PodGroupPostFilter, before DefaultPreemption)', () => {
  const claims = 'deallocation and deletion of ResourceClaims completed, ';
  it.each([
    {
      name: 'no room even with every victim gone (Unschedulable): both reasons, DRA first',
      preemption:
        'pod group preemption: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining',
      prefixed: true,
    },
    {
      name: 'preemptionPolicy Never (Unschedulable): both reasons',
      preemption: 'pod group preemption: not eligible due to preemptionPolicy=Never.',
      prefixed: true,
    },
    {
      name: 'a plan (Success) stands alone',
      preemption: 'pod group preemption: found a placement for podgroup, preempting 2 victims',
      prefixed: false,
    },
    {
      name: 'no victims (UnschedulableAndUnresolvable) stands alone',
      preemption: 'pod group preemption: No preemption victims found for incoming preemptor',
      prefixed: false,
    },
    {
      name: "berth's own words, for a group gang preemption did not run for, are left alone",
      preemption:
        'pod group preemption: berth does not preempt for a pod group (lower-priority pods run)',
      prefixed: false,
    },
  ])('$name', ({ preemption, prefixed }) => {
    expect(withClaimsPostFilter(preemption, true)).toBe(
      prefixed ? `${claims}${preemption}` : preemption,
    );
    expect(withClaimsPostFilter(preemption, false)).toBe(preemption);
  });
});
