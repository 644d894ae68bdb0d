// The PodGroupInitiallyScheduled condition of a core PodGroup's blocked gang step, in the counts kube-scheduler states.
import { corePodGroupKeyOfGroup } from '../cluster/core-pod-groups.ts';
import type { PodInfo } from '../cluster/types.ts';
import { gangPreemptionText, noteStepOutcome } from './core-group-outcome.ts';
import type { CoreState } from './core-state.ts';
import { asIfNoOtherHold } from './gang-hold-counts.ts';
import type { GangPreemption } from './gang-preemption.ts';
import type { GangMember } from './gang-step.ts';
import { fittedInTightest, placementCount, planStepPreemption } from './gang-step-preemption.ts';
import { type StepOutcome, tryGroupStep } from './gang-topology-step.ts';
import type { GroupSpec } from './gangs.ts';

/** A blocked step of group `key`: the members tried, the group's spec and counts. */
export interface BlockedStep {
  key: string;
  chosen: readonly GangMember[];
  spec: Pick<GroupSpec, 'topologyKeys'>;
  /** Members placed before the step. */
  placed: number;
  minMember: number;
  /** Every member waiting to be placed (the step took the first `chosen.length`). */
  waiting: readonly PodInfo[];
}

/** What the condition says of a blocked step: members that fitted and the PostFilter part. */
interface ConditionView {
  fitted: number;
  preemption: string | undefined;
}

/**
 * Notes the condition of `step`, blocked as `trial` with gang preemption's answer
 * `preemption` (undefined when it did not run). Behind another group's fairness hold, the
 * counts and preemption's part are those of the same step with the hold lifted — kube holds
 * nothing — as long as the group is blocked there too and would not preempt; otherwise (it
 * is the hold that stops the group, or a plan is carried out) the step's own. Returns the
 * condition's message (undefined for a scheduler-plugins group).
 */
export function noteBlockedStep(
  core: CoreState,
  step: BlockedStep,
  trial: Extract<StepOutcome, { kind: 'blocked' }>,
  preemption: GangPreemption | undefined,
): string | undefined {
  const { key, chosen, spec, placed, minMember, waiting } = step;
  const placements = placementCount(core, key, spec.topologyKeys);
  const counts = {
    minCount: minMember,
    scheduled: placed,
    waiting: waiting.length,
    ...(placements === undefined ? {} : { placements }),
  };
  const viewOf = (blocked: Blocked, answer: GangPreemption | undefined): ConditionView => ({
    fitted: fittedOf(core, step, blocked),
    preemption: gangPreemptionText(answerOf(answer), counts),
  });
  const unheld =
    preemption?.kind === 'plan'
      ? undefined
      : asIfNoOtherHold(core, key, () => {
          const again = tryGroupStep(core, key, chosen, spec.topologyKeys, placed, minMember);
          if (again.kind !== 'blocked' || again.error !== undefined) return undefined;
          const answer =
            preemption === undefined
              ? undefined
              : planStepPreemption(core, key, chosen, spec.topologyKeys);
          return answer?.kind === 'plan' ? undefined : viewOf(again, answer);
        });
  const view = unheld ?? viewOf(trial, preemption);
  return noteStepOutcome(core, key, {
    kind: 'unschedulable',
    ...counts,
    fitted: view.fitted,
    members: waiting,
    ...(view.preemption === undefined ? {} : { preemption: view.preemption }),
  });
}

/** A blocked trial's outcome. */
type Blocked = Extract<StepOutcome, { kind: 'blocked' }>;

/**
 * Members of `step` that fitted, as the condition counts them: where a topology group's
 * search tried no domain (none had room enough in sum), kube still names its first
 * placement's status, so one trial in the tightest domain gives the count.
 */
function fittedOf(core: CoreState, step: BlockedStep, blocked: Blocked): number {
  const topologyKey = step.spec.topologyKeys[0];
  if (blocked.untried !== true || topologyKey === undefined) return blocked.fitted;
  if (corePodGroupKeyOfGroup(step.key) === undefined) return blocked.fitted;
  return fittedInTightest(core, step.key, step.chosen, topologyKey);
}

/** Gang preemption's answer as the condition reads it: a plan's victim pods, or the refusal. */
function answerOf(preemption: GangPreemption | undefined) {
  if (preemption === undefined || preemption.kind === 'refused') return preemption;
  const victims = preemption.plan.victims.reduce((sum, u) => sum + u.pods.length, 0);
  return { kind: 'plan' as const, victims };
}

/**
 * kube-scheduler 1.37.2's PodScheduled messages for the members of core PodGroup `step.key`
 * left unplaced by `trial` (seen in workload-gang.e2e): `pod group is unschedulable, <the
 * condition's message>` on those that fitted, the first unplaced member's own `0/N nodes are
 * available: …` on it and on the members after it (kube tries each; berth's step stops at the
 * first, so they are taken to fail alike, as members of a homogeneous group do). Undefined —
 * berth's group message for every member — when `gangs.kubeMemberMessages` is off (older
 * logs), for a topology-constrained group, or without a condition message.
 */
export function kubeMemberMessages(
  core: CoreState,
  step: Pick<BlockedStep, 'spec' | 'waiting'>,
  trial: Extract<StepOutcome, { kind: 'blocked' }>,
  conditionMessage: string | undefined,
): Map<string, string> | undefined {
  if (core.config.gangs?.kubeMemberMessages !== true) return undefined;
  const own = trial.unplacedMessage;
  if (conditionMessage === undefined || own === undefined || step.spec.topologyKeys.length > 0)
    return undefined;
  const fitted = new Set(trial.placements.map((p) => p.info.uid));
  const messages = new Map<string, string>();
  for (const m of step.waiting)
    messages.set(
      m.uid,
      fitted.has(m.uid) ? `pod group is unschedulable, ${conditionMessage}` : own,
    );
  return messages;
}
