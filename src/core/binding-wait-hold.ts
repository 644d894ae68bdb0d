// Whether a bind holds at DRA PreBind for binding conditions, and what the held bind names.
import type { AttemptRef, ReservedClaim } from '../events/types.ts';
import {
  defaultBindingTimeoutMs,
  hasBindingConditions,
} from '../plugins/dra/binding-conditions.ts';
import type { DraArgs } from '../plugins/dra/dra-args.ts';
import type { BindingWait } from './binding-waits.ts';
import type { ClaimRef } from './commands.ts';
import type { CoreState } from './core-state.ts';

/** The plugin whose PreBind waits (kube's DynamicResources). */
export const bindingPlugin = 'DynamicResources';

/** The pod's profile's DynamicResources bindingTimeout (kube's default without one). */
function bindingTimeoutOf(core: CoreState, uid: string): number {
  const name = core.cluster.pods.get(uid)?.info.schedulerName;
  const profile = name === undefined ? undefined : core.profiles.get(name)?.profile;
  const dra = profile?.preFilter.find((p) => p.name === bindingPlugin) as
    | { args?: DraArgs }
    | undefined;
  return dra?.args?.bindingTimeoutMs ?? defaultBindingTimeoutMs;
}

/**
 * At BindRequested: the wait to hold when binding conditions are on (config) and a device
 * of the attempt's claims — allocated by its cycle, or already on the claim — has binding
 * conditions (kube's hasBindingConditions); undefined when the bind goes straight through.
 */
export function bindingWaitFor(
  core: CoreState,
  attempt: AttemptRef & { node: string },
  claims: readonly ReservedClaim[] | undefined,
): BindingWait | undefined {
  if (core.config.bindingConditions !== true || claims === undefined) return undefined;
  const waits = claims.some((c) =>
    hasBindingConditions(
      c.allocation ?? core.cluster.objects.ResourceClaim.get(c.key)?.status?.allocation,
    ),
  );
  if (!waits) return undefined;
  const { uid, key, attempt: n, node } = attempt;
  return {
    uid,
    key,
    attempt: n,
    node,
    claims: [...claims],
    timeoutMs: bindingTimeoutOf(core, uid),
  };
}

/** The held bind's claims as a CompleteBindCommand names them. */
export function claimRefsOf(wait: BindingWait | undefined): ClaimRef[] {
  return (wait?.claims ?? []).map((c) => {
    const slash = c.key.indexOf('/');
    return { namespace: c.key.slice(0, slash), name: c.key.slice(slash + 1), uid: c.uid };
  });
}
