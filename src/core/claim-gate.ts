// DynamicResources' PreEnqueue: a pod whose resource claims do not all exist yet waits, gated, until they do.
import type { ClusterChange, PodInfo } from '../cluster/types.ts';
import { name as dynamicResources } from '../plugins/dra/claims-cycle.ts';
import { podClaims } from '../plugins/dra/pod-claims.ts';
import type { CoreState } from './core-state.ts';

/**
 * Why pod `info` must wait before any cycle (kube's DynamicResources PreEnqueue), or
 * undefined: a claim made from a template that the resourceclaim controller has not made
 * (or not named in the pod's status) yet, a claim that does not exist, one being deleted,
 * or one made for another pod. Only where its profile runs DynamicResources, and only when
 * the configuration allocates claims (older logs refused such pods instead).
 */
export function claimGate(core: CoreState, info: PodInfo): string | undefined {
  if (info.resourceClaims === undefined || core.config.resourceClaims !== true) return undefined;
  const profile = core.profiles.get(info.schedulerName)?.profile;
  if (profile === undefined || !profile.preFilter.some((p) => p.name === dynamicResources))
    return undefined;
  const found = podClaims(info, core.cluster.objects.ResourceClaim);
  return 'message' in found ? found.message : undefined;
}

/**
 * A ResourceClaim was added, changed or deleted: the gated pods of its namespace that name
 * it go back to the queue, where the gate is asked again before their cycle (a pod still
 * waiting for another claim is gated again there). kube's queueing hint for PreEnqueue.
 */
export function releaseClaimWaiters(core: CoreState, change: ClusterChange): void {
  if (change.kind !== 'object' || change.objectKind !== 'ResourceClaim') return;
  const slash = change.key.indexOf('/');
  const namespace = change.key.slice(0, slash);
  const claimName = change.key.slice(slash + 1);
  const waiting: string[] = [];
  for (const uid of core.pods.uids()) {
    if (core.pods.stateOf(uid) !== 'gated') continue;
    const info = core.cluster.pods.get(uid)?.info;
    if (info?.resourceClaims === undefined || info.namespace !== namespace) continue;
    if (info.schedulingGates.length > 0) continue;
    if (info.resourceClaims.some((c) => (c.claimName ?? c.generatedName) === claimName))
      waiting.push(uid);
  }
  for (const uid of waiting) core.pods.send(uid, { type: 'UNGATED' });
}
