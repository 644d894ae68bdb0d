// DRA PreBind and Unreserve as kube-scheduler 1.37.2's DynamicResources does them: a bind's ResourceClaims get the finalizer, allocation and the pod in reservedFor, and lose the pod again when the bind fails.
//
// The wait for devices' binding conditions that follows the writes is the core's (see
// src/core/binding-wait-steps.ts): the binder reports ClaimsReserved and binds when told.
//
// Where berth differs from kube, and why: berth keeps no claim cache, so the first try reads
// the claim too; a claim whose uid changed counts as deleted (kube would write to the new
// one); a claim already reserved for the pod is skipped on every read, not only before the
// first (after a conflict, appending the pod again would be refused as a duplicate); a claim
// another member of the pod's group allocated with the same devices (a shared pending
// allocation) is only reserved, where kube fails "allocated elsewhere"; and an
// allocation already on the claim is never stamped with `allocationTimestamp` (kube 1.37
// stamps one that lacks it, a change the API server refuses: the allocation is immutable).
import type { Logger } from 'pino';
import type { ClaimBinding } from '../../core/commands.ts';
import type { ApiFailure } from './api-error.ts';
import {
  asClaim,
  type ClaimFailure,
  type ClaimJson,
  type ClaimKey,
  type ClaimPod,
  type ClaimRequester,
  claimPath,
  claimRef,
  isConflict,
  reservedFor,
  send,
} from './claim-requests.ts';
import {
  type CreatedClaim,
  createExtendedClaim,
  patchExtendedStatus,
} from './extended-claim-writes.ts';
import { PatchType } from './request-options.ts';

/** The finalizer that keeps an allocated claim until it is deallocated (resourceapi.Finalizer). */
export const claimFinalizer = 'resource.kubernetes.io/delete-protection';

/** What PreBind needs: the claim requests, a wall clock for `allocationTimestamp`, a log. */
export interface ClaimWriter extends ClaimRequester {
  now: () => Date;
  log: Logger;
}

export type { ClaimFailure, ClaimPod };

/**
 * What PreBind came to. `reserved`: the claims now reserved for the pod (written by this
 * bind, or found so), which Unreserve takes it out of. `ended`: the binder stopped or the
 * fence refused a write; nothing more may be sent, nothing is reported.
 */
export type PreBindOutcome = (
  | { kind: 'reserved'; reserved: ReservedClaim[] }
  | { kind: 'failed'; reserved: ReservedClaim[]; failure: ClaimFailure }
  | { kind: 'ended'; reserved: ReservedClaim[]; fenced?: string }
) & {
  /** The special claim of the pod's DRA-backed extended resources, once created (Unreserve deletes it). */
  created?: CreatedClaim;
};

/** A claim reserved for the pod, by name and the uid an Unreserve patch carries. */
export type ReservedClaim = ClaimKey & { uid: string };

/** One try of a claim (kube's RetryOnConflict body): done, ended, or failed (a conflict retries). */
type Try =
  | { kind: 'done' }
  /** Stopped, or refused by the fence (`fenced` says why). */
  | { kind: 'ended'; fenced?: string }
  | { kind: 'failed'; failure: ClaimFailure; conflict: boolean };

/** client-go's retry.DefaultRetry: 5 tries, 10 ms apart with up to 10 % jitter. */
const retrySteps = 5;
const retryDelayMs = 10;
const retryJitter = 0.1;

/**
 * Kube's PreBind for `claims`, in order: each claim not yet reserved for `pod` (or for the
 * PodGroup the binding names) gets (with an allocation) the delete-protection finalizer by an
 * update, then `status.allocation` (with `allocationTimestamp`) and the pod (or its PodGroup)
 * in `status.reservedFor` by one status update; (without) only that entry. A conflict refetches and tries again, 5 tries in all. Stops at
 * the first claim that fails. Never rejects.
 */
