// The ResourceClaims a pod uses, found as kube's DynamicResources finds them, with its messages when one is missing or not the pod's.

import type { CorePodGroupInfo } from '../../cluster/core-pod-groups.ts';
import { sharedGroupClaim } from '../../cluster/pod-group-claims.ts';
import type { PodInfo } from '../../cluster/types.ts';
import type { PodGroupRef } from '../../events/types.ts';
import type { ResourceClaimInfo } from '../../model/dra-types.ts';

/** kube's error when a claim from a template has not been created yet. */
export const claimNotCreatedYet = 'ResourceClaim not created yet';
/** kube's error when a pod's claim entry names neither a claim nor a template. */
export const noSupportedFields = 'none of the supported fields are set';

/** A claim of the pod: the pod's name for it and the claim object. */
export interface PodClaim {
  readonly podClaimName: string;
  readonly claim: ResourceClaimInfo;
}

/**
 * The pod's claims in `spec.resourceClaims` order (entries whose template the controller
 * decided needs no claim are skipped), or why the pod cannot be scheduled yet, worded as
 * kube's PreEnqueue and PreFilter word it: a template claim not created yet, a claim that
 * does not exist, one being deleted, or one made from a template for another pod.
 * `claims` is the store of ResourceClaims by `namespace/name`.
 */
export function podClaims(
  pod: PodInfo,
  claims: ReadonlyMap<string, ResourceClaimInfo>,
): { claims: PodClaim[] } | { message: string } {
  const out: PodClaim[] = [];
  for (const entry of pod.resourceClaims ?? []) {
    let name: string;
    let mustBeOwner = false;
    if (entry.claimName !== undefined) name = entry.claimName;
    else if (entry.templateName !== undefined) {
      if (entry.generatedName === undefined)
        return { message: `pod "${pod.key}": ${claimNotCreatedYet}` };
      if (entry.generatedName === null) continue;
      name = entry.generatedName;
      mustBeOwner = true;
    } else
      return {
        message: `pod "${pod.key}", spec.resourceClaim "${entry.name}": ${noSupportedFields}`,
      };
    const claim = claims.get(`${pod.namespace}/${name}`);
    // kube's claim assume cache words its miss so.
    if (claim === undefined)
      return { message: `could not find ResourceClaim "${pod.namespace}/${name}"` };
    if (claim.deletionTimestamp !== undefined)
      return { message: `resourceclaim "${name}" is being deleted` };
    if (mustBeOwner && !isForPod(pod, claim)) {
      const group = pod.schedulingGroup;
      const why =
        group === undefined ? 'Pod is not owner' : `neither Pod nor PodGroup ${group} is the owner`;
      return {
        message: `ResourceClaim ${pod.namespace}/${name} was not created for Pod ${pod.key} (${why})`,
      };
    }
    out.push({ podClaimName: entry.name, claim });
  }
  return { claims: out };
}

/**
 * kube's resourceclaim.IsForPod with DRAWorkloadResourceClaims on: a template's claim is the
 * pod's own, or its core PodGroup's (made from the group's `spec.resourceClaims`).
 */
function isForPod(pod: PodInfo, claim: ResourceClaimInfo): boolean {
  if (claim.ownerPodUid === pod.uid) return true;
  return pod.schedulingGroup !== undefined && claim.ownerPodGroup === pod.schedulingGroup;
}

/**
 * kube's BindTo for each of `claims` (the pod's, from podClaims): its core PodGroup when the
 * pod's entry matches one of the group's `spec.resourceClaims` exactly (the claim is then
 * reserved for the group), else undefined (the pod). Undefined for a pod in no such group.
 * `groups` is the store of core PodGroups by `namespace/name`.
 */
export function claimBindings(
  pod: PodInfo,
  claims: readonly PodClaim[],
  groups: ReadonlyMap<string, CorePodGroupInfo>,
): (PodGroupRef | undefined)[] | undefined {
  if (pod.schedulingGroup === undefined) return undefined;
  const group = groups.get(`${pod.namespace}/${pod.schedulingGroup}`)?.resourceClaims;
  const uid = group?.podGroupUid;
  if (group === undefined || uid === undefined) return undefined;
  const ref = { name: pod.schedulingGroup, uid };
  return claims.map(({ podClaimName }) => {
    const entry = pod.resourceClaims?.find((e) => e.name === podClaimName);
    return entry !== undefined && sharedGroupClaim(group, entry) !== undefined ? ref : undefined;
  });
}
