// NodeResourcesBalancedAllocation score: favours nodes whose cpu and memory usage stay even.
import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { maxNodeScore, type ScorePlugin } from '../framework/types.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'NodeResourcesBalancedAllocation';

/**
 * kube 1.34's balancedResourceScorer on cpu and memory, with useRequested=true: the
 * node's actual requested plus the pod's actual requests (no non-zero defaults) over
 * allocatable, each fraction capped at 1; resources with 0 allocatable are left out.
 * With two fractions std = |f_cpu − f_mem| / 2, with fewer std = 0; the score is
 * trunc((1 − std) × 100). A pod requesting no cpu and no memory is skipped (kube's
 * PreScore returns Skip since kubernetes#130260, 2025): every node scores 0. (kube 1.36
 * scores the change in balance instead, kubernetes#135573; berth follows 1.34.)
 */
export function balancedAllocationScore(pod: PodInfo, node: NodeInfo): number {
  const podCPU = pod.requests.milliCPU;
  const podMem = pod.requests.memory;
  if (podCPU === 0 && podMem === 0) return 0;
  let f0 = 0;
  let f1 = 0;
  let n = 0;
  // Inline fields (see NodeInfo): requested = allocatable − free.
  const allocCPU = node.allocMilliCPU;
  if (allocCPU !== 0) {
    f0 = Math.min(1, (allocCPU - node.freeMilliCPU + podCPU) / allocCPU);
    n = 1;
  }
  const allocMem = node.allocMemory;
  if (allocMem !== 0) {
    const f = Math.min(1, (allocMem - node.freeMemory + podMem) / allocMem);
    if (n === 0) f0 = f;
    else f1 = f;
    n++;
  }
  const std = n === 2 ? Math.abs((f0 - f1) / 2) : 0;
  return Math.trunc((1 - std) * maxNodeScore);
}

/** Score only; already 0–100, so no normalisation. */
export const nodeResourcesBalancedAllocation = {
  name,
  score(pod: PodInfo, node: NodeInfo): number {
    return balancedAllocationScore(pod, node);
  },
  scoreNodes(pod: PodInfo, nodes: readonly NodeInfo[], _state: unknown, scores: number[]): void {
    for (let i = 0; i < nodes.length; i++)
      scores[i] = balancedAllocationScore(pod, nodes[i] as NodeInfo);
  },
} satisfies ScorePlugin;

/** Returns the plugin (kube's `resources` argument is fixed to cpu and memory here). */
export function newNodeResourcesBalancedAllocation(): typeof nodeResourcesBalancedAllocation {
  return nodeResourcesBalancedAllocation;
}
