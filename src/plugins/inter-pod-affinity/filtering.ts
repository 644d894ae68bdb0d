// InterPodAffinity PreFilter/Filter: required affinity and anti-affinity, both ways, per topology pair.
import type { AffinityTerm } from '../../cluster/pod-affinity.ts';
import {
  currentPodAffinityIndex,
  type PodAffinityIndexView,
} from '../../cluster/pod-affinity-index.ts';
import { matchingPairs } from '../../cluster/pod-affinity-matches.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../../cluster/types.ts';
import { type CycleState, type Status, status, success } from '../../framework/types.ts';
import {
  matchesAllTerms,
  mergeTermNamespaces,
  name,
  namespaceLabels,
  termMatches,
} from './common.ts';
import { PairCounts } from './pair-counts.ts';
import { walkExistingAntiAffinityCounts, walkIncomingCounts } from './walk.ts';

/** kube's ErrReasonAffinityRulesNotMatch (UnschedulableAndUnresolvable). */
export const ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
/** kube's ErrReasonAntiAffinityRulesNotMatch (Unschedulable: preemption may remove the pods). */
export const ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules";
/** kube's ErrReasonExistingAntiAffinityRulesNotMatch (Unschedulable). */
export const ErrReasonExistingAntiAffinityRulesNotMatch =
  "node(s) didn't satisfy existing pods anti-affinity rules";

const affinityRejected: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonAffinityRulesNotMatch),
);
const antiAffinityRejected: Status = Object.freeze(
  status('Unschedulable', name, ErrReasonAntiAffinityRulesNotMatch),
);
const existingRejected: Status = Object.freeze(
  status('Unschedulable', name, ErrReasonExistingAntiAffinityRulesNotMatch),
);

/** The cycle-state key of the PreFilter data (kube's "PreFilter" + plugin name). */
export const preFilterStateKey = `PreFilter${name}`;

/** What PreFilter leaves for Filter (kube's preFilterState); valid for one cycle. */
export interface PreFilterState {
  /** The incoming pod's required affinity terms, namespaceSelectors merged. */
  readonly affinityTerms: readonly AffinityTerm[];
  /** The incoming pod's required anti-affinity terms, namespaceSelectors merged. */
  readonly antiAffinityTerms: readonly AffinityTerm[];
  /** Pairs → existing pods matching all the incoming pod's affinity terms (once per term). */
  readonly affinityCounts: PairCounts;
  /** Pairs → existing pods matching its anti-affinity terms (once per term). */
  readonly antiAffinityCounts: PairCounts;
  /** Pairs → existing pods' required anti-affinity terms the incoming pod matches. */
  readonly existingAntiAffinityCounts: PairCounts;
  /** kube's podMatchesAllAffinityTerms of the incoming pod against its own terms. */
  readonly matchesOwnAffinity: boolean;
  /** The labels of the incoming pod's namespace (for other pods' terms, in AddPod/RemovePod). */
  readonly namespaceLabels: Record<string, string>;
}

/** PreFilter's Skip: neither the pod nor any existing pod has required terms that apply. */
export const skipped = 'skipped';

/**
 * kube's getExistingAntiAffinityCounts from the index: each group of equal required
 * anti-affinity terms of pods on live nodes is matched against the pod once, and adds its
 * pair counts (one per member) when it matches. Walks when the snapshot has no current index.
 */
export function existingAntiAffinityCounts(pod: PodInfo, snapshot: ClusterSnapshot): PairCounts {
  const index = currentPodAffinityIndex(snapshot);
  if (index === undefined) return PairCounts.of(walkExistingAntiAffinityCounts(pod, snapshot));
  const sums = PairCounts.empty();
  const nsLabels = namespaceLabels(snapshot, pod.namespace);
  for (const g of index.groups.requiredAntiAffinityTerms.values()) {
    if (g.pairs.size > 0 && termMatches(g.term, pod, nsLabels))
      sums.add(g.term.topologyKey, g.pairs, 1);
  }
  return sums;
}

/** `walkIncomingCounts` from the index's memo of matching pods per (terms, topology key). */
function indexedIncomingCounts(
  affinityTerms: readonly AffinityTerm[],
  antiAffinityTerms: readonly AffinityTerm[],
  snapshot: ClusterSnapshot,
  index: PodAffinityIndexView,
): { affinity: PairCounts; antiAffinity: PairCounts } {
  const affinity = PairCounts.empty();
  const antiAffinity = PairCounts.empty();
  if (affinityTerms.length > 0) {
    // A pod matching all the terms counts once per term, on that term's pair.
    const perKey = new Map<string, number>();
    for (const t of affinityTerms) perKey.set(t.topologyKey, (perKey.get(t.topologyKey) ?? 0) + 1);
    for (const [key, times] of perKey)
      affinity.add(key, matchingPairs(snapshot, index, affinityTerms, key), times);
  }
  for (const t of antiAffinityTerms)
    antiAffinity.add(t.topologyKey, matchingPairs(snapshot, index, [t], t.topologyKey), 1);
  return { affinity, antiAffinity };
}

