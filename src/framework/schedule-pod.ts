// kube's schedulePod: find the nodes that fit, score them when there are several, select one.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import { ErrNoNodesAvailable, newDiagnosis } from './explain.ts';
import { findNodesThatFitPod } from './find-nodes.ts';
import { unschedulable } from './post-filter.ts';
import { prioritizeNodes } from './prioritize-nodes.ts';
import type { Running } from './running.ts';
import type { CycleResult, SchedulingContext } from './scheduling-context.ts';
import { selectHost } from './select-host.ts';
import { type CycleState, cycleNowKey } from './types.ts';

/**
 * kube's schedulePod (with the PostFilters of a pod that fits nowhere, which kube's
 * schedulingCycle runs right after it):
 *
 * 1. No nodes → Unschedulable "no nodes available to schedule pods" (cursor unchanged).
 * 2. `findNodesThatFitPod`: PreFilters, the nominated node, the Filter walk from the cursor.
 * 3. No feasible node → Unschedulable with the FitError message and the Diagnosis, then
 *    the PostFilters (preemption); one → that node, unscored; more → `prioritizeNodes`
 *    (PreScore, Score, NormalizeScore, weights; score plugins whose PreScore Skip holds
 *    are left out), then `selectHost` over the totals with `ctx.rng`.
 *
 * Throws what a plugin throws (`scheduleOne` turns it into Error, naming `running`).
 */
export function schedulePod(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
  ctx: SchedulingContext,
  running: Running,
): CycleResult {
  const numAllNodes = snapshot.nodeOrder.length;
  if (numAllNodes === 0) {
    return {
      kind: 'Unschedulable',
      message: ErrNoNodesAvailable,
      diagnosis: newDiagnosis(),
      clearsNomination: true,
    };
  }
  const state: CycleState = new Map();
  if (ctx.now !== undefined) state.set(cycleNowKey, ctx.now);
  const fit = findNodesThatFitPod(pod, snapshot, ctx, state, running);
  if (fit.kind === 'Error') return fit;
  if (fit.kind === 'Unfit') return unschedulable(numAllNodes, fit.diagnosis, fit.failed);
  const { feasible, processed } = fit;
  if (feasible.length === 1) {
    const only = feasible[0] as NodeInfo;
    return reserved(pod, ctx, state, running, {
      kind: 'Scheduled',
      node: only.name,
      evaluated: processed,
      feasible: 1,
    });
  }
  const { recorder } = ctx;
  const scorers = ctx.profile.score.filter(
    (w) => w.plugin.preScoreSkip?.(pod, state, snapshot) !== true,
  );
  if (recorder !== undefined) recorder.scorers(scorers);
  running.filters = undefined;
  const totals = prioritizeNodes(pod, feasible, scorers, state, snapshot, running, recorder);
  const selected = selectHost(totals, ctx.rng);
  if (recorder !== undefined) recorder.selected(feasible, totals, selected);
  const chosen = feasible[selected] as NodeInfo;
  return reserved(pod, ctx, state, running, {
    kind: 'Scheduled',
    node: chosen.name,
    evaluated: processed,
    feasible: feasible.length,
  });
}

/**
 * kube's Reserve on the selected node: each Reserve plugin's holdings join the result; a
 * plugin that cannot reserve ends the cycle in Error naming it.
 */
function reserved(
  pod: PodInfo,
  ctx: SchedulingContext,
  state: CycleState,
  running: Running,
  result: Extract<CycleResult, { kind: 'Scheduled' }>,
): CycleResult {
  for (const plugin of ctx.profile.reserve ?? []) {
    running.plugin = plugin.name;
    const held = plugin.reserve(pod, result.node, state);
    if ('code' in held)
      return {
        kind: 'Error',
        plugin: plugin.name,
        message: held.reasons.join(', '),
        point: 'Reserve',
      };
    if (held.claims !== undefined) result.claims = held.claims;
  }
  return result;
}
