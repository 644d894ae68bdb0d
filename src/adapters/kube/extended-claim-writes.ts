// PreBind's writes for a pod's DRA-backed extended resources, as kube-scheduler 1.37.2 makes them: create the special claim, name it in the pod's status, delete it when the bind fails.
//
// Where berth differs from kube, and why: the pod status patch carries the pod's uid (a pod
// recreated under the name is not written; kube's patch names the pod only) and is sent
// once (kube retries it on conflicts and server timeouts); the claim is deleted by its uid.
import type { ExtendedClaimSpec } from '../../events/types.ts';
import type { ApiFailure } from './api-error.ts';
import type { ClaimFailure, ClaimKey, ClaimPod, ClaimRequester } from './claim-requests.ts';
import * as requests from './claim-requests.ts';
import { PatchType } from './request-options.ts';

const { asClaim, claimPath, isConflict, send } = requests;

/** The annotation kube puts on the special claim (resourceapi.ExtendedResourceClaimAnnotation). */
export const extendedClaimAnnotation = 'resource.kubernetes.io/extended-resource-claim';
/** The finalizer removed before the claim is deleted (resourceapi.Finalizer). */
const deleteProtection = 'resource.kubernetes.io/delete-protection';

/** A claim the bind created: its name and uid. */
export type CreatedClaim = ClaimKey & { uid: string };

/** What a write came to: done (with what it made), failed (kube's message), or never sent. */
export type WriteOutcome<T> =
  | { kind: 'done'; value: T }
  | { kind: 'failed'; failure: ClaimFailure }
  | { kind: 'ended'; fenced?: string };

function failed<T>(step: string, f: ApiFailure): WriteOutcome<T> {
  const code = f.code === undefined ? {} : { code: f.code };
  return { kind: 'failed', failure: { message: `${step}: ${f.message}`, ...code } };
}

function ended<T>(s: { message?: string }): WriteOutcome<T> {
  return s.message === undefined ? { kind: 'ended' } : { kind: 'ended', fenced: s.message };
}

/**
 * The special claim as kube creates it: generateName `<pod>-extended-resources-`, the
 * extended-resource annotation, the pod as its controlling owner, and the node's requests.
 */
export function extendedClaimBody(pod: ClaimPod, spec: ExtendedClaimSpec): unknown {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: {
      namespace: pod.namespace,
      generateName: `${pod.name}-extended-resources-`,
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid, controller: true },
      ],
      annotations: { [extendedClaimAnnotation]: 'true' },
    },
    spec: { devices: { requests: spec.requests } },
  };
}

/** POSTs the special claim for `pod`; the created claim's name and uid. Never rejects. */
export async function createExtendedClaim(
  r: ClaimRequester,
  pod: ClaimPod,
  spec: ExtendedClaimSpec,
): Promise<WriteOutcome<CreatedClaim>> {
  const path = `/apis/resource.k8s.io/v1/namespaces/${encodeURIComponent(pod.namespace)}/resourceclaims`;
  const sent = await send(r, 'POST', path, extendedClaimBody(pod, spec));
  // kube names the claim by klog.KObj after clearing its name: `ns/`.
  const step = `create claim for extended resources ${pod.namespace}/`;
  if (sent.kind === 'ended') return ended(sent);
  if (sent.kind === 'failed') return failed(step, sent.failure);
  const claim = asClaim(sent.body);
  const name = claim?.metadata.name;
  const uid = claim?.metadata.uid;
  if (typeof name !== 'string' || typeof uid !== 'string')
    return { kind: 'failed', failure: { message: `${step}: the answer is not a ResourceClaim` } };
  return { kind: 'done', value: { namespace: pod.namespace, name, uid } };
}

/**
 * kube's patchPodExtendedResourceClaimStatus: a strategic merge patch of the pod's status
 * naming the claim and which of its requests serves each container's resource.
 */
export async function patchExtendedStatus(
  r: ClaimRequester,
  pod: ClaimPod,
  claimName: string,
  spec: ExtendedClaimSpec,
): Promise<WriteOutcome<undefined>> {
  const step = `update pod ${pod.namespace}/${pod.name} ExtendedResourceClaimStatus`;
  if (spec.mappings.length === 0)
    return {
      kind: 'failed',
      failure: {
        message: `nil or empty request mappings, no update of pod ${pod.namespace}/${pod.name} ExtendedResourceClaimStatus`,
      },
    };
  const path = `/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/${encodeURIComponent(pod.name)}/status`;
  const patch = {
    metadata: { uid: pod.uid },
    status: {
      extendedResourceClaimStatus: { requestMappings: spec.mappings, resourceClaimName: claimName },
    },
  };
  const sent = await send(r, 'PATCH', path, patch, PatchType.StrategicMerge);
  if (sent.kind === 'ended') return ended(sent);
  if (sent.kind === 'failed') return failed(step, sent.failure);
  return { kind: 'done', value: undefined };
}

/** client-go's retry.DefaultRetry steps. */
const retrySteps = 5;

/**
 * kube's deleteClaim for the special claim a failed bind created: drops the delete-protection
 * finalizer (an update, retried on conflict), then deletes the claim by its uid. A claim
 * already gone is done. Never rejects; the failure, if any, is returned for the log.
 */
export async function deleteExtendedClaim(
  r: ClaimRequester,
  claim: CreatedClaim,
): Promise<WriteOutcome<undefined>> {
  const ref = `${claim.namespace}/${claim.name}`;
  for (let step = 0; step < retrySteps; step++) {
    const read = await send(r, 'GET', claimPath(claim));
    if (read.kind === 'ended') return ended(read);
    if (read.kind === 'failed')
      return read.failure.code === 404
        ? { kind: 'done', value: undefined }
        : failed(`get resourceclaim ${ref}`, read.failure);
    const current = asClaim(read.body);
    if (current === undefined || current.metadata.uid !== claim.uid)
      return { kind: 'done', value: undefined };
    const finalizers = current.metadata.finalizers ?? [];
    if (!finalizers.includes(deleteProtection)) break;
    const body = {
      ...current,
      metadata: {
        ...current.metadata,
        finalizers: finalizers.filter((f) => f !== deleteProtection),
      },
    };
    const updated = await send(r, 'PUT', claimPath(claim), body);
    if (updated.kind === 'ended') return ended(updated);
    if (updated.kind === 'ok') break;
    if (updated.failure.code === 404) return { kind: 'done', value: undefined };
    if (!isConflict(updated.failure) || step === retrySteps - 1)
      return failed(`update resourceclaim ${ref}`, updated.failure);
  }
  const options = { preconditions: { uid: claim.uid } };
  const deleted = await send(r, 'DELETE', claimPath(claim), options);
  if (deleted.kind === 'ended') return ended(deleted);
  if (deleted.kind === 'failed' && deleted.failure.code !== 404)
    return failed(`delete resourceclaim ${ref}`, deleted.failure);
  return { kind: 'done', value: undefined };
}
