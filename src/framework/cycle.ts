// One scheduling cycle for one pod: PreFilter → Filter (sampled, rotating) → Score → select.
import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import {
  type Diagnosis,
  ErrNoNodesAvailable,
  fitErrorMessage,
  newDiagnosis,
  recordNodeStatus,
  recordPreFilterStatus,
} from './explain.ts';
import type { Rng } from './rng.ts';
import { numFeasibleNodesToFind } from './sampling.ts';
import { prioritizeNodes, selectHost } from './select.ts';
import type { CycleState, FilterPlugin, Profile, Status } from './types.ts';
import { success } from './types.ts';

/** What a cycle needs besides the pod and the snapshot; `cursor` is advanced in place. */
export interface SchedulingContext {
  profile: Profile;
  rng: Rng;
  /** Where the next cycle starts its walk over `nodeOrder` (kube's nextStartNodeIndex). */
  cursor: { next: number };
  /** 0 = adaptive (kube's default); 1–100 = that percentage. */
  percentageOfNodesToScore: number;
}

/** The outcome of one cycle. `evaluated` counts the nodes filtered and kept (kube's EvaluatedNodes). */
export type CycleResult =
  | { kind: 'Scheduled'; node: string; evaluated: number; feasible: number }
  | { kind: 'Unschedulable'; message: string; diagnosis: Diagnosis };

/** The read-only cluster view a cycle needs: the nodes in their stable order. */
export interface ClusterView {
  nodeOrder: readonly NodeInfo[];
}

function withPlugin(s: Status, plugin: string): Status {
  return s.plugin === undefined ? { code: s.code, reasons: s.reasons, plugin } : s;
}

/**
 * kube's RunFilterPlugins: the filters in profile order, stopping at the first that does
 * not return Success; that status comes back with its plugin name set.
 */
export function runFilterPlugins(
  filters: readonly FilterPlugin[],
  pod: PodInfo,
  node: NodeInfo,
  state: CycleState,
): Status {
  for (let i = 0; i < filters.length; i++) {
    const f = filters[i] as FilterPlugin;
    const s = f.filter(pod, node, state);
    if (s.code !== 'Success') return withPlugin(s, f.name);
  }
  return success;
}

/**
 * kube's RunPreFilterPlugins: an UnschedulableAndUnresolvable (or Error) status stops at
 * once; an Unschedulable one is remembered while the others still run. Returns the
 * rejecting status or `success`.
 */
function runPreFilterPlugins(profile: Profile, pod: PodInfo, state: CycleState): Status {
  let rejected: Status | undefined;
  for (const pl of profile.preFilter) {
    const s = pl.preFilter(pod, state);
    if (s.code === 'Success') continue;
    if (s.code === 'Unschedulable') {
      rejected ??= withPlugin(s, pl.name);
      continue;
    }
    return withPlugin(s, pl.name);
  }
  return rejected ?? success;
}

function unschedulable(numAllNodes: number, diagnosis: Diagnosis): CycleResult {
  return { kind: 'Unschedulable', message: fitErrorMessage(numAllNodes, diagnosis), diagnosis };
}

/**
 * Schedules `pod` against the snapshot as kube's schedulePod does, deterministically:
 *
 * 1. No nodes → Unschedulable "no nodes available to schedule pods" (cursor unchanged).
 * 2. PreFilters; a rejection → "0/N nodes are available: <message>." (cursor unchanged).
 * 3. Filters over `nodeOrder` from `cursor.next`, wrapping, one node at a time. This is
 *    kube's parallel search run with one worker: once numFeasibleNodesToFind feasible
 *    nodes are held, the walk goes on only until the next feasible node, which is
 *    dropped; nodes that fail on the way still count as processed. Without score
 *    plugins one feasible node is enough. A plugin Error counts as that node's failure
 *    (kube would abort the cycle; berth's plugins never return Error).
 * 4. `cursor.next = (cursor.next + processed) % N`, processed = feasible + failed.
 * 5. No feasible node → Unschedulable with the FitError message and the Diagnosis; one →
 *    that node, unscored; more → weighted scores, highest total, ties by reservoir
 *    sampling with `ctx.rng`.
 *
 * Filters and scores whose PreFilter/PreScore `Skip` holds for this pod are left out.
 */
export function scheduleOne(
  pod: PodInfo,
  cluster: ClusterView,
  ctx: SchedulingContext,
): CycleResult {
  const order = cluster.nodeOrder;
  const numAllNodes = order.length;
  if (numAllNodes === 0) {
    return { kind: 'Unschedulable', message: ErrNoNodesAvailable, diagnosis: newDiagnosis() };
  }
  const { profile } = ctx;
  const state: CycleState = new Map();

  const pre = runPreFilterPlugins(profile, pod, state);
  if (pre.code !== 'Success') {
    const diagnosis = newDiagnosis();
    recordPreFilterStatus(diagnosis, numAllNodes, pre);
    return unschedulable(numAllNodes, diagnosis);
  }

  const numToFind =
    profile.score.length === 0
      ? 1
      : numFeasibleNodesToFind(numAllNodes, ctx.percentageOfNodesToScore);
  const filters = profile.filter.filter((f) => f.preFilterSkip?.(pod) !== true);
  const feasible: NodeInfo[] = [];
  const failedNodes: string[] = [];
  const failedStatuses: Status[] = [];
  const next = ctx.cursor.next;
  const start = Number.isInteger(next) && next > 0 ? next % numAllNodes : 0;
  for (let i = 0, at = start; i < numAllNodes; i++, at = at + 1 === numAllNodes ? 0 : at + 1) {
    const node = order[at] as NodeInfo;
    const s = runFilterPlugins(filters, pod, node, state);
    if (s.code === 'Success') {
      if (feasible.length === numToFind) break;
      feasible.push(node);
    } else {
      failedNodes.push(node.name);
      failedStatuses.push(s);
    }
  }
  const processed = feasible.length + failedNodes.length;
  ctx.cursor.next = (start + processed) % numAllNodes;

  if (feasible.length === 0) {
    const diagnosis = newDiagnosis();
    for (let i = 0; i < failedNodes.length; i++) {
      recordNodeStatus(diagnosis, failedNodes[i] as string, failedStatuses[i] as Status);
    }
    return unschedulable(numAllNodes, diagnosis);
  }
  if (feasible.length === 1) {
    const only = feasible[0] as NodeInfo;
    return { kind: 'Scheduled', node: only.name, evaluated: processed, feasible: 1 };
  }
  const scorers = profile.score.filter((w) => w.plugin.preScoreSkip?.(pod) !== true);
  const totals = prioritizeNodes(pod, feasible, scorers, state);
  const chosen = feasible[selectHost(totals, ctx.rng)] as NodeInfo;
  return { kind: 'Scheduled', node: chosen.name, evaluated: processed, feasible: feasible.length };
}
