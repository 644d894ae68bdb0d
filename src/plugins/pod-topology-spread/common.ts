// PodTopologySpread helpers shared by its Filter and Score: eligible nodes and matching pod counts.
import {
  type SpreadConstraint,
  selectorIsEmpty,
  selectorMatches,
} from '../../cluster/spread-constraints.ts';
import type { NodeInfo, PodInfo } from '../../cluster/types.ts';
import { matchesRequiredNodeAffinity } from '../node-affinity.ts';
import { findUntoleratedTaint } from '../taint-toleration.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'PodTopologySpread';

/** The well-known hostname label: kube's Score counts such a domain on the node itself. */
export const labelHostname = 'kubernetes.io/hostname';

/** kube's nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key. */
export function hasAllTopologyKeys(
  labels: Record<string, string>,
  constraints: readonly SpreadConstraint[],
): boolean {
  for (let i = 0; i < constraints.length; i++) {
    if (!Object.hasOwn(labels, (constraints[i] as SpreadConstraint).topologyKey)) return false;
  }
  return true;
}

/**
 * kube's matchNodeInclusionPolicies: with nodeAffinityPolicy Honor the node must match the
 * pod's nodeSelector and required node affinity; with nodeTaintsPolicy Honor the pod must
 * tolerate its NoSchedule/NoExecute taints. Such nodes alone form the constraint's domains.
 */
export function matchesInclusionPolicies(
  c: SpreadConstraint,
  pod: PodInfo,
  node: NodeInfo,
): boolean {
  if (c.nodeAffinityPolicy === 'Honor' && !matchesRequiredNodeAffinity(pod, node)) return false;
  if (c.nodeTaintsPolicy === 'Honor' && findUntoleratedTaint(pod, node) !== undefined) return false;
  return true;
}

/**
 * kube's countPodsMatchSelector: the pods charged to `node` (bound or assumed) in
 * `namespace`, not terminating, that `c`'s selector matches; 0 for an empty selector.
 */
export function countMatchingPods(node: NodeInfo, c: SpreadConstraint, namespace: string): number {
  const sel = c.selector;
  if (sel.nothing || selectorIsEmpty(sel)) return 0;
  let count = 0;
  for (const p of node.pods.values()) {
    if (p.terminating || p.namespace !== namespace) continue;
    if (selectorMatches(sel, p.labels)) count++;
  }
  return count;
}

/**
 * Whether `countMatchingPods` counts pod `p` for `c` (in `namespace`): not terminating, in
 * that namespace, matched by a selector that is neither empty nor Nothing.
 */
export function isCountedPod(c: SpreadConstraint, p: PodInfo, namespace: string): boolean {
  const sel = c.selector;
  if (sel.nothing || selectorIsEmpty(sel) || p.terminating || p.namespace !== namespace)
    return false;
  return selectorMatches(sel, p.labels);
}
