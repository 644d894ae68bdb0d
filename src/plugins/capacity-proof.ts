// Proves a pod fits nowhere from the capacity index, with the diagnosis a walk would give.
import {
  type CapacityIndexView,
  capacityIndexOf,
  isGuardedNode,
} from '../cluster/capacity-index.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import { runFilterPlugins } from '../framework/cycle.ts';
import type { Diagnosis } from '../framework/explain.ts';
import type { CycleState, FilterPlugin, InfeasibilityProof, Status } from '../framework/types.ts';
import {
  name as fitName,
  isNodeResourcesFitFilter,
  ReasonInsufficientCPU,
  ReasonInsufficientEphemeralStorage,
  ReasonInsufficientMemory,
  ReasonTooManyPods,
} from './node-resources-fit.ts';
import { nodeUnschedulable } from './node-unschedulable.ts';
import { taintToleration } from './taint-toleration.ts';

/** What an open node's fit check fails on, counted over all open nodes. */
interface OpenFailures {
  open: number;
  /** Reason → open nodes failing with it (kube's order: pods, cpu, memory, storage). */
  reasons: [string, number][];
  unresolvable: number;
}

/**
 * Counts, from the index alone, how the open nodes fail NodeResourcesFit, or undefined
 * unless every open node is certain to fail it: some requested resource is short on all
 * of them (a node short on different resources than its neighbours needs a visit).
 */
function openFailures(pod: PodInfo, index: CapacityIndexView): OpenFailures | undefined {
  const r = pod.requests;
  const open = index.openCount;
  const counts: [string, number][] = [[ReasonTooManyPods, index.countOpenBelow('freePods', 1)]];
  if (r.milliCPU > 0)
    counts.push([ReasonInsufficientCPU, index.countOpenBelow('freeMilliCPU', r.milliCPU)]);
  if (r.memory > 0)
    counts.push([ReasonInsufficientMemory, index.countOpenBelow('freeMemory', r.memory)]);
  if (r.ephemeralStorage > 0) {
    const short = index.countOpenBelow('freeEphemeralStorage', r.ephemeralStorage);
    counts.push([ReasonInsufficientEphemeralStorage, short]);
  }
  if (open > 0 && !counts.some(([, n]) => n === open)) return undefined;
  // A request beyond a node's whole allocatable makes its failure unresolvable (such a
  // resource is short there too: an open node's free never exceeds its allocatable).
  let unresolvable = 0;
  for (const shape of index.shapes()) {
    if (
      (r.milliCPU > 0 && r.milliCPU > shape.milliCPU) ||
      (r.memory > 0 && r.memory > shape.memory) ||
      (r.ephemeralStorage > 0 && r.ephemeralStorage > shape.ephemeralStorage)
    ) {
      unresolvable += shape.count;
    }
  }
  return { open, reasons: counts.filter(([, n]) => n > 0), unresolvable };
}

/** Steps from `start` to `at` walking forward over `n` nodes, wrapping. */
function distance(start: number, at: number, n: number): number {
  return at >= start ? at - start : at + n - start;
}

/** The first open node in walk order from `start`, as a distance from it. */
function firstOpenDistance(
  snapshot: ClusterSnapshot,
  guarded: ReadonlyMap<string, NodeInfo>,
  start: number,
): number {
  const order = snapshot.nodeOrder;
  for (let d = 0; d < order.length; d++) {
    const node = order[(start + d) % order.length] as NodeInfo;
    if (!guarded.has(node.name)) return d;
  }
  return order.length;
}

/**
 * Whether the node the walk starts at is open and has room for every resource `pod`
 * requests. Then some open node might fit, so `proveFromIndex` would give up: the common
 * case (a pod that fits) costs one node's check, and no index update.
 */
export function walkStartFits(pod: PodInfo, snapshot: ClusterSnapshot, walkStart: number): boolean {
  const node = snapshot.nodeOrder[walkStart];
  if (node === undefined || isGuardedNode(node)) return false;
  const r = pod.requests;
  return (
    node.freePods >= 1 &&
    r.milliCPU <= node.freeMilliCPU &&
    r.memory <= node.freeMemory &&
    r.ephemeralStorage <= node.freeEphemeralStorage
  );
}

