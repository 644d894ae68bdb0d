// DynamicResources: PreFilter/Filter/Reserve for claims, kube's first PostFilter (deallocates idle claims) and, since 1.35, a Score.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type {
  CycleState,
  FilterPlugin,
  PostFilterPlugin,
  PreFilterPlugin,
  ReservePlugin,
  ScorePlugin,
} from '../framework/types.ts';
import { status } from '../framework/types.ts';
import { type KubeRelease, latestKubeRelease, releaseAtLeast } from '../model/kube-release.ts';
import {
  type ClaimsOptions,
  claimsFilter,
  claimsFilterSkip,
  claimsPostFilter,
  claimsPreFilter,
  claimsReserve,
  claimsScore,
  preFilterRanKey,
} from './dra/claims-cycle.ts';
import { type DraArgs, readDraArgs } from './dra/dra-args.ts';
import { defaultNormalizeScore } from './normalize-score.ts';

export const name = 'DynamicResources';

/**
 * kube feature gates berth emulates for DynamicResources, on for fresh runs and off when
 * replaying a log recorded before berth had them (format 6 turns both on).
 */
export interface DraFeatures {
  /** DRADeviceBindingConditions: Filter's readiness checks, PreBind's wait. */
  bindingConditions?: boolean;
  /** DRASchedulerFilterTimeout: the allocator's per-node limit. */
  filterTimeout?: boolean;
  /** DRAExtendedResource: extended resources a DeviceClass backs, allocated by DRA. */
  extendedResources?: boolean;
}

/**
 * Allocator search steps per ms of kube's filterTimeout: berth's search ran 92 steps/ms in
 * its worst measured case on this project's 2-core machine (a distinctAttribute claim no
 * node can meet: 499,408 steps in 5.4 s), so 10 s buys 1,000,000 steps.
 */
export const filterStepsPerMs = 100;

/** The search budget standing in for a filterTimeout of `ms`. */
export function filterTimeoutSteps(ms: number): number {
  return Math.max(1, Math.round(ms * filterStepsPerMs));
}

/** kube's PostFilter message for a pod without resource claims. */
export const noClaimsReason = 'no new claims to deallocate';
/**
 * kube's PostFilter error when its PreFilter never ran (an earlier PreFilter stopped the
 * loop): reading its cycle state fails, and that error ends the PostFilters.
 */
export const noStateReason = 'not found';

/** The release whose default profile gives DynamicResources a Score (weight 2). */
export const scoreSince: KubeRelease = '1.35';

/** The release whose default gates turn DRAExtendedResource on (beta 1.36, GA 1.37). */
export const extendedResourcesSince: KubeRelease = '1.36';

/** The release from which kube's PostFilter answers a claim-less pod with no message. */
export const silentSince: KubeRelease = '1.37';

/** kube's PostFilter message, before 1.37, when none of the pod's claims could be deallocated. */
export const stillNotSchedulable = 'still not schedulable';

/**
 * The PostFilter: for a pod with claims, kube's deallocation of one unavailable claim
 * (`claimsPostFilter`, answering `none` when no claim qualifies); for a pod without,
 * `reasons` (what kube says for such a pod at the release).
 */
function postFilterSaying(
  reasons: readonly string[],
  none: readonly string[],
): PostFilterPlugin['postFilter'] {
  return (pod, args) =>
    args.preFiltersCompleted || args.state?.has(preFilterRanKey) === true
      ? (claimsPostFilter(pod, args.state, none) ?? status('Unschedulable', name, ...reasons))
      : status('Error', name, noStateReason);
}

/**
 * kube's Score: the prioritized-list score of each node's allocation (`claimsScore`), 0 on
 * every node for a pod without claims (kube's Score returns 0 then, and DefaultNormalizeScore
 * keeps all-0 scores at 0), so for those it never changes a decision.
 */
const score: Required<Pick<ScorePlugin, 'score' | 'scoreNodes' | 'normalize'>> = {
  score: claimsScore,
  scoreNodes(pod: PodInfo, nodes: readonly NodeInfo[], state: CycleState, scores: number[]) {
    for (let i = 0; i < nodes.length; i++)
      scores[i] = claimsScore(pod, nodes[i] as NodeInfo, state);
  },
  normalize: (_pod: PodInfo, scores: number[]) => defaultNormalizeScore(scores, false),
};

/**
 * kube runs DynamicResources' PostFilter before DefaultPreemption; for a pod without
 * resource claims it answers Unschedulable "no new claims to deallocate", which is why
 * that text opens the PostFilter part of every unschedulable pod's message. For a pod with
 * claims it deallocates the first claim some node found unavailable that no other pod
 * holds ("deallocation of ResourceClaim completed"; none: "still not schedulable") —
 * unless a PreFilter stopped the PreFilter loop before kube's DynamicResources PreFilter
 * (the last one) wrote its state (its own rejection comes after the write): then kube's answer is the Error "not found", which ends
 * the PostFilters (no preemption) and is what the message says after the filters' sentence.
 * From 1.35 it also scores (see `score`); from 1.37 its Unschedulable answers without a
 * deallocation carry no message, so the PostFilter part starts at "preemption:". Its args are
 * kube's DynamicResourcesArgs (`filterTimeout`, `bindingTimeout`; see `DraArgs`); with
 * `features.bindingConditions` (DRADeviceBindingConditions) its Filter refuses allocated
 * claims whose binding failed or timed out, and the core's PreBind waits for them
 * (`bindingTimeoutMs`); with `features.filterTimeout` (DRASchedulerFilterTimeout) each
 * node's allocator search stops after `filterTimeoutSteps(filterTimeoutMs)` steps.
 * With `features.extendedResources` (a log recorded since berth backs extended resources by
 * DRA) and from 1.36 (DRAExtendedResource on by default), a pod's extended resources that a
 * DeviceClass backs are allocated from devices on nodes that do not list them (see
 * extended-claim.ts).
 */
export function dynamicResources(
  args?: unknown,
  release: KubeRelease = latestKubeRelease,
  features: DraFeatures = {},
): PostFilterPlugin &
  PreFilterPlugin &
  FilterPlugin &
  ReservePlugin &
  Partial<typeof score> & { readonly args: DraArgs; readonly bindingConditions: boolean } {
  const silent = releaseAtLeast(release, silentSince);
  const reasons = silent ? [] : [noClaimsReason];
  const none = silent ? [] : [stillNotSchedulable];
  const draArgs = readDraArgs(args);
  const bindingConditions = features.bindingConditions === true;
  const opts: ClaimsOptions = {
    ...(bindingConditions ? { binding: { timeoutMs: draArgs.bindingTimeoutMs } } : {}),
    ...(features.filterTimeout === true && draArgs.filterTimeoutMs > 0
      ? { maxSearchSteps: filterTimeoutSteps(draArgs.filterTimeoutMs) }
      : {}),
    ...(features.extendedResources === true && releaseAtLeast(release, extendedResourcesSince)
      ? { extendedResources: true }
      : {}),
  };
  const plugin = {
    name,
    args: draArgs,
    bindingConditions,
    preFilter: (pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot) =>
      claimsPreFilter(pod, state, snapshot, opts),
    filter: claimsFilter,
    preFilterSkip: claimsFilterSkip,
    reserve: claimsReserve,
    postFilter: postFilterSaying(reasons, none),
  } satisfies PostFilterPlugin &
    PreFilterPlugin &
    FilterPlugin &
    ReservePlugin & { args: DraArgs; bindingConditions: boolean };
  return releaseAtLeast(release, scoreSince) ? { ...plugin, ...score } : plugin;
}
