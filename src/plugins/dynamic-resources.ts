// DynamicResources (PostFilter only): kube's first PostFilter, which deallocates idle claims; berth refuses claims.
import type { PostFilterPlugin } from '../framework/types.ts';
import { status } from '../framework/types.ts';

export const name = 'DynamicResources';

/** kube's PostFilter message for a pod without resource claims. */
export const noClaimsReason = 'no new claims to deallocate';

/**
 * kube 1.34 runs DynamicResources' PostFilter before DefaultPreemption; for a pod without
 * resource claims it answers Unschedulable "no new claims to deallocate", which is why
 * that text opens the PostFilter part of every unschedulable pod's message. berth refuses
 * pods with claims before any filter (UnsupportedConstraints), so it always answers that.
 * Its args (kube's DynamicResourcesArgs) are accepted and not read.
 */
export function dynamicResources(_args?: unknown) {
  return {
    name,
    postFilter: () => status('Unschedulable', name, noClaimsReason),
  } satisfies PostFilterPlugin;
}