export async function reserveClaims(
  w: ClaimWriter,
  pod: ClaimPod,
  claims: readonly ClaimBinding[],
): Promise<PreBindOutcome> {
  const reserved: ReservedClaim[] = [];
  let created: CreatedClaim | undefined;
  const made = () => (created === undefined ? {} : { created });
  for (const claim of claims) {
    let binding = claim;
    const { extended } = claim;
    if (extended !== undefined) {
      // kube's bindClaim creates the special claim first, then writes it as any other.
      const out = await createExtendedClaim(w, pod, extended);
      if (out.kind === 'ended') return { ...out, reserved };
      if (out.kind === 'failed') return { kind: 'failed', reserved, failure: out.failure };
      created = out.value;
      const allocation = claim.allocation === undefined ? {} : { allocation: claim.allocation };
      binding = { ...created, ...allocation };
    }
    const outcome = await bindClaim(w, pod, binding);
    if (outcome.kind === 'ended') return { ...outcome, reserved, ...made() };
    if (outcome.kind === 'failed')
      return { kind: 'failed', reserved, failure: outcome.failure, ...made() };
    if (extended === undefined) {
      reserved.push({ namespace: claim.namespace, name: claim.name, uid: claim.uid });
      continue;
    }
    const patched = await patchExtendedStatus(w, pod, binding.name, extended);
    if (patched.kind === 'ended') return { ...patched, reserved, ...made() };
    if (patched.kind === 'failed')
      return { kind: 'failed', reserved, failure: patched.failure, ...made() };
  }
  return { kind: 'reserved', reserved, ...made() };
}

/** kube's bindClaim: tries until done, a failure other than a conflict, or 5 conflicts. */
async function bindClaim(w: ClaimWriter, pod: ClaimPod, claim: ClaimBinding): Promise<Try> {
  let last: Try = { kind: 'ended' };
  for (let step = 0; step < retrySteps; step++) {
    if (step > 0) {
      await sleep(retryDelayMs * (1 + Math.random() * retryJitter));
      w.log.debug({ claim: claimRef(claim), pod: pod.name }, 'retrying update after conflict');
    }
    last = await tryClaim(w, pod, claim, step > 0);
    if (last.kind !== 'failed' || !last.conflict) return last;
  }
  return last;
}

/**
 * One try: reads the claim (berth keeps no claim cache, so the first try reads it too), checks
 * it as kube does, and writes what is missing. A claim whose uid changed was deleted.
 */
async function tryClaim(
  w: ClaimWriter,
  pod: ClaimPod,
  binding: ClaimBinding,
  refresh: boolean,
): Promise<Try> {
  const ref = claimRef(binding);
  const read = await send(w, 'GET', claimPath(binding));
  const what = refresh ? `get updated claim ${ref} after conflict` : `get claim ${ref}`;
  if (read.kind === 'ended') return ended(read);
  if (read.kind === 'failed') return failed(what, read.failure);
  let claim = asClaim(read.body);
  if (claim === undefined) return checkFailed(`${what}: the answer is not a ResourceClaim`);
  if (claim.metadata.uid !== binding.uid)
    return checkFailed(`claim ${ref} got deleted in the meantime`);
  const consumer = consumerOf(pod, binding);
  // kube's PreBind skips a claim already reserved for the pod, or for its PodGroup (an earlier
  // attempt, or another member, got this far).
  if (reservedFor(claim, consumer.uid)) return { kind: 'done' };
  if (claim.metadata.deletionTimestamp !== undefined)
    return checkFailed(`claim ${ref} got deleted in the meantime`);
  let { allocation } = binding;
  if (allocation !== undefined && claim.status?.allocation != null) {
    // Another member of the pod's group wrote the allocation they share: only reserve.
    if (!sameDevices(claim.status.allocation, allocation))
      return checkFailed(`claim ${ref} got allocated elsewhere in the meantime`);
    allocation = undefined;
  }
  if (allocation !== undefined) {
    // The finalizer goes on by a normal update, before the allocation is written.
    const finalizers = claim.metadata.finalizers ?? [];
    if (!finalizers.includes(claimFinalizer)) {
      const body = {
        ...claim,
        metadata: { ...claim.metadata, finalizers: [...finalizers, claimFinalizer] },
      };
      const updated = await send(w, 'PUT', claimPath(binding), body);
      if (updated.kind === 'ended') return ended(updated);
      if (updated.kind === 'failed')
        return failed(`add finalizer to claim ${ref}`, updated.failure);
      claim = asClaim(updated.body) ?? body;
    }
  } else if (claim.status?.allocation == null)
    return checkFailed(`claim ${ref} got deallocated elsewhere in the meantime`);
  const body = withReservation(claim, consumer, allocation, w.now());
  const written = await send(w, 'PUT', claimPath(binding, true), body);
  if (written.kind === 'ended') return ended(written);
  if (written.kind === 'failed') {
    const step =
      allocation === undefined
        ? 'add reservation to claim'
        : 'add allocation and reservation to claim';
    return failed(`${step} ${ref}`, written.failure);
  }
  return { kind: 'done' };
}

