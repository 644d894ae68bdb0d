// kube's findNodesThatFitPod: PreFilter, the nominated node first, then Filter over a sample.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import { newDiagnosis, recordPreFilterStatus } from './explain.ts';
import { type FitOutcome, findNodesThatPassFilters, type LeftOut } from './pass-filters.ts';
import type { FailedCycle } from './post-filter.ts';
import { narrowedNodes, type PreFilterOutcome, runPreFilterPlugins } from './run-pre-filter.ts';
import { cycleError, type Running } from './running.ts';
import type { SchedulingContext } from './scheduling-context.ts';
import type { CycleState } from './types.ts';
import { filterWithNominatedPods } from './what-if.ts';

export type { FitOutcome } from './pass-filters.ts';

/** berth's own PreFilters (no kube counterpart): their refusals run no PostFilter. */
const berthPreFilters: ReadonlySet<string> = new Set(['PodValidity', 'UnsupportedConstraints']);

/** How berth's reasons for what it cannot do yet begin (no kube scheduler would refuse). */
const berthRefusal = 'berth does not ';

/** The live node `pod` is nominated to, if any (kube evaluates it first). */
function nominatedNode(pod: PodInfo, snapshot: ClusterSnapshot): NodeInfo | undefined {
  const name = pod.nominatedNodeName;
  return name === undefined ? undefined : snapshot.nodes.get(name);
}

/**
 * The PreFilters rejected the pod: every node gets their status. A pod berth's own
 * PreFilters refuse (invalid, or asking what berth cannot check), or that a plugin refuses
 * for what berth does not do yet (e.g. provision a volume), would not be refused by kube:
 * no PostFilter runs, the message is the reason alone.
 */
function preFilterRejected(pre: PreFilterOutcome, failed: FailedCycle): FitOutcome {
  const diagnosis = newDiagnosis();
  recordPreFilterStatus(diagnosis, failed.snapshot.nodeOrder.length, pre);
  for (const p of pre.narrowedBy ?? []) diagnosis.unschedulablePlugins.add(p);
  const own =
    (pre.plugin !== undefined && berthPreFilters.has(pre.plugin)) ||
    pre.reasons.some((r) => r.startsWith(berthRefusal));
  return { kind: 'Unfit', diagnosis, failed: own ? undefined : failed };
}

/**
 * kube's findNodesThatFitPod, deterministically. PreFilters first: an Error ends the cycle,
 * a rejection makes the pod unfit everywhere. Then the node the pod is nominated to (by an
 * earlier preemption) is tried alone, the cursor unmoved; if it passes, it is the one
 * feasible node. Otherwise the filters walk a sample of the nodes (or of those a PreFilter
 * narrowed to; the others count as "node(s) didn't satisfy plugin(s) [..]", unresolvable):
 * see `findNodesThatPassFilters`. Filters whose PreFilter Skip holds are left out.
 */
export function findNodesThatFitPod(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
  ctx: SchedulingContext,
  state: CycleState,
  running: Running,
): FitOutcome {
  const { profile, recorder } = ctx;
  const numAllNodes = snapshot.nodeOrder.length;
  const pre = runPreFilterPlugins(profile, pod, state, snapshot, running, recorder);
  if (pre.code === 'Error') return cycleError(pre, running, 'PreFilter');
  const filters = profile.filter.filter((f) => f.preFilterSkip?.(pod, state) !== true);
  if (recorder !== undefined) recorder.filters(filters, state);
  const preFiltersCompleted = pre.code === 'Success' || pre.code === 'Unschedulable';
  const failed: FailedCycle = { preFiltersCompleted, pod, snapshot, ctx, state, filters, running };
  if (pre.code !== 'Success') return preFilterRejected(pre, failed);
  // kube tries the node a preemption nominated the pod to first, alone; the cursor stays.
  const nominated = nominatedNode(pod, snapshot);
  if (nominated !== undefined) {
    running.filters = filters;
    const s = filterWithNominatedPods(filters, profile.preFilter, pod, nominated, state, snapshot);
    if (recorder !== undefined) recorder.nominatedNode(nominated, s);
    if (s.code === 'Error') return cycleError(s, running, 'Filter');
    if (s.code === 'Success') return { kind: 'Fit', feasible: [nominated], processed: 1, filters };
  }
  const order =
    pre.nodeNames === undefined ? snapshot.nodeOrder : narrowedNodes(snapshot, pre.nodeNames);
  // kube gives the nodes a narrowing left out one UnschedulableAndUnresolvable status.
  const leftOut: LeftOut | undefined =
    pre.narrowedBy === undefined
      ? undefined
      : {
          count: numAllNodes - order.length,
          reason: `node(s) didn't satisfy plugin(s) [${pre.narrowedBy.join(' ')}]`,
          plugins: pre.narrowedBy,
        };
  return findNodesThatPassFilters({ failed, order, leftOut });
}
