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

function append(list: string[] | undefined, reason: string): string[] {
  if (list === undefined) return [reason];
  list.push(reason);
  return list;
}

function own(r: Record<string, number>, key: string): number {
  return Object.hasOwn(r, key) ? (r[key] as number) : 0;
}

/**
 * kube's fitsRequest, in kube's order: pods, cpu, memory, ephemeral-storage, then each
 * scalar the pod requests (a scalar the node lacks has 0 allocatable). Resources the pod
 * requests none of are skipped. All failures are reported in one status: Unschedulable,
 * or UnschedulableAndUnresolvable when some request exceeds the node's whole allocatable
 * (kubernetes#131345, merged 2025: preemption cannot help there). "Too many pods" alone
 * stays Unschedulable.
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
  const alloc = node.allocatable;
  const used = node.requested;
  const req = pod.requests;
  let reasons: string[] | undefined;
  let unresolvable = false;
  if (node.pods.size + 1 > alloc.pods) reasons = [ReasonTooManyPods];
  if (req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - used.milliCPU) {
    reasons = append(reasons, ReasonInsufficientCPU);
    if (req.milliCPU > alloc.milliCPU) unresolvable = true;
  }
  if (req.memory > 0 && req.memory > alloc.memory - used.memory) {
    reasons = append(reasons, ReasonInsufficientMemory);
    if (req.memory > alloc.memory) unresolvable = true;
  }
  if (
    req.ephemeralStorage > 0 &&
    req.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage
  ) {
    reasons = append(reasons, ReasonInsufficientEphemeralStorage);
    if (req.ephemeralStorage > alloc.ephemeralStorage) unresolvable = true;
  }
  const scalarNames = pod.scalarRequestNames;
  for (let i = 0; i < scalarNames.length; i++) {
    const key = scalarNames[i] as string;
    const q = req.scalar[key] as number;
    const allocatable = own(alloc.scalar, key);
    if (q > allocatable - own(used.scalar, key)) {
      reasons = append(reasons, insufficientReason(key));
      if (q > allocatable) unresolvable = true;
    }
  }
  if (reasons === undefined) return success;
  return {
    code: unresolvable ? 'UnschedulableAndUnresolvable' : 'Unschedulable',
    reasons,
    plugin: name,
  };
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

/**
 * Creates the plugin. Filter: `fitsRequest`. Score (kube's resourceAllocationScorer with
 * useRequested=false): the node's non-zero requested plus the pod's non-zero requests
 * against allocatable, per resource, weighted integer mean; a resource whose allocatable
 * is 0 is left out of the mean. No normalisation (scores are already 0–100).
 */
export function newNodeResourcesFit(args?: unknown) {
  const { type, cpu: wCPU, memory: wMem } = parseArgs(args);
  const perResource = type === 'LeastAllocated' ? leastRequestedScore : mostRequestedScore;
  return {
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
}

/** The default NodeResourcesFit: LeastAllocated on cpu and memory, weight 1 each. */
export const nodeResourcesFit = newNodeResourcesFit();