/**
 * The registry profiles' `proveInfeasible`: `proveFromIndex`, given up at once when
 * `walkStartFits` (the proof would give up too).
 */
export const proveInfeasibleFromCapacity: InfeasibilityProof = (
  pod,
  filters,
  snapshot,
  state,
  walkStart,
) =>
  walkStartFits(pod, snapshot, walkStart)
    ? undefined
    : proveFromIndex(pod, filters, snapshot, state, walkStart);

/**
 * The proof itself. Applies when every filter before
 * NodeResourcesFit passes every open node (NodeUnschedulable, TaintToleration; NodeName
 * and NodeAffinity only when skipped for this pod), the pod requests no extended resource
 * and the capacity index is current. Guarded nodes run the real filters; open nodes are
 * counted from the index. Gives up (undefined) when a guarded node passes or errs, when
 * some open node might fit, or when over half the nodes are guarded.
 */
export function proveFromIndex(
  pod: PodInfo,
  filters: readonly FilterPlugin[],
  snapshot: ClusterSnapshot,
  state: CycleState,
  walkStart: number,
): Diagnosis | undefined {
  if (pod.scalarRequestNames.length !== 0) return undefined;
  let fitAt = -1;
  for (let i = 0; i < filters.length && fitAt < 0; i++) {
    const f = filters[i] as FilterPlugin;
    if (isNodeResourcesFitFilter(f)) fitAt = i;
    else if (f !== nodeUnschedulable && f !== taintToleration) return undefined;
  }
  if (fitAt < 0) return undefined;
  const index = capacityIndexOf(snapshot);
  const n = snapshot.nodeOrder.length;
  // With mostly guarded nodes the proof would visit most nodes, and a pod that fits on one
  // of them would be walked twice: leave such clusters to the walk.
  if (index === undefined || index.guarded.size * 2 > n) return undefined;
  const open = openFailures(pod, index);
  if (open === undefined) return undefined;

  // Guarded nodes: the real filters, remembered with their place in the walk.
  const visited: { at: number; name: string; status: Status }[] = [];
  try {
    for (const [name, node] of index.guarded) {
      const status = runFilterPlugins(filters, pod, node, state);
      if (status.code === 'Success' || status.code === 'Error') return undefined;
      const at = snapshot.nodeIndex.get(name);
      if (at === undefined) return undefined;
      visited.push({ at: distance(walkStart, at, n), name, status });
    }
  } catch {
    return undefined; // the walk will meet the same exception and report it
  }
  visited.sort((a, b) => a.at - b.at);

  const d: Diagnosis = {
    reasons: new Map(),
    nodeToStatus: new Map(),
    summarizedNodes: open.open,
    unresolvableNodes: open.unresolvable,
    unschedulablePlugins: new Set(),
    preFilterMsg: undefined,
  };
  // Plugins enter the set in the order the walk would first meet them.
  const openAt = open.open > 0 ? firstOpenDistance(snapshot, index.guarded, walkStart) : n;
  let openAdded = false;
  for (const v of visited) {
    if (!openAdded && openAt < v.at) {
      d.unschedulablePlugins.add(fitName);
      openAdded = true;
    }
    d.nodeToStatus.set(v.name, v.status);
    for (const r of v.status.reasons) d.reasons.set(r, (d.reasons.get(r) ?? 0) + 1);
    if (v.status.code === 'UnschedulableAndUnresolvable') d.unresolvableNodes++;
    if (v.status.plugin !== undefined) d.unschedulablePlugins.add(v.status.plugin);
  }
  if (!openAdded && open.open > 0) d.unschedulablePlugins.add(fitName);
  for (const [reason, count] of open.reasons)
    d.reasons.set(reason, (d.reasons.get(reason) ?? 0) + count);
  return d;
}
