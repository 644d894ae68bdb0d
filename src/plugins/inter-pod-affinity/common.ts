// InterPodAffinity helpers shared by Filter and Score: namespaces, topology counts, node walks.
import type { NamespaceInfo } from '../../cluster/cluster-objects.ts';
import { emptyRecord } from '../../cluster/fields.ts';
import type { AffinityTerm } from '../../cluster/pod-affinity.ts';
import { currentPodAffinityIndex } from '../../cluster/pod-affinity-index.ts';
import { nothingSelector, selectorMatches } from '../../cluster/spread-constraints.ts';
import type { ClusterSnapshot, NodeInfo } from '../../cluster/types.ts';

export { matchesAllTerms, termMatches } from '../../cluster/pod-affinity.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'InterPodAffinity';

const noLabels: Record<string, string> = Object.freeze(emptyRecord<string>());

/**
 * The labels of the Namespace `namespace` as the snapshot holds it; empty when it is not
 * known (kube's GetNamespaceLabelsSnapshot).
 */
export function namespaceLabels(
  snapshot: ClusterSnapshot,
  namespace: string,
): Record<string, string> {
  return snapshot.objects.Namespace.get(namespace)?.labels ?? noLabels;
}

/**
 * kube's mergeAffinityTermNamespacesIfNotEmpty, for the incoming pod's own terms: a
 * namespaceSelector with requirements is replaced by the names of the known Namespaces it
 * selects, added to `namespaces` (then labels.Nothing()); Nothing and the select-all `{}`
 * are kept as they are. Such terms then match existing pods without their namespace labels.
 */
export function mergeTermNamespaces<T extends AffinityTerm>(
  term: T,
  namespaces: ReadonlyMap<string, NamespaceInfo>,
): T {
  const sel = term.namespaceSelector;
  if (sel.nothing || sel.requirements.length === 0) return term;
  const names = [...term.namespaces];
  for (const ns of namespaces.values()) {
    if (selectorMatches(sel, ns.labels) && !names.includes(ns.name)) names.push(ns.name);
  }
  return { ...term, namespaces: names, namespaceSelector: nothingSelector };
}

/**
 * Counts or weights per topology pair (kube's topologyToMatchedTermCount / scoreMap):
 * topology key → topology value → number.
 */
export type TopologyCounts = Map<string, Map<string, number>>;

/** Adds `by` to the pair (`key`, the node's value for it); nothing when the node lacks `key`. */
export function addToPair(counts: TopologyCounts, node: NodeInfo, key: string, by: number): void {
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
 * HavePodsWithRequiredAntiAffinity): the straightforward walk, for snapshots without a
 * current index.
 */
export function nodesWithAffinityPods(
  snapshot: ClusterSnapshot,
  which: 'withAffinity' | 'withRequiredAntiAffinity',
): NodeInfo[] {
  const out: NodeInfo[] = [];
  const field = which === 'withAffinity' ? 'podsWithAffinity' : 'podsWithRequiredAntiAffinity';
  for (const node of snapshot.nodeOrder) if (node[field].size > 0) out.push(node);
  return out;
}

/** True when no live node holds a pod with pod (anti-)affinity terms. */
export function noAffinityPods(snapshot: ClusterSnapshot): boolean {
  const index = currentPodAffinityIndex(snapshot);
  if (index === undefined) {
    for (const node of snapshot.nodeOrder) if (node.podsWithAffinity.size > 0) return false;
    return true;
  }
  // The index lists absent nodes too: the first live one answers.
  for (const [nodeName, node] of index.withAffinity)
    if (snapshot.nodes.get(nodeName) === node) return false;
  return true;
}
