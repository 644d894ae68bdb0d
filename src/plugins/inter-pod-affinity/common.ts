// InterPodAffinity helpers shared by Filter and Score: namespaces and their merge into terms, the Skip test.
import type { NamespaceInfo } from '../../cluster/cluster-objects.ts';
import { emptyRecord } from '../../cluster/fields.ts';
import type { AffinityTerm } from '../../cluster/pod-affinity.ts';
import { currentPodAffinityIndex } from '../../cluster/pod-affinity-index.ts';
import { nothingSelector, selectorMatches } from '../../cluster/spread-constraints.ts';
import type { ClusterSnapshot, PodInfo } from '../../cluster/types.ts';

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

/** True when the pod has preferred pod affinity or anti-affinity terms (kube's hasConstraints). */
export function hasPreferredTerms(pod: PodInfo): boolean {
  const t = pod.podAffinity;
  return t.preferredAffinityTerms.length > 0 || t.preferredAntiAffinityTerms.length > 0;
}

/** The plugin's scoring arguments (kube's InterPodAffinityArgs). */
export interface ScoringArgs {
  /** Weight of an existing pod's required affinity term that the incoming pod matches (0–100). */
  readonly hardPodAffinityWeight: number;
  /** Skip scoring of pods without preferred terms (existing pods' terms then count for nothing). */
  readonly ignorePreferredTermsOfExistingPods: boolean;
}
