// NodeResourcesFit: filter on free capacity (pods, cpu, memory, storage, scalars); score by allocation.

import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { capacityFreed } from '../framework/hints.ts';
import {
  type FilterPlugin,
  maxNodeScore,
  type ScorePlugin,
  type Status,
  status,
  success,
} from '../framework/types.ts';

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

function own(r: Record<string, number>, key: string): number {
  return Object.hasOwn(r, key) ? (r[key] as number) : 0;
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
 * stays Unschedulable. Without scalar failures the status is a shared frozen one.
 */
export function fitsRequest(pod: PodInfo, node: NodeInfo): Status {
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
    const q = r.scalar[key] as number;
    const allocatable = own(node.allocatable.scalar, key);
    if (q > allocatable - own(node.requested.scalar, key)) {
      scalarReasons ??= [];
      scalarReasons.push(insufficientReason(key));
      if (q > allocatable) bits |= unresolvableBit;
    }
  }
  if (scalarReasons === undefined) return bits === 0 ? success : (builtInStatuses[bits] as Status);
  const shared = builtInStatuses[bits] as Status;
  return { code: shared.code, reasons: [...shared.reasons, ...scalarReasons], plugin: name };
}

/** kube's leastRequestedScore: free share of capacity on 0–100, 0 when over capacity. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * maxNodeScore) / capacity);
}

/** kube's mostRequestedScore: used share of capacity on 0–100, capped at capacity. */
export function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  const r = Math.min(requested, capacity);
  return Math.trunc((r * maxNodeScore) / capacity);
}

/** Scoring strategy types berth supports (kube also has RequestedToCapacityRatio). */
export type ScoringStrategyType = 'LeastAllocated' | 'MostAllocated';

/** Arguments of NodeResourcesFit (kube's NodeResourcesFitArgs, cpu and memory only). */
export interface NodeResourcesFitArgs {
  scoringStrategy?: {
    type?: ScoringStrategyType;
    /** Default: cpu and memory, weight 1 each. Weights are integers 1–100. */
    resources?: { name: string; weight: number }[];
  };
}

function parseArgs(args: unknown): { type: ScoringStrategyType; cpu: number; memory: number } {
  const result = { type: 'LeastAllocated' as ScoringStrategyType, cpu: 1, memory: 1 };
  if (args === undefined) return result;
  if (typeof args !== 'object' || args === null) throw new Error(`${name}: args must be an object`);
  const strategy = (args as NodeResourcesFitArgs).scoringStrategy;
  if (strategy === undefined) return result;
  const type = strategy.type ?? 'LeastAllocated';
  if (type !== 'LeastAllocated' && type !== 'MostAllocated') {
    throw new Error(
      `${name}: unknown scoringStrategy.type "${String(type)}" (LeastAllocated, MostAllocated)`,
    );
  }
  result.type = type;
  if (strategy.resources !== undefined) {
    result.cpu = 0;
    result.memory = 0;
    for (const r of strategy.resources) {
      if (r.name !== 'cpu' && r.name !== 'memory') {
        throw new Error(`${name}: scoring resource "${r.name}" is not supported (cpu, memory)`);
      }
      if (!Number.isInteger(r.weight) || r.weight < 1 || r.weight > 100) {
        throw new Error(`${name}: weight of ${r.name} must be an integer 1–100, got ${r.weight}`);
      }
      result[r.name] = r.weight;
    }
  }
  return result;
}

// The Filter instances `newNodeResourcesFit` made: their filter is exactly `fitsRequest`.
const fitFilters = new WeakSet<object>();

/** True when `filter` is a NodeResourcesFit instance (its filter is `fitsRequest`). */
export function isNodeResourcesFitFilter(filter: FilterPlugin): boolean {
  return fitFilters.has(filter);
}

/**
 * Creates the plugin. Filter: `fitsRequest`. Score (kube's resourceAllocationScorer with
 * useRequested=false): the node's non-zero requested plus the pod's non-zero requests
 * against allocatable, per resource, weighted integer mean; a resource whose allocatable
 * is 0 is left out of the mean. No normalisation (scores are already 0–100).
 */
export function newNodeResourcesFit(args?: unknown) {
  const { type, cpu: wCPU, memory: wMem } = parseArgs(args);
  const perResource = type === 'LeastAllocated' ? leastRequestedScore : mostRequestedScore;
  const plugin = {
    queueingHint: capacityFreed,
    name,
    filter(pod: PodInfo, node: NodeInfo): Status {
      return fitsRequest(pod, node);
    },
    score(pod: PodInfo, node: NodeInfo): number {
      let total = 0;
      let weights = 0;
      const allocCPU = node.allocMilliCPU;
      if (wCPU > 0 && allocCPU !== 0) {
        const requested = node.nonZeroMilliCPU + pod.nonZeroRequests.milliCPU;
        total += perResource(requested, allocCPU) * wCPU;
        weights += wCPU;
      }
      const allocMem = node.allocMemory;
      if (wMem > 0 && allocMem !== 0) {
        const requested = node.nonZeroMemory + pod.nonZeroRequests.memory;
        total += perResource(requested, allocMem) * wMem;
        weights += wMem;
      }
      return weights === 0 ? 0 : Math.trunc(total / weights);
    },
  } satisfies FilterPlugin & ScorePlugin;
  fitFilters.add(plugin);
  return plugin;
}

/** The default NodeResourcesFit: LeastAllocated on cpu and memory, weight 1 each. */
export const nodeResourcesFit = newNodeResourcesFit();
