// kube's SelectVictimsOnNode: the fewest lower-priority pods to evict from one node so the preemptor fits.
import { type DisruptionBudget, splitByBudgetViolation } from '../../cluster/disruption-budgets.ts';
import { copyNode } from '../../cluster/node-what-if.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../../cluster/types.ts';
import type { CycleState, FilterPlugin, PreFilterPlugin, Status } from '../types.ts';
import { status } from '../types.ts';
import {
  addPodWhatIf,
  cloneCycleState,
  filterWithNominatedPods,
  removePodWhatIf,
} from '../what-if.ts';
import { hasLowerPriorityPod } from './lowest-priority.ts';

/** kube's reason for a node without a pod of lower priority than the preemptor. */
export const noVictimsReason = 'No preemption victims found for incoming pod';

/** What victim selection on one node reads besides the pod and the node. */
export interface VictimSearch {
  snapshot: ClusterSnapshot;
  /** The cycle state after PreFilter; cloned, never changed. */
  state: CycleState;
  filters: readonly FilterPlugin[];
  preFilters: readonly PreFilterPlugin[];
  budgets: readonly DisruptionBudget[];
  /** The cycle's logical time: a pod without a start time counts as started now. */
  now: number;
}

/** The victims found on one node, most important first, and how many violate a budget. */
export interface NodeVictims {
  node: string;
  victims: PodInfo[];
  budgetViolations: number;
}

/** When a pod started, as kube's GetPodStartTime: `status.startTime`, else now. */
export function startTimeOf(pod: PodInfo, now: number): number {
  return pod.startMs ?? now;
}

/**
 * kube's MoreImportantPod as a sort order: higher priority first, then the pod that started
 * earlier. Equal pods keep their order (the sort is stable).
 */
export function moreImportantFirst(now: number): (a: PodInfo, b: PodInfo) => number {
  return (a, b) => b.priority - a.priority || startTimeOf(a, now) - startTimeOf(b, now);
}

/** kube's isPreemptionAllowed: only pods of strictly lower priority may be evicted. */
export function mayPreempt(preemptor: PodInfo, victim: PodInfo): boolean {
  return victim.priority < preemptor.priority;
}

/**
 * The victims on `node` (kube 1.34 SelectVictimsOnNode): every pod of lower priority is
 * taken off a copy of the node; if the preemptor still does not fit, the node's status says
 * why. Otherwise the pods are put back one at a time, most important first and those whose
 * eviction would violate a PodDisruptionBudget before the others, each kept when the
 * preemptor still fits with it (reprieved), else made a victim. The filters count pods
 * nominated to the node as kube's RunFilterPluginsWithNominatedPods does.
 */
export function selectVictimsOnNode(
  pod: PodInfo,
  node: NodeInfo,
  search: VictimSearch,
): NodeVictims | Status {
  const candidates: PodInfo[] = [];
  if (hasLowerPriorityPod(node, pod.priority))
    for (const other of node.pods.values()) if (mayPreempt(pod, other)) candidates.push(other);
  if (candidates.length === 0)
    return status('UnschedulableAndUnresolvable', 'DefaultPreemption', noVictimsReason);
  const { preFilters } = search;
  const copy = copyNode(node);
  const state = cloneCycleState(preFilters, search.state);
  for (const victim of candidates) removePodWhatIf(preFilters, pod, state, victim, copy);
  const bare = fits(pod, copy, state, search);
  if (bare.code !== 'Success') return bare;
  candidates.sort(moreImportantFirst(search.now));
  const { violating, nonViolating } = splitByBudgetViolation(candidates, search.budgets);
  const victims: PodInfo[] = [];
  let budgetViolations = 0;
  for (const victim of violating)
    if (!reprieve(pod, victim, copy, state, search, victims)) budgetViolations++;
  for (const victim of nonViolating) reprieve(pod, victim, copy, state, search, victims);
  if (violating.length > 0 && nonViolating.length > 0) victims.sort(moreImportantFirst(search.now));
  return { node: node.name, victims, budgetViolations };
}

/** The filters on the what-if node, counting the pods nominated to it. */
function fits(pod: PodInfo, copy: NodeInfo, state: CycleState, search: VictimSearch): Status {
  const { filters, preFilters, snapshot } = search;
  return filterWithNominatedPods(filters, preFilters, pod, copy, state, snapshot);
}

/**
 * Puts `victim` back on the what-if node; keeps it there (true) when `pod` still fits,
 * else takes it off again and makes it a victim.
 */
function reprieve(
  pod: PodInfo,
  victim: PodInfo,
  copy: NodeInfo,
  state: CycleState,
  search: VictimSearch,
  victims: PodInfo[],
): boolean {
  const { preFilters } = search;
  addPodWhatIf(preFilters, pod, state, victim, copy);
  if (fits(pod, copy, state, search).code === 'Success') return true;
  removePodWhatIf(preFilters, pod, state, victim, copy);
  victims.push(victim);
  return false;
}
