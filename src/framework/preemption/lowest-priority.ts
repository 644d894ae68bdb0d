// Where preemption can find no victim: the lowest pod priority per node (cached per generation), and the potential nodes counted from a diagnosis.
import type { NodeInfo } from '../../cluster/types.ts';
import type { Diagnosis } from '../types.ts';

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

/** True when no node in `nodes` has a pod of lower priority than `priority`: preemption has no victim anywhere. */
export function noLowerPriorityPod(nodes: readonly NodeInfo[], priority: number): boolean {
  for (const node of nodes) if (hasLowerPriorityPod(node, priority)) return false;
  return true;
}

/**
 * How many of `nodes` failed the cycle with code Unschedulable (preemption's potential
 * nodes), from `d` alone: the visited nodes' statuses, and for the nodes the capacity proof
 * counted without a visit, its count of unresolvable ones (which its contract makes equal
 * to a visit's). Undefined when the diagnosis does not account for every node that way
 * (the caller then filters node by node).
 */
export function unschedulableNodeCount(
  d: Diagnosis,
  nodes: readonly NodeInfo[],
  numAllNodes: number,
): number | undefined {
  if (d.preFilterMsg !== undefined) return d.unresolvableNodes >= numAllNodes ? 0 : nodes.length;
  let unschedulable = 0;
  let unresolvable = 0;
  let unvisited = 0;
  for (const node of nodes) {
    const s = d.nodeToStatus.get(node.name);
    if (s === undefined) unvisited++;
    else if (s.code === 'Unschedulable') unschedulable++;
    else if (s.code === 'UnschedulableAndUnresolvable') unresolvable++;
  }
  if (unvisited === 0 || d.summarizedNodes === 0) return unschedulable;
  if (unvisited !== d.summarizedNodes || d.nodeToStatus.size !== nodes.length - unvisited)
    return undefined;
  const unvisitedUnresolvable = d.unresolvableNodes - unresolvable;
  if (unvisitedUnresolvable < 0 || unvisitedUnresolvable > unvisited) return undefined;
  return unschedulable + unvisited - unvisitedUnresolvable;
}
