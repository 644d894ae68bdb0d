// PodTopologySpread's PreFilterExtensions: domain counts and critical paths kept true as pods join or leave a what-if node.
import type { SpreadConstraint } from '../../cluster/spread-constraints.ts';
import type { NodeInfo, PodInfo } from '../../cluster/types.ts';
import type { CycleState, PreFilterExtensions } from '../../framework/types.ts';
import { hasAllTopologyKeys, isCountedPod, matchesInclusionPolicies } from './common.ts';
import { type CriticalPaths, cloneCriticalPaths, updateCriticalPaths } from './critical-paths.ts';
import { globalMinimum, matchNum, type PreFilterState, preFilterStateKey } from './filtering.ts';

/** The changes map of constraint `i`, made on the first change. */
function changesOf(s: PreFilterState, i: number): Map<string, number> {
  s.changes ??= s.constraints.map(() => new Map<string, number>());
  return s.changes[i] as Map<string, number>;
}

/**
 * kube's updateWithPod: `other` (on `node`) counts `by` in the node's domain of each
 * constraint when it is in the incoming `pod`'s namespace, the node has every constraint's
 * topology key and passes the constraint's inclusion policies for `pod`, and the constraint
 * counts the pod (its selector matches; see below); then the domain's critical paths and
 * global minimum follow. The node's domain is one PreFilter counted (same node, same
 * checks), so the number of domains stays. Unlike kube, a terminating pod and a constraint
 * with an empty selector count nothing here, as in PreFilter (kube's AddPod/RemovePod would
 * count them and disagree with its own PreFilter).
 */
function updateWithPod(
  s: PreFilterState,
  pod: PodInfo,
  other: PodInfo,
  node: NodeInfo,
  by: 1 | -1,
): void {
  if (other.namespace !== pod.namespace || !hasAllTopologyKeys(node.labels, s.constraints)) return;
  for (let i = 0; i < s.constraints.length; i++) {
    const c = s.constraints[i] as SpreadConstraint;
    if (!isCountedPod(c, other, pod.namespace) || !matchesInclusionPolicies(c, pod, node)) continue;
    const value = node.labels[c.topologyKey] as string;
    const changes = changesOf(s, i);
    changes.set(value, (changes.get(value) ?? 0) + by);
    const paths = s.criticalPaths[i] as CriticalPaths;
    updateCriticalPaths(paths, value, matchNum(s, i, value));
    s.minMatch[i] = globalMinimum(c, (s.counts[i] as Map<string, number>).size, paths);
  }
}

/** The PreFilter state; undefined when PreFilter was skipped (no DoNotSchedule constraint). */
function stateOf(state: CycleState): PreFilterState | undefined {
  return state.get(preFilterStateKey) as PreFilterState | undefined;
}

/**
 * kube's PodTopologySpread AddPod/RemovePod and preFilterState.Clone, for the DoNotSchedule
 * constraints (the Score's state is not touched, as in kube). A clone shares PreFilter's
 * counts and copies only what the updates write: the changes, paths and minimums.
 */
export const podTopologySpreadExtensions: PreFilterExtensions = {
  tracks: (state) => stateOf(state) !== undefined,
  addPod(pod: PodInfo, state: CycleState, added: PodInfo, node: NodeInfo): void {
    const s = stateOf(state);
    if (s !== undefined) updateWithPod(s, pod, added, node, 1);
  },
  removePod(pod: PodInfo, state: CycleState, removed: PodInfo, node: NodeInfo): void {
    const s = stateOf(state);
    if (s !== undefined) updateWithPod(s, pod, removed, node, -1);
  },
  cloneState(from: CycleState, to: CycleState): void {
    const s = stateOf(from);
    if (s === undefined) return;
    to.set(preFilterStateKey, {
      ...s,
      minMatch: [...s.minMatch],
      criticalPaths: s.criticalPaths.map(cloneCriticalPaths),
      changes: s.changes?.map((m) => new Map(m)),
    } satisfies PreFilterState);
  },
};
