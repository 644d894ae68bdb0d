// What kube-scheduler 1.37 must do with each pod of a scenario placed one pod at a time, given where the earlier ones went.
//
// In a sequential scenario (pods whose spreading or affinity reads where other pods went)
// each pending pod is created only once the one before it settled, an unschedulable one is
// deleted, and berth's run is kept on kube-scheduler's history (differential.ts). So each pod
// meets a known cluster: the residents plus the earlier pods where kube-scheduler put them.
// Then kube's filters decide the feasible nodes, and its whole default score decides the
// node, unless two nodes tie (kube and berth break ties at random). Sources (k8s.io/kubernetes
// v1.34, and v1.37 for balanced_allocation.go: the change in balance since 1.36, #135573):
// plugins/noderesources/{least_allocated,balanced_allocation,resource_allocation}.go,
// framework/types.go (NonZeroRequested), plugins/imagelocality (0 on nodes without images).
import type { Outcomes } from './differential.ts';
import { affinityFilter, affinityScores } from './scenario-affinity.ts';
import {
  type Amounts,
  addAmounts,
  allocatable,
  filterReason,
  hostPorts,
  type NodeObj,
  type PodObj,
  podRequests,
  staticScores,
} from './scenario-model.ts';
import { spreadFilter, spreadScores } from './scenario-spread.ts';
import type { World } from './scenario-topology.ts';
import type { Expectation, Scenario } from './scenarios.ts';

/** kube's defaults for a container's missing cpu/memory request when scoring (100m, 200Mi), in thousandths. */
const nonZeroDefaults: Amounts = { cpu: 100, memory: 200 * 2 ** 20 * 1000 };

/** An amount in kube's units for scoring: millicores for cpu, bytes for memory. */
function unit(resource: 'cpu' | 'memory', thousandths: number): bigint {
  return BigInt(resource === 'cpu' ? thousandths : Math.round(thousandths / 1000));
}

/**
 * NodeResourcesFit (LeastAllocated over cpu and memory, weight 1 each) plus
 * NodeResourcesBalancedAllocation, per feasible node: LeastAllocated reads the non-zero
 * requests (missing ones count as 100m / 200Mi per container) of the node's pods and the pod;
 * BalancedAllocation their real requests: with b = 100 × (1 − |cpu fraction − memory
 * fraction| / 2) truncated, 50 + trunc((50 + b with the pod − b without it) / 2) (as kube
 * scores since 1.36), and nothing for a pod that requests neither.
 */
export function resourceScores(pod: PodObj, feasible: readonly NodeObj[], world: World): number[] {
  const podNonZero = podRequests(pod, nonZeroDefaults);
  const podReal = podRequests(pod);
  const bestEffort = (podReal.cpu ?? 0) === 0 && (podReal.memory ?? 0) === 0;
  return feasible.map((node) => {
    const nonZero: Amounts = {};
    const real: Amounts = {};
    for (const p of world.placed) {
      if (p.node !== node.metadata.name) continue;
      addAmounts(nonZero, podRequests(p.pod, nonZeroDefaults));
      addAmounts(real, podRequests(p.pod));
    }
    const alloc = allocatable(node);
    let sum = 0n;
    let weights = 0n;
    const withPod: number[] = [];
    const withoutPod: number[] = [];
    for (const r of ['cpu', 'memory'] as const) {
      const capacity = unit(r, alloc[r] ?? 0);
      if (capacity === 0n) continue;
      const requested = unit(r, (nonZero[r] ?? 0) + (podNonZero[r] ?? 0));
      sum += requested > capacity ? 0n : ((capacity - requested) * 100n) / capacity;
      weights += 1n;
      const share = (used: number) => Math.min(1, Number(unit(r, used)) / Number(capacity));
      withPod.push(share((real[r] ?? 0) + (podReal[r] ?? 0)));
      withoutPod.push(share(real[r] ?? 0));
    }
    const fit = weights === 0n ? 0 : Number(sum / weights);
    if (bestEffort) return fit;
    return fit + 50 + Math.trunc((50 + balance(withPod) - balance(withoutPod)) / 2);
  });
}

