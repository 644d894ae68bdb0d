// NodeResourcesFit's scoring strategies: the args, the resources they read, kube's shape function.
import {
  type Amount,
  addAmounts,
  FLOAT_PERCENT_MAX,
  minAmount,
  percentOf,
  subAmounts,
} from '../../cluster/amount.ts';
import type { NodeInfo, PodInfo } from '../../cluster/types.ts';
import { maxNodeScore } from '../../framework/types.ts';

/** Name of the plugin (for messages). */
const name = 'NodeResourcesFit';

/** leastRequestedScore in floats: exact for a capacity up to FLOAT_PERCENT_MAX (see percentOf). */
function leastFloat(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * maxNodeScore) / capacity);
}

/** mostRequestedScore in floats: exact for a capacity up to FLOAT_PERCENT_MAX. */
function mostFloat(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  return Math.trunc((Math.min(requested, capacity) * maxNodeScore) / capacity);
}

/**
 * kube's leastRequestedScore: free share of capacity on 0–100 (integer division, exact at
 * any size), 0 when over capacity.
 */
export function leastRequestedScore(requested: Amount, capacity: Amount): number {
  if (
    typeof requested === 'number' &&
    typeof capacity === 'number' &&
    capacity <= FLOAT_PERCENT_MAX
  )
    return leastFloat(requested, capacity);
  if (capacity === 0 || requested > capacity) return 0;
  return percentOf(subAmounts(capacity, requested), capacity);
}

/** kube's mostRequestedScore: used share of capacity on 0–100 (exact), capped at capacity. */
export function mostRequestedScore(requested: Amount, capacity: Amount): number {
  if (
    typeof requested === 'number' &&
    typeof capacity === 'number' &&
    capacity <= FLOAT_PERCENT_MAX
  )
    return mostFloat(requested, capacity);
  if (capacity === 0) return 0;
  return percentOf(minAmount(requested, capacity), capacity);
}

function own(r: Record<string, Amount>, key: string): Amount {
  return Object.hasOwn(r, key) ? (r[key] as Amount) : 0;
}

/** kube's scoring strategy types. */
export type ScoringStrategyType = 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';

/** One point of a RequestedToCapacityRatio shape: utilization 0–100 → score 0–10. */
export interface UtilizationShapePoint {
  utilization: number;
  score: number;
}

/** Arguments of NodeResourcesFit (kube's NodeResourcesFitArgs, scoring part). */
export interface NodeResourcesFitArgs {
  scoringStrategy?: {
    type?: ScoringStrategyType;
    /** Default: cpu and memory, weight 1 each. Weights are integers 1–100. */
    resources?: { name: string; weight: number }[];
    /** The shape RequestedToCapacityRatio scores by (utilization increasing). */
    requestedToCapacityRatio?: { shape: UtilizationShapePoint[] };
  };
}

/** kube's MaxCustomPriorityScore: shape scores are 0–10, scaled to 0–100. */
const maxCustomPriorityScore = 10;

/**
 * kube's BuildBrokenLinearFunction over a shape already scaled to 0–100: the first point's
 * score below it, the last one's above, linear (Go integer division) in between.
 */
export function brokenLinear(shape: readonly UtilizationShapePoint[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      const here = shape[i] as UtilizationShapePoint;
      if (p <= here.utilization) {
        if (i === 0) return here.score;
        const prev = shape[i - 1] as UtilizationShapePoint;
        const rise = (here.score - prev.score) * (p - prev.utilization);
        return prev.score + Math.trunc(rise / (here.utilization - prev.utilization));
      }
    }
    return (shape[shape.length - 1] as UtilizationShapePoint).score;
  };
}

/**
 * kube's IsScalarResourceName for resource names the API accepts: extended (a domain
 * prefix), `kubernetes.io/`-prefixed, hugepages and attachable volumes. Only these are kept
 * per node besides cpu, memory and ephemeral-storage; other names are never scored.
 */
