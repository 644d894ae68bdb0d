// NodeResourcesBalancedAllocation score: favours nodes whose cpu and memory usage stay even.
import { type Amount, addAmounts, amountToFloat, subAmounts } from '../cluster/amount.ts';
import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { maxNodeScore, type ScorePlugin } from '../framework/types.ts';
import { type KubeRelease, latestKubeRelease, releaseAtLeast } from '../model/kube-release.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'NodeResourcesBalancedAllocation';

/**
 * kube's balancedResourceScore on cpu and memory: each fraction capped at 1, resources with
 * 0 allocatable left out; with two fractions std = |f_cpu − f_mem| / 2, with fewer std = 0;
 * the score is trunc((1 − std) × 100). `podCPU`/`podMem` are added to the node's actual
 * requested (useRequested=true: no non-zero defaults); 0 and 0 give the node's own balance.
 */
function balanceScore(node: NodeInfo, podCPU: Amount, podMem: Amount): number {
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
 * kube 1.34–1.35's score: the balance of the node with the pod on it. A pod requesting no
 * cpu and no memory is skipped (kube's PreScore returns Skip since kubernetes#130260,
 * 2025): every node scores 0.
 */
export function balancedAllocationScore(pod: PodInfo, node: NodeInfo): number {
  const podCPU = pod.requests.milliCPU;
  const podMem = pod.requests.memory;
  if (podCPU === 0 && podMem === 0) return 0;
  return balanceScore(node, podCPU, podMem);
}

/**
 * kube 1.36+'s score (kubernetes#135573): how much the pod improves the node's balance.
 * With s1 the balance with the pod and s0 without (each 50–100 for two resources), the
 * score is 50 + (50 + s1 − s0) / 2 in Go's truncating integer division: 75 when the pod
 * leaves the balance as it was, towards 100 when it evens the node out, towards 50 when
 * it skews it. Best-effort pods are skipped as in 1.34 (0 everywhere).
 */
export function balanceImprovementScore(pod: PodInfo, node: NodeInfo): number {
  const podCPU = pod.requests.milliCPU;
  const podMem = pod.requests.memory;
  if (podCPU === 0 && podMem === 0) return 0;
  const withPod = balanceScore(node, podCPU, podMem);
  const withoutPod = balanceScore(node, 0, 0);
  const half = maxNodeScore / 2;
  return half + Math.trunc((half + withPod - withoutPod) / 2);
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

/** The plugin scoring with `score`; already 0–100, so no normalisation. */
function scorePlugin(score: (pod: PodInfo, node: NodeInfo) => number) {
  return {
    name,
    score(pod: PodInfo, node: NodeInfo): number {
      return score(pod, node);
    },
    scoreNodes(pod: PodInfo, nodes: readonly NodeInfo[], _state: unknown, scores: number[]): void {
      for (let i = 0; i < nodes.length; i++) scores[i] = score(pod, nodes[i] as NodeInfo);
    },
  } satisfies ScorePlugin;
}

/** The plugin as kube-scheduler 1.34 and 1.35 score: balance with the pod. */
export const nodeResourcesBalancedAllocation = scorePlugin(balancedAllocationScore);

/** The plugin as kube-scheduler 1.36 and later score: the change in balance. */
export const nodeResourcesBalancedAllocationSince136 = scorePlugin(balanceImprovementScore);

/**
 * Returns the plugin for `release` (absent: the latest); kube's `resources` argument is
 * fixed to cpu and memory here.
 */
export function newNodeResourcesBalancedAllocation(
  _args?: unknown,
  release: KubeRelease = latestKubeRelease,
): typeof nodeResourcesBalancedAllocation {
  return releaseAtLeast(release, '1.36')
    ? nodeResourcesBalancedAllocationSince136
    : nodeResourcesBalancedAllocation;
}
