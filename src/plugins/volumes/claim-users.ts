// Which claims the pods on each node use (kube's NodeInfo.PVCRefCounts), cached per node generation.
import type { ClusterSnapshot, NodeInfo } from '../../cluster/types.ts';

/** A node's claim keys (`namespace/claimName`), as of its generation and pod count. */
interface NodeClaims {
  generation: number;
  podCount: number;
  keys: ReadonlySet<string>;
}

// Derived data only, keyed by the NodeInfo object itself: dropping an entry (or the whole
// cache) changes no answer, only speed. A node's generation moves on every charge and
// release, and `spec.volumes` is immutable, so (generation, pod count) decides freshness.
const cache = new WeakMap<NodeInfo, NodeClaims>();

const noKeys: ReadonlySet<string> = new Set();

/**
 * The `namespace/claimName` keys of the PVC volumes of the pods charged to `node` (kube's
 * PVCRefCounts keys: PVC volumes only, not generic ephemeral ones). Recomputed only when
 * the node's pods changed since the last call: O(pods on the node) then, O(1) otherwise.
 */
export function nodeClaimKeys(node: NodeInfo): ReadonlySet<string> {
  const hit = cache.get(node);
  if (hit !== undefined && hit.generation === node.generation && hit.podCount === node.pods.size)
    return hit.keys;
  let keys: Set<string> | undefined;
  for (const p of node.pods.values()) {
    for (const v of p.volumes) {
      if (v.type !== 'persistentVolumeClaim') continue;
      keys ??= new Set();
      keys.add(`${p.namespace}/${v.claimName}`);
    }
  }
  const entry = { generation: node.generation, podCount: node.pods.size, keys: keys ?? noKeys };
  cache.set(node, entry);
  return entry.keys;
}

/**
 * kube's Snapshot.IsPVCUsedByPods: true when a pod charged to a live node (bound, assumed
 * or terminating) has a PVC volume naming `key` (`namespace/claimName`). Pods on deleted
 * nodes do not count, as kube's snapshot lists live nodes only.
 *
 * Cost: O(live nodes) set look-ups, plus O(pods) of the nodes whose pods changed since the
 * previous call. It never walks every pod of the cluster in steady state; it is called
 * only for a pod with a ReadWriteOncePod claim. (A reducer-kept claim → users index would
 * make it O(users of the claim); the reducer is not this plugin's to change.)
 */
export function isClaimUsed(snapshot: ClusterSnapshot, key: string): boolean {
  const nodes = snapshot.nodeOrder;
  for (let i = 0; i < nodes.length; i++) {
    if (nodeClaimKeys(nodes[i] as NodeInfo).has(key)) return true;
  }
  return false;
}
