// A core PodGroup's gang step outcome as kube-scheduler 1.37.2 states it: the PodGroupInitiallyScheduled condition.
import { corePodGroupKeyOfGroup } from '../cluster/core-pod-groups.ts';
import type { ClusterState, PodInfo } from '../cluster/types.ts';
import type { CoreState } from './core-state.ts';
import { noGroupVictimsMessage, preemptionRefusalShown } from './gang-preemption.ts';
import type { GroupCondition } from './ports.ts';

/** kube's DRA plugin, a PodGroupPostFilter before DefaultPreemption. */
const claimsPluginName = 'DynamicResources';

/** How a gang step of a group ended, as the condition reads it. */
export type StepOutcome =
  | { kind: 'placed' }
  | ({ kind: 'unschedulable' } & GangShortfall)
  | { kind: 'error'; message: string };

/** A gang step that did not place its group: the counts kube's message is made of. */
export interface GangShortfall {
  minCount: number;
  /** Members placed before the step. */
  scheduled: number;
  /** Members the step could try. */
  waiting: number;
  /** Members that fitted before one did not. */
  fitted: number;
  /** What kube's PodGroupPostFilter (DefaultPreemption) would say; see `preemptionText`. */
  preemption: string;
  /** For a topology-constrained group, the placements kube's placement algorithm tried. */
  placements?: number;
}

/**
 * GangScheduling's reason `gang` as kube's placement algorithm (TopologyAwareWorkloadScheduling)
 * reports it for a group with a topology key, whose `placements` domains all failed: its
 * status's error first, then the first placement's status (Go map order; berth's is the
 * closest domain's), as seen against kube-scheduler 1.37.2 in workload-gang-fields.e2e.
 */
export function placementsStatus(gang: string, placements: number | undefined): string {
  if (placements === undefined) return gang;
  // A placement whose loop ended waiting is reported by its error, not its reason.
  const first = gang.includes('is not yet satisfied') ? 'pod group is unschedulable' : gang;
  return `pod group is unschedulable, 0/${placements} placements are available, first placement status: ${first}`;
}

/**
 * The message kube's GangScheduling PlacementFeasible gives a group that does not fit. kube
 * tries every waiting member in turn and stops once `scheduled + remaining < minCount`;
 * berth's step stops at the first member that does not fit, so this assumes the members
 * after it do not fit either (true of a homogeneous group, which is what kube's placement
 * is meant for).
 */
export function gangUnschedulableMessage(
  minCount: number,
  scheduled: number,
  waiting: number,
  fitted: number,
): string {
  const placed = scheduled + fitted;
  let remaining = waiting - fitted;
  // Each member that does not fit lowers `remaining` until the count cannot be reached.
  while (remaining > 0 && placed + remaining >= minCount) remaining--;
  if (placed + remaining < minCount)
    return `minCount (${minCount}) cannot be satisfied: ${placed} scheduled, ${remaining} remaining`;
  return `minCount (${minCount}) is not yet satisfied: ${placed} scheduled, ${remaining} remaining`;
}

/** The condition kube-scheduler writes after a group's step ends with `outcome`. */
export function initiallyScheduledCondition(
  outcome: StepOutcome,
  observedGeneration: number,
): GroupCondition {
  if (outcome.kind === 'placed')
    return { status: 'True', reason: 'Scheduled', message: '', observedGeneration };
  if (outcome.kind === 'error')
    return {
      status: 'False',
      reason: 'SchedulerError',
      message: outcome.message,
      observedGeneration,
    };
  const { minCount, scheduled, waiting, fitted, preemption } = outcome;
  // kube joins PlacementFeasible's reason and the PostFilter's (seen against kube-scheduler
  // 1.37.2 in workload-gang.e2e: the condition does not carry "pod group is unschedulable";
  // a topology-constrained group's does, its placement algorithm's status, `placementsStatus`).
  const gang = placementsStatus(
    gangUnschedulableMessage(minCount, scheduled, waiting, fitted),
    outcome.placements,
  );
  return {
    status: 'False',
    reason: 'Unschedulable',
    message: `${gang}, ${preemption}`,
    observedGeneration,
  };
}

/**
 * What kube's DefaultPreemption says, as a PodGroupPostFilter, about group members
 * `members` that could not be placed: not eligible with preemptionPolicy Never; no victims
 * when no pod on a node has a lower priority than theirs. berth does not preempt for a
 * group; when kube could have found victims it says so in its own words.
 */
export function preemptionText(
  cluster: ClusterState,
  members: readonly Pick<PodInfo, 'priority' | 'preemptionPolicy'>[],
): string {
  const first = members[0];
  if (first === undefined)
    return 'pod group preemption: No preemption victims found for incoming preemptor';
  if (first.preemptionPolicy === 'Never')
    return 'pod group preemption: not eligible due to preemptionPolicy=Never.';
  for (const node of cluster.nodes.values())
    for (const pod of node.pods.values())
      if (pod.priority < first.priority)
        return 'pod group preemption: berth does not preempt for a pod group (lower-priority pods run)';
  return 'pod group preemption: No preemption victims found for incoming preemptor';
}

