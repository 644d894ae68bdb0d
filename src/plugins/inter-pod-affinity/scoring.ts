// InterPodAffinity PreScore/Score/NormalizeScore: preferred terms both ways, and existing pods' required affinity.
import type { WeightedAffinityTerm } from '../../cluster/pod-affinity.ts';
import {
  currentPodAffinityIndex,
  type PodAffinityIndexView,
} from '../../cluster/pod-affinity-index.ts';
import { matchingPairs } from '../../cluster/pod-affinity-matches.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../../cluster/types.ts';
import { type CycleState, maxNodeScore } from '../../framework/types.ts';
import {
  hasPreferredTerms,
  mergeTermNamespaces,
  name,
  namespaceLabels,
  noAffinityPods,
  type ScoringArgs,
  termMatches,
} from './common.ts';
import { TopologySums } from './topology-sums.ts';
import { walkTopologyScore } from './walk.ts';

export type { ScoringArgs } from './common.ts';

/** The cycle-state key of the PreScore data (kube's "PreScore" + plugin name). */
export const preScoreStateKey = `PreScore${name}`;

/** What PreScore leaves for Score: topology key → value → summed weight (kube's scoreMap). */
export interface PreScoreState {
  readonly topologyScore: TopologySums;
}

/** Adds the groups of equal existing terms that `pod` matches, each member × `weight(group)`. */
function addGroups(
  sums: TopologySums,
  groups: PodAffinityIndexView['groups'][keyof PodAffinityIndexView['groups']],
  pod: PodInfo,
  nsLabels: Record<string, string>,
  sign: number,
  weight?: number,
): void {
  for (const g of groups.values()) {
    if (g.pairs.size > 0 && termMatches(g.term, pod, nsLabels))
      sums.add(g.term.topologyKey, g.pairs, sign * (weight ?? g.weight));
  }
}

/**
 * kube's PreScore from the index: the incoming pod's preferred terms weigh the memo's counts
 * of the pods matching them; the groups of equal terms of existing pods are matched against
 * the incoming pod once each (required affinity × hardPodAffinityWeight, preferred ± their
 * weight). Walks when the snapshot has no current index.
 */
export function computePreScoreState(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
  args: ScoringArgs,
): PreScoreState {
  const index = currentPodAffinityIndex(snapshot);
  if (index === undefined)
    return { topologyScore: TopologySums.of(walkTopologyScore(pod, snapshot, args)) };
  const namespaces = snapshot.objects.Namespace;
  const terms = pod.podAffinity;
  const sums = new TopologySums();
  const weigh = (list: readonly WeightedAffinityTerm[], sign: number) => {
    for (const term of list) {
      const t = mergeTermNamespaces(term, namespaces);
      sums.add(t.topologyKey, matchingPairs(snapshot, index, [t], t.topologyKey), sign * t.weight);
    }
  };
  weigh(terms.preferredAffinityTerms, 1);
  weigh(terms.preferredAntiAffinityTerms, -1);
  const nsLabels = namespaceLabels(snapshot, pod.namespace);
  const { groups } = index;
  if (args.hardPodAffinityWeight > 0)
    addGroups(sums, groups.requiredAffinityTerms, pod, nsLabels, 1, args.hardPodAffinityWeight);
  addGroups(sums, groups.preferredAffinityTerms, pod, nsLabels, 1);
  addGroups(sums, groups.preferredAntiAffinityTerms, pod, nsLabels, -1);
  return { topologyScore: sums };
}

/** kube's Score: the summed weights of the pairs the node has a label for. */
export function scoreNode(s: PreScoreState, node: NodeInfo): number {
  return s.topologyScore.total(node);
}

/**
 * kube's NormalizeScore: nothing when no pair was weighed; otherwise each score becomes
 * trunc(100 × ((score − min) / (max − min))) over the scored nodes, or 0 when all are equal
 * (computed in kube's order, so float rounding truncates the same way).
 */
export function normalizeScores(s: PreScoreState, scores: number[]): void {
  if (s.topologyScore.size === 0) return;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of scores) {
    if (v > max) max = v;
    if (v < min) min = v;
  }
  const diff = max - min;
  for (let i = 0; i < scores.length; i++) {
    scores[i] = diff > 0 ? Math.trunc(maxNodeScore * (((scores[i] as number) - min) / diff)) : 0;
  }
}

function preScoreState(state: CycleState): PreScoreState {
  const s = state.get(preScoreStateKey) as PreScoreState | undefined;
  if (s === undefined) throw new Error(`reading "${preScoreStateKey}" from cycle state: not found`);
  return s;
}

/** The Score extension points for `args`, over the PreScore state in the cycle state. */
export function scoring(args: ScoringArgs) {
  return {
    preScore(pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): void {
      state.set(preScoreStateKey, computePreScoreState(pod, snapshot, args));
    },
    score(_pod: PodInfo, node: NodeInfo, state: CycleState): number {
      return scoreNode(preScoreState(state), node);
    },
    normalize(_pod: PodInfo, scores: number[], state: CycleState): void {
      normalizeScores(preScoreState(state), scores);
    },
    /**
     * kube's PreScore Skip: a pod without preferred terms when existing pods' terms are
     * ignored (ignorePreferredTermsOfExistingPods), or when no live node holds a pod with
     * terms (kube skips when nothing was weighed; every node would score 0).
     */
    preScoreSkip(pod: PodInfo, _state: CycleState, snapshot: ClusterSnapshot): boolean {
      if (hasPreferredTerms(pod)) return false;
      return args.ignorePreferredTermsOfExistingPods || noAffinityPods(snapshot);
    },
  };
}
