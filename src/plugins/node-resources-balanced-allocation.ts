// NodeResourcesBalancedAllocation score: favours nodes whose cpu and memory usage stay even.
import { type Amount, addAmounts, amountToFloat, subAmounts } from '../cluster/amount.ts';
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
  const allocCPU = node.allocMilliCPU;
  if (allocCPU !== 0) {
    f0 = share(allocCPU, node.freeMilliCPU, podCPU);
    n = 1;
  }
  const allocMem = node.allocMemory;
  if (allocMem !== 0) {
    const f = share(allocMem, node.freeMemory, podMem);
    if (n === 0) f0 = f;
    else f1 = f;
    n++;
  }
  const std = n === 2 ? Math.abs((f0 - f1) / 2) : 0;
  return Math.trunc((1 - std) * maxNodeScore);
}

/**
 * kube's fraction float64(requested) / float64(allocatable), capped at 1, where requested =
 * node's requested + pod's = `alloc − free + pod` (inline fields, see NodeInfo). With plain
 * numbers the float sum is exact, or past 2^53 and so above `alloc` (capped at 1 either way).
 */
function share(alloc: Amount, free: Amount, pod: Amount): number {
  if (typeof alloc === 'number' && typeof free === 'number' && typeof pod === 'number')
    return Math.min(1, (alloc - free + pod) / alloc);
  const requested = addAmounts(subAmounts(alloc, free), pod);
  return Math.min(1, amountToFloat(requested) / amountToFloat(alloc));
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