export function isScalarResourceName(resource: string): boolean {
  return (
    resource.includes('/') ||
    resource.startsWith('hugepages-') ||
    resource.startsWith('attachable-volumes-')
  );
}

/** How a resource of the strategy is read: 0 cpu, 1 memory, 2 ephemeral-storage, 3 scalar. */
type ResourceKind = 0 | 1 | 2 | 3;

/** A resource of the strategy with its weight. */
export interface Weighted {
  name: string;
  kind: ResourceKind;
  weight: number;
}

/** A parsed scoring strategy. */
export interface Strategy {
  type: ScoringStrategyType;
  resources: Weighted[];
  /** Per-resource score of RequestedToCapacityRatio (0–100), else undefined. */
  ratio: ((requested: Amount, capacity: Amount) => number) | undefined;
}

function kindOf(resource: string): ResourceKind | undefined {
  if (resource === 'cpu') return 0;
  if (resource === 'memory') return 1;
  if (resource === 'ephemeral-storage') return 2;
  return isScalarResourceName(resource) ? 3 : undefined;
}

/** kube's requested-to-capacity per-resource score over `shape` (scores 0–10). */
function ratioScorer(shape: readonly UtilizationShapePoint[]) {
  const scaled = shape.map((p) => ({
    utilization: p.utilization,
    score: p.score * (maxNodeScore / maxCustomPriorityScore),
  }));
  const f = brokenLinear(scaled);
  return (requested: Amount, capacity: Amount): number =>
    capacity === 0 || requested > capacity ? f(100) : f(percentOf(requested, capacity));
}

/** Reads NodeResourcesFit's args (kube defaults when absent); throws on a wrong shape. */
export function parseArgs(args: unknown): Strategy {
  const cpuAndMemory: Weighted[] = [
    { name: 'cpu', kind: 0, weight: 1 },
    { name: 'memory', kind: 1, weight: 1 },
  ];
  const result: Strategy = { type: 'LeastAllocated', resources: cpuAndMemory, ratio: undefined };
  if (args === undefined) return result;
  if (typeof args !== 'object' || args === null) throw new Error(`${name}: args must be an object`);
  const strategy = (args as NodeResourcesFitArgs).scoringStrategy;
  if (strategy === undefined) return result;
  const type = strategy.type ?? 'LeastAllocated';
  if (type !== 'LeastAllocated' && type !== 'MostAllocated' && type !== 'RequestedToCapacityRatio')
    throw new Error(
      `${name}: unknown scoringStrategy.type "${String(type)}" (LeastAllocated, MostAllocated, RequestedToCapacityRatio)`,
    );
  result.type = type;
  if (type === 'RequestedToCapacityRatio') {
    const shape = strategy.requestedToCapacityRatio?.shape;
    if (!Array.isArray(shape) || shape.length === 0)
      throw new Error(
        `${name}: RequestedToCapacityRatio needs a non-empty requestedToCapacityRatio.shape`,
      );
    result.ratio = ratioScorer(shape);
  }
  if (strategy.resources !== undefined && strategy.resources.length > 0) {
    result.resources = [];
    for (const r of strategy.resources) {
      if (!Number.isInteger(r.weight) || r.weight < 1 || r.weight > 100)
        throw new Error(`${name}: weight of ${r.name} must be an integer 1–100, got ${r.weight}`);
      // kube scores a name it cannot read (neither a fixed nor a scalar resource) as absent.
      const kind = kindOf(r.name);
      if (kind !== undefined) result.resources.push({ name: r.name, kind, weight: r.weight });
    }
  }
  return result;
}

/**
 * kube's calculateResourceAllocatableRequest with useRequested=false: allocatable and
 * (node's + pod's) requested of one resource, cpu and memory with their non-zero defaults;
 * `alloc` 0 when the resource is left out (a scalar the pod does not request or the node
 * does not have).
 */