/**
 * The condition's PostFilter part from what gang preemption answered for the step, in kube
 * 1.37.2's words: "found a placement for podgroup, preempting N victims" for a plan (N
 * pods); "No preemption victims found for incoming preemptor" when there were none; the
 * not-eligible text for preemptionPolicy Never; and, for a group that does not fit even with
 * every victim gone, GangScheduling's reason for that trial (`counts`: the step's minCount,
 * members placed before it and members it could try). Undefined when it did not run (off,
 * not in the profile, or a topology-constrained group): `preemptionText` then.
 */
export function gangPreemptionText(
  answer: GangPreemptionAnswer | undefined,
  counts: Pick<GangShortfall, 'minCount' | 'scheduled' | 'waiting' | 'placements'>,
): string | undefined {
  if (answer === undefined) return undefined;
  if (answer.kind === 'plan')
    return `pod group preemption: found a placement for podgroup, preempting ${answer.victims} victims`;
  if (answer.message === noGroupVictimsMessage)
    return 'pod group preemption: No preemption victims found for incoming preemptor';
  if (!preemptionRefusalShown(answer.message)) return undefined;
  if (answer.fittedWithout === undefined) return `pod group preemption: ${answer.message}`;
  const { minCount, scheduled, waiting } = counts;
  const gang = gangUnschedulableMessage(minCount, scheduled, waiting, answer.fittedWithout);
  return `pod group preemption: ${placementsStatus(gang, counts.placements)}`;
}

/**
 * Gang preemption's answer for a step, as the condition needs it: a plan's victim pods, or
 * the refusal with, when even every victim gone was not enough, how many members then fitted.
 */
export type GangPreemptionAnswer =
  | { kind: 'plan'; victims: number }
  | { kind: 'refused'; message: string; fittedWithout?: number };

/**
 * Notes the outcome of group `key`'s step for its status report when the group is a core
 * PodGroup, and returns the condition's message (kube's members that fitted carry it); a
 * scheduler-plugins group's status is its phase, reported as before (undefined).
 */
export function noteStepOutcome(
  core: CoreState,
  key: string,
  step: StepResult,
): string | undefined {
  const objectKey = corePodGroupKeyOfGroup(key);
  if (objectKey === undefined) return undefined;
  const pg = core.cluster.objects.CorePodGroup.get(objectKey);
  if (pg === undefined) return undefined;
  const outcome: StepOutcome =
    step.kind === 'unschedulable'
      ? {
          ...step,
          preemption: withClaimsPostFilter(
            step.preemption ?? preemptionText(core.cluster, step.members),
            claimsPostFilterRuns(core, key, step.members),
          ),
        }
      : step;
  const condition = initiallyScheduledCondition(outcome, pg.generation);
  // kube never sets a True condition back to False, including one it read from the object.
  if (step.kind === 'placed' || !pg.initiallyScheduled) core.gangs.setCondition(key, condition);
  return condition.message;
}

/** What kube's DynamicResources PodGroupPostFilter says when it runs and finds nothing to free. */
export const claimsPostFilterText = 'deallocation and deletion of ResourceClaims completed';

/**
 * The PostFilter part of the condition with DynamicResources' reason before DefaultPreemption's
 * when `claimsRan` (see `claimsPostFilterRuns`). kube runs both as PodGroupPostFilters and
 * joins their reasons only when preemption's status is Unschedulable: a plan (Success) or
 * "No preemption victims found" (UnschedulableAndUnresolvable) stands alone. berth's own
 * words (a group gang preemption did not run for) are left as they are.
 */
export function withClaimsPostFilter(preemption: string, claimsRan: boolean): string {
  if (!claimsRan) return preemption;
  const alone = [
    'pod group preemption: found a placement for podgroup',
    'pod group preemption: No preemption victims found',
    'pod group preemption: berth does not preempt',
  ];
  if (alone.some((start) => preemption.startsWith(start))) return preemption;
  return `${claimsPostFilterText}, ${preemption}`;
}

/**
 * Whether kube 1.37.2's DynamicResources PodGroupPostFilter gives a reason for group `key`:
 * DynamicResources is among the PostFilters of the members' profile and the group has no
 * topology constraint (kube's plugin skips topology-aware groups, and composite groups).
 */
export function claimsPostFilterRuns(
  core: CoreState,
  key: string,
  members: readonly Pick<PodInfo, 'schedulerName'>[],
): boolean {
  const first = members[0];
  if (first === undefined) return false;
  const spec = core.groupSpec(key);
  if ('missing' in spec || spec.topologyKeys.length > 0) return false;
  const profile = core.profiles.get(first.schedulerName)?.profile;
  return (profile?.postFilter ?? []).some((p) => p.name === claimsPluginName);
}

/** A step's outcome as the gang step knows it: the members it tried instead of the PostFilter's text. */
export type StepResult =
  | Exclude<StepOutcome, { kind: 'unschedulable' }>
  | ({
      kind: 'unschedulable';
      members: readonly PodInfo[];
      /** Gang preemption's part (`gangPreemptionText`), when it ran. */
      preemption?: string;
    } & Omit<GangShortfall, 'preemption'>);
