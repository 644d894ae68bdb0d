// kube's RunPostFilterPlugins and the FitError of a pod that fits no node.
import type { ClusterSnapshot, PodInfo } from '../cluster/types.ts';
import type { ClaimToDeallocate } from '../events/types.ts';
import { type Diagnosis, fitErrorMessage } from './explain.ts';
import type { Running } from './running.ts';
import type { CycleUnschedulable, SchedulingContext } from './scheduling-context.ts';
import type { CycleState, FilterPlugin, PostFilterResult } from './types.ts';

/** What a failed cycle hands its PostFilters besides the diagnosis. */
export interface FailedCycle {
  /** False when a PreFilter stopped the PreFilter loop (see PostFilterArgs). */
  preFiltersCompleted: boolean;
  pod: PodInfo;
  snapshot: ClusterSnapshot;
  ctx: SchedulingContext;
  state: CycleState;
  filters: readonly FilterPlugin[];
  running: Running;
}

/**
 * kube's RunPostFilterPlugins: in order; the first Success (a nomination),
 * UnschedulableAndUnresolvable or Error ends it (an Error's text becomes the PostFilter
 * part of the message, the pod stays unschedulable, as kube does); otherwise the reasons
 * of all of them, in order. A claim a PostFilter deallocated (kube wrote it already) stays
 * in the answer, however the later ones end. A PostFilter that throws ends the cycle with
 * Error naming it.
 */
export function runPostFilterPlugins(f: FailedCycle, diagnosis: Diagnosis): PostFilterResult {
  const postFilters = f.ctx.profile.postFilter ?? [];
  const reasons: string[] = [];
  // kube keeps the last PostFilter result that asked for something (here: a clearing).
  let clearsNomination = false;
  let deallocate: ClaimToDeallocate | undefined;
  for (const pl of postFilters) {
    f.running.plugin = pl.name;
    f.running.filters = undefined;
    const r = pl.postFilter(f.pod, {
      snapshot: f.snapshot,
      state: f.state,
      filters: f.filters,
      preFilters: f.ctx.profile.preFilter,
      diagnosis,
      preFiltersCompleted: f.preFiltersCompleted,
      numAllNodes: f.snapshot.nodeOrder.length,
      rng: f.ctx.rng,
      now: f.ctx.now ?? 0,
    });
    deallocate ??= r.deallocate;
    // An Error ends them too: kube keeps the pod unschedulable and puts the error's text
    // where the PostFilters' reasons go.
    if (r.code !== 'Unschedulable') return withDeallocation(r, deallocate);
    if (r.clearsNomination === true) clearsNomination = true;
    reasons.push(...r.reasons);
  }
  const out: PostFilterResult = clearsNomination
    ? { code: 'Unschedulable', reasons, clearsNomination }
    : { code: 'Unschedulable', reasons };
  return withDeallocation(out, deallocate);
}

function withDeallocation(
  r: PostFilterResult,
  deallocate: ClaimToDeallocate | undefined,
): PostFilterResult {
  return deallocate === undefined || r.deallocate === deallocate ? r : { ...r, deallocate };
}

/**
 * The pod fits no node: kube's FitError message, after which the PostFilters of `failed`
 * (none when it is undefined) run; their reasons follow the message (kube's PostFilterMsg)
 * unless one made room (a nomination). A claim a PostFilter deallocated comes with it.
 */
export function unschedulable(
  numAllNodes: number,
  diagnosis: Diagnosis,
  failed?: FailedCycle,
): CycleUnschedulable {
  const message = fitErrorMessage(numAllNodes, diagnosis);
  // berth's own refusals (no `failed`) have no kube counterpart: they leave a nomination be.
  if (failed === undefined) return { kind: 'Unschedulable', message, diagnosis };
  // kube clears the nomination of a pod that fails where no PostFilter could make room.
  if ((failed.ctx.profile.postFilter ?? []).length === 0)
    return { kind: 'Unschedulable', message, diagnosis, clearsNomination: true };
  const post = runPostFilterPlugins(failed, diagnosis);
  const out = unschedulableAfter(message, diagnosis, post);
  if (post.deallocate !== undefined) out.deallocate = post.deallocate;
  return out;
}

/** The failed cycle's outcome once the PostFilters answered `post`. */
function unschedulableAfter(
  message: string,
  diagnosis: Diagnosis,
  post: PostFilterResult,
): CycleUnschedulable {
  // A Success's message (kube 1.37 names the placement) follows the FitError message too.
  if (post.code === 'Success' && post.nomination !== undefined) {
    const said = post.reasons.join(', ');
    return {
      kind: 'Unschedulable',
      message: said === '' ? message : `${message} ${said}`,
      diagnosis,
      nomination: post.nomination,
    };
  }
  const postMessage = post.reasons.join(', ');
  const out: CycleUnschedulable = {
    kind: 'Unschedulable',
    message: postMessage === '' ? message : `${message} ${postMessage}`,
    diagnosis,
  };
  if (post.clearsNomination === true) out.clearsNomination = true;
  return out;
}
