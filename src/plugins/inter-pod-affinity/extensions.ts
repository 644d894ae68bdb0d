// InterPodAffinity's PreFilterExtensions: the pair counts kept true as pods join or leave a what-if node.
import type { NodeInfo, PodInfo } from '../../cluster/types.ts';
import type { CycleState, PreFilterExtensions } from '../../framework/types.ts';
import { matchesAllTerms, termMatches } from './common.ts';
import { type PreFilterState, preFilterStateKey, skipped } from './filtering.ts';

/** The PreFilter state to update; undefined when PreFilter was skipped (or did not run). */
function stateOf(state: CycleState): PreFilterState | undefined {
  const s = state.get(preFilterStateKey) as PreFilterState | typeof skipped | undefined;
  return s === skipped ? undefined : s;
}

/**
 * kube's updateWithPod: counts `other` (on `node`) `by` times in the three pair counts:
 * its required anti-affinity terms that match the incoming `pod` (with its namespace's
 * labels), the incoming pod's affinity terms when it matches them all (once per term), and
 * each of the incoming pod's anti-affinity terms it matches (their namespaces are merged).
 */
function updateWithPod(
  s: PreFilterState,
  pod: PodInfo,
  other: PodInfo,
  node: NodeInfo,
  by: 1 | -1,
): void {
  for (const t of other.podAffinity.requiredAntiAffinityTerms) {
    if (termMatches(t, pod, s.namespaceLabels))
      s.existingAntiAffinityCounts.adjust(node, t.topologyKey, by);
  }
  if (matchesAllTerms(s.affinityTerms, other)) {
    for (const t of s.affinityTerms) s.affinityCounts.adjust(node, t.topologyKey, by);
  }
  for (const t of s.antiAffinityTerms) {
    if (termMatches(t, other)) s.antiAffinityCounts.adjust(node, t.topologyKey, by);
  }
}

/**
 * kube's InterPodAffinity AddPod/RemovePod and preFilterState.Clone. When PreFilter was
 * skipped nothing is updated, as in kube (whose framework calls no extension of a skipped
 * plugin): a pod added with anti-affinity against the incoming pod is then not seen.
 */
export const interPodAffinityExtensions: PreFilterExtensions = {
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
      affinityCounts: s.affinityCounts.clone(),
      antiAffinityCounts: s.antiAffinityCounts.clone(),
      existingAntiAffinityCounts: s.existingAntiAffinityCounts.clone(),
    } satisfies PreFilterState);
  },
};