/** The incoming counts from the index when the snapshot has a current one, else by walking. */
function incomingCounts(
  affinityTerms: readonly AffinityTerm[],
  antiAffinityTerms: readonly AffinityTerm[],
  snapshot: ClusterSnapshot,
): { affinity: PairCounts; antiAffinity: PairCounts } {
  const index = currentPodAffinityIndex(snapshot);
  if (index !== undefined)
    return indexedIncomingCounts(affinityTerms, antiAffinityTerms, snapshot, index);
  const walked = walkIncomingCounts(affinityTerms, antiAffinityTerms, snapshot);
  return {
    affinity: PairCounts.of(walked.affinity),
    antiAffinity: PairCounts.of(walked.antiAffinity),
  };
}

/**
 * kube's PreFilter: the three pair counts, or `skipped` when no existing pod's required
 * anti-affinity matches the pod and the pod has no required terms (kube's Skip).
 */
export function computePreFilterState(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
): PreFilterState | typeof skipped {
  const terms = pod.podAffinity;
  const existing = existingAntiAffinityCounts(pod, snapshot);
  const namespaces = snapshot.objects.Namespace;
  const affinityTerms = terms.requiredAffinityTerms.map((t) => mergeTermNamespaces(t, namespaces));
  const antiAffinityTerms = terms.requiredAntiAffinityTerms.map((t) =>
    mergeTermNamespaces(t, namespaces),
  );
  if (existing.isEmpty() && affinityTerms.length === 0 && antiAffinityTerms.length === 0)
    return skipped;
  const { affinity, antiAffinity } = incomingCounts(affinityTerms, antiAffinityTerms, snapshot);
  return {
    affinityTerms,
    antiAffinityTerms,
    affinityCounts: affinity,
    antiAffinityCounts: antiAffinity,
    existingAntiAffinityCounts: existing,
    matchesOwnAffinity: matchesAllTerms(affinityTerms, pod),
    namespaceLabels: namespaceLabels(snapshot, pod.namespace),
  };
}

/**
 * kube's satisfyPodAffinity: the node has every term's topology key, and each term's pair
 * has a matching pod; failing the latter, the pod may still go when no pod anywhere
 * matches all its terms and it matches them itself (the first pod of a group).
 */
function satisfiesAffinity(s: PreFilterState, node: NodeInfo): boolean {
  let podsExist = true;
  for (const t of s.affinityTerms) {
    if (!Object.hasOwn(node.labels, t.topologyKey)) return false;
    if (s.affinityCounts.at(node, t.topologyKey) <= 0) podsExist = false;
  }
  return podsExist || (s.matchesOwnAffinity && s.affinityCounts.isEmpty());
}

/** kube's satisfyPodAntiAffinity: no anti-affinity term's pair on this node has a matching pod. */
function satisfiesAntiAffinity(s: PreFilterState, node: NodeInfo): boolean {
  if (s.antiAffinityCounts.isEmpty()) return true;
  for (const t of s.antiAffinityTerms) {
    if (s.antiAffinityCounts.at(node, t.topologyKey) > 0) return false;
  }
  return true;
}

/** kube's satisfyExistingPodsAntiAffinity: none of the node's pairs repels the pod. */
function satisfiesExistingAntiAffinity(s: PreFilterState, node: NodeInfo): boolean {
  for (const key of s.existingAntiAffinityCounts.keys()) {
    if (s.existingAntiAffinityCounts.at(node, key) > 0) return false;
  }
  return true;
}

/**
 * kube's Filter for one node, in kube's order: affinity (UnschedulableAndUnresolvable),
 * then the pod's anti-affinity, then existing pods' anti-affinity (both Unschedulable).
 */
export function filterNode(s: PreFilterState, node: NodeInfo): Status {
  if (!satisfiesAffinity(s, node)) return affinityRejected;
  if (!satisfiesAntiAffinity(s, node)) return antiAffinityRejected;
  if (!satisfiesExistingAntiAffinity(s, node)) return existingRejected;
  return success;
}

/** PreFilter: computes the counts into the cycle state; never rejects. */
export function preFilter(pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): Status {
  state.set(preFilterStateKey, computePreFilterState(pod, snapshot));
  return success;
}

/** Filter: checks `node` against the PreFilter state; Error when PreFilter did not run. */
export function filter(_pod: PodInfo, node: NodeInfo, state: CycleState): Status {
  const s = state.get(preFilterStateKey) as PreFilterState | typeof skipped | undefined;
  if (s === skipped) return success;
  if (s === undefined)
    return status('Error', name, `reading "${preFilterStateKey}" from cycle state: not found`);
  return filterNode(s, node);
}
