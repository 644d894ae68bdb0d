// kube's findNodesThatPassFilters: the Filter walk over a sample of the nodes, from the cursor.
import type { NodeInfo } from '../cluster/types.ts';
import type { CycleRecorder } from './cycle-recorder.ts';
import { type Diagnosis, diagnoseFailedNodes, newDiagnosis } from './explain.ts';
import type { FailedCycle } from './post-filter.ts';
import { type CycleError, cycleError } from './running.ts';
import { numFeasibleNodesToFind } from './sampling.ts';
import type { FilterPlugin, Profile, Status } from './types.ts';
import { filterWithNominatedPods, runFilterPlugins } from './what-if.ts';

/**
 * What filtering found (kube's findNodesThatFitPod): feasible nodes (in walk order, and how
 * many nodes were processed), or none: the diagnosis and, unless the PostFilters must not
 * run, the failed cycle they are given.
 */
export type FitOutcome =
  | CycleError
  | {
      kind: 'Fit';
      feasible: NodeInfo[];
      processed: number;
      /** The filters that ran (their PreFilter Skip did not hold). */
      filters: readonly FilterPlugin[];
    }
  | { kind: 'Unfit'; diagnosis: Diagnosis; failed: FailedCycle | undefined };

/** The nodes a PreFilter narrowing left out of the walk, and the status they count with. */
export interface LeftOut {
  count: number;
  reason: string;
  plugins: readonly string[];
}

/** What the walk is given: the cycle, the nodes it ranges over, those a narrowing left out. */
export interface WalkInput {
  failed: FailedCycle;
  order: readonly NodeInfo[];
  leftOut: LeftOut | undefined;
}

/** Counts the nodes a PreFilter narrowing left out, as kube's absent-nodes status does. */
function addLeftOutNodes(d: Diagnosis, leftOut: LeftOut | undefined): Diagnosis {
  if (leftOut === undefined) return d;
  for (const p of leftOut.plugins) d.unschedulablePlugins.add(p);
  if (leftOut.count === 0) return d;
  d.reasons.set(leftOut.reason, (d.reasons.get(leftOut.reason) ?? 0) + leftOut.count);
  d.unresolvableNodes += leftOut.count;
  return d;
}

/** The cursor's value as a walk start: a positive integer, or 0. */
export function cursorStart(cursor: number): number {
  return Number.isInteger(cursor) && cursor > 0 ? cursor : 0;
}

/**
 * How many feasible nodes a walk over `numNodes` nodes looks for (kube's
 * numFeasibleNodesToFind; one when the profile scores nothing: any feasible node will do).
 */
export function feasibleNodesToFind(
  profile: Profile,
  numNodes: number,
  percentageOfNodesToScore: number,
): number {
  return profile.score.length === 0
    ? 1
    : numFeasibleNodesToFind(numNodes, percentageOfNodesToScore);
}

/**
 * Filters `order` from `cursor.next` (modulo its length), wrapping, one node at a time.
 * This is kube's parallel search run with one worker: once numFeasibleNodesToFind feasible
 * nodes are held, the walk goes on only until the next feasible node, which is dropped;
 * nodes that fail on the way still count as processed. Without score plugins one feasible
 * node is enough. A plugin Error ends the cycle. The cursor then advances by the nodes
 * processed, modulo the nodes walked (modulo all nodes after a narrowing, as kube does).
 * Pods nominated elsewhere hold their place on their node; on a node neither cordoned nor
 * tainted the filters that pass there are left out. Before the walk, the profile's
 * `proveInfeasible` may prove that no node fits and give the walk's diagnosis without
 * visiting the nodes (not when a recorder wants to see them).
 */
export function findNodesThatPassFilters(walk: WalkInput): FitOutcome {
  const { failed, order, leftOut } = walk;
  const { pod, snapshot, ctx, state, filters, running } = failed;
  const { profile, recorder } = ctx;
  const numNodes = order.length;
  if (numNodes === 0)
    return { kind: 'Unfit', diagnosis: addLeftOutNodes(newDiagnosis(), leftOut), failed };
  const numToFind = feasibleNodesToFind(profile, numNodes, ctx.percentageOfNodesToScore);
  running.filters = filters;
  // Pods nominated to a node hold their place there (kube's RunFilterPluginsWithNominatedPods).
  const honourNominated = snapshot.nominated.size > 0;
  const next = cursorStart(ctx.cursor.next);
  const start = next % numNodes;
  const provable = leftOut === undefined && !honourNominated && recorder === undefined;
  if (provable && profile.proveInfeasible !== undefined) {
    // A pod that fits nowhere would walk every node; the proof counts them instead. The
    // walk would have processed every node, leaving the cursor where it started.
    const proven = profile.proveInfeasible(pod, filters, snapshot, state, start);
    if (proven !== undefined) {
      ctx.cursor.next = start;
      return { kind: 'Unfit', diagnosis: proven, failed };
    }
  }
  if (recorder !== undefined)
    recorder.walkStart({ order, cursor: ctx.cursor.next, start, feasibleToFind: numToFind });
  // On a node neither cordoned nor tainted, the filters that pass every pod there are left out.
  const untaintedFilters = filters.filter((f) => f.passesUntaintedNodes !== true);
  // Sized once for the most the walk can keep (no regrowth per push), trimmed after it.
  const feasible = new Array<NodeInfo>(Math.min(numToFind, numNodes));
  let found = 0;
  let dropped: NodeInfo | undefined;
  const failedNodes: string[] = [];
  const failedStatuses: Status[] = [];
  for (let i = 0, at = start; i < numNodes; i++, at = at + 1 === numNodes ? 0 : at + 1) {
    const node = order[at] as NodeInfo;
    if (recorder !== undefined) recorder.visit(node);
    let s: Status;
    // A node no pod is nominated to filters as without nominations (filterWithNominatedPods).
    if (honourNominated && snapshot.nominated.has(node.name))
      s = filterWithNominatedPods(filters, profile.preFilter, pod, node, state, snapshot);
    else {
      running.filters = node.unschedulable || node.taints.length !== 0 ? filters : untaintedFilters;
      s = runFilterPlugins(running.filters, pod, node, state, running);
    }
    if (recorder !== undefined) recorder.verdict(node, s);
    if (s.code === 'Error') return cycleError(s, running, 'Filter');
    if (s.code === 'Success') {
      if (found === numToFind) {
        dropped = node;
        break;
      }
      feasible[found++] = node;
    } else {
      failedNodes.push(node.name);
      failedStatuses.push(s);
    }
  }
  feasible.length = found;
  const processed = found + failedNodes.length;
  // kube advances its start index over all nodes, narrowed walk or not.
  const numAllNodes = snapshot.nodeOrder.length;
  ctx.cursor.next =
    leftOut === undefined ? (start + processed) % numNodes : (next + processed) % numAllNodes;
  if (recorder !== undefined) endWalk(recorder, feasible, dropped, processed, ctx.cursor.next);
  if (found === 0) {
    const diagnosis = addLeftOutNodes(diagnoseFailedNodes(failedNodes, failedStatuses), leftOut);
    return { kind: 'Unfit', diagnosis, failed };
  }
  return { kind: 'Fit', feasible, processed, filters };
}

function endWalk(
  recorder: CycleRecorder,
  feasible: readonly NodeInfo[],
  dropped: NodeInfo | undefined,
  processed: number,
  nextCursor: number,
): void {
  recorder.walkEnd({ feasible, dropped, processed, nextCursor });
}
