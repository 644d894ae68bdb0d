// NodeResourcesFit: filter on free capacity (pods, cpu, memory, storage, scalars); score by allocation.

import { type Amount, subAmounts } from '../cluster/amount.ts';
import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { capacityFreed } from '../framework/hints.ts';
import {
  type CycleState,
  type FilterPlugin,
  type ScorePlugin,
  type Status,
  status,
  success,
} from '../framework/types.ts';
import { draBackedKey } from './dra/extended-resources.ts';
import {
  allocAndRequested,
  cpuMemoryScores,
  cpuMemoryWeights,
  leastRequestedScore,
  mostRequestedScore,
  parseArgs,
  type Weighted,
} from './node-resources-fit/scoring.ts';

export {
  brokenLinear,
  isScalarResourceName,
  leastRequestedScore,
  mostRequestedScore,
  type NodeResourcesFitArgs,
  type ScoringStrategyType,
  type UtilizationShapePoint,
} from './node-resources-fit/scoring.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'NodeResourcesFit';

/** kube's reason when the node is at its pod limit. */
export const ReasonTooManyPods = 'Too many pods';
/** kube's reason for cpu. */
export const ReasonInsufficientCPU = 'Insufficient cpu';
/** kube's reason for memory. */
export const ReasonInsufficientMemory = 'Insufficient memory';
/** kube's reason for ephemeral storage. */
export const ReasonInsufficientEphemeralStorage = 'Insufficient ephemeral-storage';
/**
 * berth-specific: the node object could not be parsed (see `NodeInfo.invalid`), so its
 * capacity is unknown and nothing is placed there until it is fixed.
 */
export const ErrReasonInvalidNode = 'node(s) had invalid resources';

/** kube's reason for an extended/scalar resource, e.g. `Insufficient nvidia.com/gpu`. */
export function insufficientReason(resource: string): string {
  return `Insufficient ${resource}`;
}

const invalidNode: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonInvalidNode),
);

function own(r: Record<string, Amount>, key: string): Amount {
  return Object.hasOwn(r, key) ? (r[key] as Amount) : 0;
}

// Bits of the built-in reasons, in kube's order; a failing node's status is one of 32
// shared, frozen statuses (reasons × unresolvable), so rejecting a node allocates nothing
// and a cycle's diagnosis can count identical statuses together.
const tooManyPodsBit = 1;
const cpuBit = 2;
const memoryBit = 4;
const ephemeralStorageBit = 8;
const unresolvableBit = 16;
const builtInReasons: readonly (readonly [number, string])[] = [
  [tooManyPodsBit, ReasonTooManyPods],
  [cpuBit, ReasonInsufficientCPU],
  [memoryBit, ReasonInsufficientMemory],
  [ephemeralStorageBit, ReasonInsufficientEphemeralStorage],
];
const builtInStatuses: readonly Status[] = Array.from({ length: 32 }, (_, bits) => {
  const reasons = builtInReasons.filter(([bit]) => (bits & bit) !== 0).map(([, r]) => r);
  const code = (bits & unresolvableBit) !== 0 ? 'UnschedulableAndUnresolvable' : 'Unschedulable';
  return Object.freeze({ code, reasons: Object.freeze(reasons), plugin: name });
});

/**
 * kube's fitsRequest, in kube's order: pods, cpu, memory, ephemeral-storage, then each
 * scalar the pod requests (a scalar the node lacks has 0 allocatable). Resources the pod
 * requests none of are skipped. All failures are reported in one status: Unschedulable,
 * or UnschedulableAndUnresolvable when some request exceeds the node's whole allocatable
 * (kubernetes#131345, merged 2025: preemption cannot help there). "Too many pods" alone
 * stays Unschedulable. Without scalar failures the status is a shared frozen one. Amounts
 * are exact (see Amount): comparisons of numbers with bigints are exact in JavaScript.
 * A scalar in `viaDra` (extended resources a DeviceClass backs) is left to DynamicResources
 * on a node whose allocatable has none of it (kube's shouldDelegateResourceToDRA).
 */