/** kube's balance of cpu and memory fractions: trunc(100 × (1 − |f_cpu − f_mem| / 2)); one fraction alone is even. */
function balance(fractions: readonly number[]): number {
  const std =
    fractions.length === 2
      ? Math.abs(((fractions[0] as number) - (fractions[1] as number)) / 2)
      : 0;
  return Math.trunc((1 - std) * 100);
}

/**
 * kube's default score of each feasible node, weighted and summed: TaintToleration ×3,
 * NodeAffinity ×2, NodeResourcesFit ×1, NodeResourcesBalancedAllocation ×1,
 * PodTopologySpread ×2, InterPodAffinity ×2 (ImageLocality gives every node 0 here: the
 * nodes report no images).
 */
export function totalScores(pod: PodObj, feasible: readonly NodeObj[], world: World): number[] {
  const statics = staticScores(pod, feasible);
  const resources = resourceScores(pod, feasible, world);
  const spread = spreadScores(pod, feasible, world);
  const affinity = affinityScores(pod, feasible, world);
  return feasible.map(
    (_, i) =>
      (statics[i] as number) +
      (resources[i] as number) +
      2 * (spread[i] as number) +
      2 * (affinity[i] as number),
  );
}

/** How far the best node's modelled total must lead for the node to be compared (absorbs a last-bit float difference). */
export const exactMargin = 1;

/** Each node's reason to reject `pod` in `world` (kube's filter order), undefined where it fits. */
export function verdictsIn(pod: PodObj, world: World): Record<string, string | undefined> {
  const spread = spreadFilter(pod, world);
  const affinity = affinityFilter(pod, world);
  const out: Record<string, string | undefined> = {};
  for (const node of world.nodes) {
    const name = node.metadata.name;
    const here = world.placed.filter((p) => p.node === name).map((p) => p.pod);
    const used: Amounts = {};
    for (const p of here) addAmounts(used, podRequests(p));
    out[name] =
      filterReason(pod, node, used, here.flatMap(hostPorts)) ??
      spread.get(name) ??
      affinity.get(name);
  }
  return out;
}

/** What a correct scheduler must do with `pod` in `world`: feasible nodes, reasons, and the node when one wins. */
export function expectationIn(pod: PodObj, world: World): Expectation {
  const verdicts = verdictsIn(pod, world);
  const feasible = world.nodes.filter((n) => verdicts[n.metadata.name] === undefined);
  const rejectedBy: Record<string, string> = {};
  for (const [n, why] of Object.entries(verdicts)) if (why !== undefined) rejectedBy[n] = why;
  let node: string | undefined;
  let scores: number[] = [];
  if (feasible.length === 1) node = feasible[0]?.metadata.name;
  else if (feasible.length > 1) {
    scores = totalScores(pod, feasible, world);
    const best = Math.max(...scores);
    const winners = scores.flatMap((s, i) => (s === best ? [i] : []));
    const runnerUp = Math.max(...scores.filter((s) => s !== best), Number.NEGATIVE_INFINITY);
    if (winners.length === 1 && best - runnerUp >= exactMargin)
      node = feasible[winners[0] as number]?.metadata.name;
  }
  return {
    feasible: feasible.map((n) => n.metadata.name),
    rejectedBy,
    ...(node === undefined ? {} : { node }),
    ...(scores.length === 0
      ? {}
      : {
          scores: Object.fromEntries(
            feasible.map((n, i) => [n.metadata.name, scores[i] as number]),
          ),
        }),
  };
}

/**
 * The expectations of a sequential scenario along kube-scheduler's history: each pending pod
 * meets the residents plus the earlier pending pods kube-scheduler bound, on its nodes.
 */
export function sequentialExpectations(
  scenario: Scenario,
  kube: Outcomes,
): Record<string, Expectation> {
  const placed = scenario.residents.map((r) => ({ pod: r, node: r.spec.nodeName as string }));
  const world: World = { nodes: scenario.nodes, placed, workloads: scenario.workloads };
  const out: Record<string, Expectation> = {};
  for (const pod of scenario.pending) {
    out[pod.metadata.name] = expectationIn(pod, world);
    const node = kube[pod.metadata.name]?.node;
    if (node !== undefined) placed.push({ pod, node });
  }
  return out;
}