/** The devices an allocation gives, each as `request driver/pool/device`, sorted. */
function devicesOf(allocation: unknown): string[] {
  const devices = (allocation as { devices?: { results?: unknown } } | null)?.devices;
  const results = Array.isArray(devices?.results) ? devices.results : [];
  return results
    .map((r: Record<string, unknown>) => `${r.request} ${r.driver}/${r.pool}/${r.device}`)
    .sort();
}

/** True when the claim's allocation gives the devices `allocation` gives (a shared one). */
function sameDevices(
  onClaim: unknown,
  allocation: NonNullable<ClaimBinding['allocation']>,
): boolean {
  const a = devicesOf(onClaim);
  const b = devicesOf(allocation);
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/**
 * `claim` with `consumer` appended to `status.reservedFor` and, when given, `allocation` as
 * `status.allocation`, stamped now (RFC 3339 seconds, as metav1.Time) unless it has a
 * timestamp. An allocation already on the claim is left as it is: the API server refuses any
 * change to it.
 */
function withReservation(
  claim: ClaimJson,
  consumer: Consumer,
  allocation: ClaimBinding['allocation'],
  now: Date,
): ClaimJson {
  const status = { ...claim.status };
  if (allocation !== undefined)
    status.allocation = {
      ...allocation,
      allocationTimestamp: allocation.allocationTimestamp ?? rfc3339(now),
    };
  status.reservedFor = [...(status.reservedFor ?? []), consumer];
  return { ...claim, status };
}

/** A `reservedFor` entry: the pod, or its core PodGroup (apiGroup scheduling.k8s.io). */
type Consumer = { apiGroup?: string; resource: string; name: string; uid: string };

/** Who the claim is reserved for (kube's BindTo): the binding's PodGroup, else the pod. */
function consumerOf(pod: ClaimPod, binding: ClaimBinding): Consumer {
  const group = binding.podGroup;
  return group === undefined
    ? { resource: 'pods', name: pod.name, uid: pod.uid }
    : { apiGroup: 'scheduling.k8s.io', resource: 'podgroups', name: group.name, uid: group.uid };
}

/**
 * Kube's Unreserve: takes the pod out of each claim's `status.reservedFor` by a strategic
 * merge patch of the status subresource that carries the claim's uid (so a claim recreated
 * under the name is left alone), without reading the claim. The allocation stays (kube's
 * PostFilter deallocates claims no pod uses). Failures are logged; stops sending once the
 * binder stopped or the fence refuses. Never rejects.
 */
export async function unreserveClaims(
  w: ClaimWriter,
  pod: ClaimPod,
  claims: readonly ReservedClaim[],
): Promise<void> {
  for (const claim of claims) {
    const patch = {
      metadata: { uid: claim.uid },
      status: { reservedFor: [{ $patch: 'delete', uid: pod.uid }] },
    };
    const sent = await send(w, 'PATCH', claimPath(claim, true), patch, PatchType.StrategicMerge);
    const fields = { claim: claimRef(claim), pod: `${pod.namespace}/${pod.name}`, uid: pod.uid };
    if (sent.kind === 'ended') return;
    if (sent.kind === 'ok') w.log.debug(fields, 'unreserved claim');
    else
      w.log.error({ ...fields, code: sent.failure.code, err: sent.failure.message }, 'unreserve');
  }
}

function failed(step: string, f: ApiFailure): Try {
  const code = f.code === undefined ? {} : { code: f.code };
  return {
    kind: 'failed',
    failure: { message: `${step}: ${f.message}`, ...code },
    conflict: isConflict(f),
  };
}

function ended(s: { message?: string }): Try {
  return s.message === undefined ? { kind: 'ended' } : { kind: 'ended', fenced: s.message };
}

function checkFailed(message: string): Try {
  return { kind: 'failed', failure: { message }, conflict: false };
}

/** metav1.Time's JSON: RFC 3339 in UTC, whole seconds. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
