// DynamicResources (PostFilter only): kube's first PostFilter, which deallocates idle claims; berth refuses claims.
import type { PostFilterPlugin } from '../framework/types.ts';
import { status } from '../framework/types.ts';

export const name = 'DynamicResources';

/** kube's PostFilter message for a pod without resource claims. */
export const noClaimsReason = 'no new claims to deallocate';
/**
 * kube's PostFilter error when its PreFilter never ran (an earlier PreFilter stopped the
 * loop): reading its cycle state fails, and that error ends the PostFilters.
 */
export const noStateReason = 'not found';

/**
 * kube 1.34 runs DynamicResources' PostFilter before DefaultPreemption; for a pod without
 * resource claims it answers Unschedulable "no new claims to deallocate", which is why
 * that text opens the PostFilter part of every unschedulable pod's message. berth refuses
 * pods with claims before any filter (UnsupportedConstraints), so it always answers that —
 * unless a PreFilter stopped the PreFilter loop before kube's DynamicResources PreFilter
 * (the last one) wrote its state: then kube's answer is the Error "not found", which ends
 * the PostFilters (no preemption) and is what the message says after the filters' sentence.
 * Its args (kube's DynamicResourcesArgs) are accepted and not read.
 */
export function dynamicResources(_args?: unknown) {
  return {
    name,
    postFilter: (_pod, args) =>
      args.preFiltersCompleted
        ? status('Unschedulable', name, noClaimsReason)
        : status('Error', name, noStateReason),
  } satisfies PostFilterPlugin;
}