export function fitsRequest(pod: PodInfo, node: NodeInfo, viaDra?: ReadonlySet<string>): Status {
  if (node.invalid !== undefined) return invalidNode;
  // Fast path on the node's inline headroom: only ever returns a success the full check
  // below would also return, and touches one object per node.
  const r = pod.requests;
  if (
    pod.scalarRequestNames.length === 0 &&
    node.freePods >= 1 &&
    r.milliCPU <= node.freeMilliCPU &&
    r.memory <= node.freeMemory &&
    r.ephemeralStorage <= node.freeEphemeralStorage
  ) {
    return success;
  }
  // The same comparisons on the inline copies (free = allocatable − requested, pods left =
  // allocatable pods − pods here), so a failing node costs one object read as well.
  let bits = 0;
  if (node.freePods < 1) bits |= tooManyPodsBit;
  if (r.milliCPU > 0 && r.milliCPU > node.freeMilliCPU) {
    bits |= cpuBit;
    if (r.milliCPU > node.allocMilliCPU) bits |= unresolvableBit;
  }
  if (r.memory > 0 && r.memory > node.freeMemory) {
    bits |= memoryBit;
    if (r.memory > node.allocMemory) bits |= unresolvableBit;
  }
  if (r.ephemeralStorage > 0 && r.ephemeralStorage > node.freeEphemeralStorage) {
    bits |= ephemeralStorageBit;
    if (r.ephemeralStorage > node.allocatable.ephemeralStorage) bits |= unresolvableBit;
  }
  let scalarReasons: string[] | undefined;
  const scalarNames = pod.scalarRequestNames;
  for (let i = 0; i < scalarNames.length; i++) {
    const key = scalarNames[i] as string;
    const q = r.scalar[key] as Amount;
    const allocatable = own(node.allocatable.scalar, key);
    if (viaDra?.has(key) === true && allocatable <= 0) continue;
    if (q > subAmounts(allocatable, own(node.requested.scalar, key))) {
      scalarReasons ??= [];
      scalarReasons.push(insufficientReason(key));
      if (q > allocatable) bits |= unresolvableBit;
    }
  }
  if (scalarReasons === undefined) return bits === 0 ? success : (builtInStatuses[bits] as Status);
  const shared = builtInStatuses[bits] as Status;
  return { code: shared.code, reasons: [...shared.reasons, ...scalarReasons], plugin: name };
}

// The Filter instances `newNodeResourcesFit` made: their filter is exactly `fitsRequest`.
const fitFilters = new WeakSet<object>();

/** True when `filter` is a NodeResourcesFit instance (its filter is `fitsRequest`). */
export function isNodeResourcesFitFilter(filter: FilterPlugin): boolean {
  return fitFilters.has(filter);
}

/**
 * Creates the plugin. Filter: `fitsRequest`. Score: kube's resourceAllocationScorer with
 * useRequested=false for the strategy's resources (default cpu and memory, weight 1): cpu
 * and memory count the node's and the pod's non-zero requests; a resource whose allocatable
 * is 0 (or a scalar the pod does not request) is left out. LeastAllocated and MostAllocated
 * take the truncated weighted mean of `leastRequestedScore`/`mostRequestedScore`;
 * RequestedToCapacityRatio maps utilization through the shape (scores ×10), counts only
 * resources scoring above 0, and rounds the mean. No normalisation (scores are 0–100).
 */
export function newNodeResourcesFit(args?: unknown) {
  const strategy = parseArgs(args);
  const { type, resources, ratio } = strategy;
  const onCpuAndMemory = cpuMemoryWeights(strategy);
  const perResource = type === 'MostAllocated' ? mostRequestedScore : leastRequestedScore;
  const pair: Amount[] = [0, 0];
  const score = (pod: PodInfo, node: NodeInfo): number => {
    let total = 0;
    let weights = 0;
    for (let i = 0; i < resources.length; i++) {
      const r = resources[i] as Weighted;
      allocAndRequested(r, pod, node, pair);
      const alloc = pair[0] as Amount;
      if (alloc === 0) continue;
      const requested = pair[1] as Amount;
      if (ratio === undefined) {
        total += perResource(requested, alloc) * r.weight;
        weights += r.weight;
        continue;
      }
      const s = ratio(requested, alloc);
      if (s > 0) {
        total += s * r.weight;
        weights += r.weight;
      }
    }
    if (weights === 0) return 0;
    return ratio === undefined ? Math.trunc(total / weights) : Math.round(total / weights);
  };
  const plugin = {
    queueingHint: capacityFreed,
    name,
    filter(pod: PodInfo, node: NodeInfo, state?: CycleState): Status {
      return fitsRequest(pod, node, state?.get(draBackedKey) as ReadonlySet<string> | undefined);
    },
    score,
    scoreNodes(pod: PodInfo, nodes: readonly NodeInfo[], _state: unknown, scores: number[]) {
      if (onCpuAndMemory !== undefined)
        cpuMemoryScores(pod, nodes, onCpuAndMemory, type === 'MostAllocated', scores);
      else for (let i = 0; i < nodes.length; i++) scores[i] = score(pod, nodes[i] as NodeInfo);
    },
  } satisfies FilterPlugin & ScorePlugin;
  fitFilters.add(plugin);
  return plugin;
}

/** The default NodeResourcesFit: LeastAllocated on cpu and memory, weight 1 each. */
export const nodeResourcesFit = newNodeResourcesFit();
