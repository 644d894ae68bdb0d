// InterPodAffinity's straightforward walks over every live node and pod: for snapshots without a current index, and the oracle the index is checked against.
import type { AffinityTerm, WeightedAffinityTerm } from '../../cluster/pod-affinity.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../../cluster/types.ts';
import {
  hasPreferredTerms,
  matchesAllTerms,
  mergeTermNamespaces,
  namespaceLabels,
  type ScoringArgs,
  termMatches,
} from './common.ts';

/**
 * Counts or weights per topology pair (kube's topologyToMatchedTermCount / scoreMap):
 * topology key → topology value → number.
 */
export type TopologyCounts = Map<string, Map<string, number>>;

/** Adds `by` to the pair (`key`, the node's value for it); nothing when the node lacks `key`. */
function addToPair(counts: TopologyCounts, node: NodeInfo, key: string, by: number): void {
  const labels = node.labels;
  if (!Object.hasOwn(labels, key)) return;
  const value = labels[key] as string;
  let values = counts.get(key);
  if (values === undefined) {
    values = new Map();
    counts.set(key, values);
  }
  values.set(value, (values.get(value) ?? 0) + by);
}

/**
 * The live nodes holding pods with pod (anti-)affinity terms (`which` selects the list:
 * any term, or required anti-affinity), by walking the nodes (kube's HavePodsWithAffinity /
 * HavePodsWithRequiredAntiAffinity).
 */
function nodesWithAffinityPods(
  snapshot: ClusterSnapshot,
  which: 'withAffinity' | 'withRequiredAntiAffinity',
): NodeInfo[] {
  const out: NodeInfo[] = [];
  const field = which === 'withAffinity' ? 'podsWithAffinity' : 'podsWithRequiredAntiAffinity';
  for (const node of snapshot.nodeOrder) if (node[field].size > 0) out.push(node);
  return out;
}

/**
 * kube's getExistingAntiAffinityCounts by walking: for each live node holding pods with
 * required anti-affinity, each such pod's term the incoming pod matches (its namespace's
 * labels against the term's namespaceSelector) counts once on the node's pair for the
 * term's key.
 */
export function walkExistingAntiAffinityCounts(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
): TopologyCounts {
  const counts: TopologyCounts = new Map();
  const nsLabels = namespaceLabels(snapshot, pod.namespace);
  for (const node of nodesWithAffinityPods(snapshot, 'withRequiredAntiAffinity')) {
    for (const existing of node.podsWithRequiredAntiAffinity.values()) {
      for (const t of existing.podAffinity.requiredAntiAffinityTerms) {
        if (termMatches(t, pod, nsLabels)) addToPair(counts, node, t.topologyKey, 1);
      }
    }
  }
  return counts;
}

/**
 * kube's getIncomingAffinityAntiAffinityCounts over every pod of every live node: a pod
 * matching all affinity terms counts on each term's pair; a pod matching an anti-affinity
 * term counts on that term's pair. Only nodes with pods are visited.
 */
export function walkIncomingCounts(
  affinityTerms: readonly AffinityTerm[],
  antiAffinityTerms: readonly AffinityTerm[],
  snapshot: ClusterSnapshot,
): { affinity: TopologyCounts; antiAffinity: TopologyCounts } {
  const affinity: TopologyCounts = new Map();
  const antiAffinity: TopologyCounts = new Map();
  if (affinityTerms.length === 0 && antiAffinityTerms.length === 0)
    return { affinity, antiAffinity };
  for (const node of snapshot.nodeOrder) {
    if (node.pods.size === 0) continue;
    for (const existing of node.pods.values()) {
      if (matchesAllTerms(affinityTerms, existing)) {
        for (const t of affinityTerms) addToPair(affinity, node, t.topologyKey, 1);
      }
      for (const t of antiAffinityTerms) {
        if (termMatches(t, existing)) addToPair(antiAffinity, node, t.topologyKey, 1);
      }
    }
  }
  return { affinity, antiAffinity };
}

/** The incoming pod and what its terms need, fixed for one PreScore. */
interface Incoming {
  readonly pod: PodInfo;
  readonly nsLabels: Record<string, string>;
  readonly preferred: readonly WeightedAffinityTerm[];
  readonly preferredAnti: readonly WeightedAffinityTerm[];
}

function addIfMatches(
  scores: TopologyCounts,
  term: AffinityTerm,
  weight: number,
  pod: PodInfo,
  nsLabels: Record<string, string> | undefined,
  node: NodeInfo,
): void {
  if (termMatches(term, pod, nsLabels)) addToPair(scores, node, term.topologyKey, weight);
}

/**
 * kube's processExistingPod: on `node`'s pairs, + the weight of each incoming preferred
 * affinity term `existing` matches, − for each preferred anti-affinity term; then, for
 * `existing`'s own terms the incoming pod matches (its namespace labels against their
 * namespaceSelectors), + hardPodAffinityWeight per required affinity term (when > 0),
 * + weight per preferred affinity term, − weight per preferred anti-affinity term.
 */
function processExistingPod(
  scores: TopologyCounts,
  args: ScoringArgs,
  incoming: Incoming,
  existing: PodInfo,
  node: NodeInfo,
): void {
  for (const t of incoming.preferred) addIfMatches(scores, t, t.weight, existing, undefined, node);
  for (const t of incoming.preferredAnti)
    addIfMatches(scores, t, -t.weight, existing, undefined, node);
  const own = existing.podAffinity;
  const { pod, nsLabels } = incoming;
  if (args.hardPodAffinityWeight > 0) {
    for (const t of own.requiredAffinityTerms)
      addIfMatches(scores, t, args.hardPodAffinityWeight, pod, nsLabels, node);
  }
  for (const t of own.preferredAffinityTerms)
    addIfMatches(scores, t, t.weight, pod, nsLabels, node);
  for (const t of own.preferredAntiAffinityTerms)
    addIfMatches(scores, t, -t.weight, pod, nsLabels, node);
}

/**
 * kube's PreScore by walking: with preferred terms of its own, the incoming pod is weighed
 * against every pod of every live node; without, only the pods with affinity terms count.
 * Nodes without labels are left out, as in kube.
 */
export function walkTopologyScore(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
  args: ScoringArgs,
): TopologyCounts {
  const namespaces = snapshot.objects.Namespace;
  const terms = pod.podAffinity;
  const incoming: Incoming = {
    pod,
    nsLabels: namespaceLabels(snapshot, pod.namespace),
    preferred: terms.preferredAffinityTerms.map((t) => mergeTermNamespaces(t, namespaces)),
    preferredAnti: terms.preferredAntiAffinityTerms.map((t) => mergeTermNamespaces(t, namespaces)),
  };
  const topologyScore: TopologyCounts = new Map();
  const all = hasPreferredTerms(pod);
  const nodes = all ? snapshot.nodeOrder : nodesWithAffinityPods(snapshot, 'withAffinity');
  for (const node of nodes) {
    const pods = all ? node.pods : node.podsWithAffinity;
    if (pods.size === 0 || isEmpty(node.labels)) continue;
    for (const existing of pods.values())
      processExistingPod(topologyScore, args, incoming, existing, node);
  }
  return topologyScore;
}

function isEmpty(r: Record<string, string>): boolean {
  for (const _ in r) return false;
  return true;
}