export function allocAndRequested(r: Weighted, pod: PodInfo, node: NodeInfo, out: Amount[]): void {
  switch (r.kind) {
    case 0:
      out[0] = node.allocMilliCPU;
      out[1] = addAmounts(node.nonZeroMilliCPU, pod.nonZeroRequests.milliCPU);
      return;
    case 1:
      out[0] = node.allocMemory;
      out[1] = addAmounts(node.nonZeroMemory, pod.nonZeroRequests.memory);
      return;
    case 2:
      out[0] = node.allocatable.ephemeralStorage;
      out[1] = addAmounts(node.requested.ephemeralStorage, pod.requests.ephemeralStorage);
      return;
    default: {
      const podRequest = own(pod.requests.scalar, r.name);
      const has = podRequest !== 0 && Object.hasOwn(node.allocatable.scalar, r.name);
      out[0] = has ? own(node.allocatable.scalar, r.name) : 0;
      out[1] = has ? addAmounts(own(node.requested.scalar, r.name), podRequest) : 0;
    }
  }
}

/** A strategy's summed weights of cpu and of memory, when it scores nothing else. */
export interface CpuMemoryWeights {
  cpu: number;
  memory: number;
}

/**
 * The weights of cpu and memory of a LeastAllocated or MostAllocated strategy that scores
 * only those two (the default), else undefined (RequestedToCapacityRatio, other resources).
 */
export function cpuMemoryWeights(strategy: Strategy): CpuMemoryWeights | undefined {
  if (strategy.ratio !== undefined) return undefined;
  const weights = { cpu: 0, memory: 0 };
  for (const r of strategy.resources) {
    if (r.kind === 0) weights.cpu += r.weight;
    else if (r.kind === 1) weights.memory += r.weight;
    else return undefined;
  }
  return weights;
}

/**
 * The scores of `nodes` for `pod` under a cpu-and-memory strategy (`cpuMemoryWeights`),
 * into `scores`: the truncated weighted mean of the per-resource score (mostRequestedScore
 * when `most`, else leastRequestedScore) over the resources whose allocatable is not 0, on
 * the non-zero requests — what the general per-resource loop gives. Plain numbers with a
 * capacity up to FLOAT_PERCENT_MAX take floats inline (a float sum that rounds is past 2^53,
 * so over such a capacity either way); anything else the exact per-resource score.
 */
export function cpuMemoryScores(
  pod: PodInfo,
  nodes: readonly NodeInfo[],
  weights: CpuMemoryWeights,
  most: boolean,
  scores: number[],
): void {
  const podCPU = pod.nonZeroRequests.milliCPU;
  const podMemory = pod.nonZeroRequests.memory;
  const cpuWeight = weights.cpu;
  const memoryWeight = weights.memory;
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as NodeInfo;
    let total = 0;
    let sum = 0;
    if (cpuWeight !== 0 && node.allocMilliCPU !== 0) {
      total += resourceScore(most, node.allocMilliCPU, node.nonZeroMilliCPU, podCPU) * cpuWeight;
      sum += cpuWeight;
    }
    if (memoryWeight !== 0 && node.allocMemory !== 0) {
      total += resourceScore(most, node.allocMemory, node.nonZeroMemory, podMemory) * memoryWeight;
      sum += memoryWeight;
    }
    scores[i] = sum === 0 ? 0 : Math.trunc(total / sum);
  }
}

/**
 * One resource's score in cpuMemoryScores from its allocatable and the node's and the pod's
 * non-zero requests: in floats where they are exact, else the exact per-resource score.
 */
function resourceScore(most: boolean, alloc: Amount, used: Amount, pod: Amount): number {
  if (
    typeof alloc === 'number' &&
    alloc <= FLOAT_PERCENT_MAX &&
    typeof used === 'number' &&
    typeof pod === 'number'
  ) {
    return most ? mostFloat(used + pod, alloc) : leastFloat(used + pod, alloc);
  }
  const requested = addAmounts(used, pod);
  return most ? mostRequestedScore(requested, alloc) : leastRequestedScore(requested, alloc);
}
