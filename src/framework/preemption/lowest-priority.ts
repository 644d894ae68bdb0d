// The lowest priority among a node's pods, cached per node generation: a preemptor of no higher priority finds no victim there.
import type { NodeInfo } from '../../cluster/types.ts';

interface Lowest {
  generation: number;
  priority: number;
}

const lowestByNode = new WeakMap<NodeInfo, Lowest>();

/**
 * The lowest `priority` of the pods charged to `node` (Infinity when it has none). Kept per
 * node object and recomputed when its `generation` moves, which every change to its pods
 * does; a failed cycle asks for every node, and most have not changed since the last one.
 */
export function lowestPodPriority(node: NodeInfo): number {
  const known = lowestByNode.get(node);
  if (known !== undefined && known.generation === node.generation) return known.priority;
  let priority = Number.POSITIVE_INFINITY;
  for (const pod of node.pods.values()) if (pod.priority < priority) priority = pod.priority;
  lowestByNode.set(node, { generation: node.generation, priority });
  return priority;
}

/** True when some pod on `node` has lower priority than `priority` (kube's isPreemptionAllowed for one of them). */
export function hasLowerPriorityPod(node: NodeInfo, priority: number): boolean {
  return lowestPodPriority(node) < priority;
}
