// DynamicResources PostFilter's claim write, as kube-scheduler 1.37.2 does it: an UpdateStatus without reservedFor, allocation and devices.
//
// Where berth differs from kube, and why: berth keeps no claim cache, so it reads the claim
// for the body (its resourceVersion replaced by the one the cycle saw, so a claim changed
// since fails the same way as kube's write from its cache); on a conflict kube gives up (the
// PostFilter's statusError), berth re-reads and tries again while the claim is still the
// same one, allocated and reserved for nobody or only the pod (client-go's RetryOnConflict
// steps). A claim gone, replaced, or deallocated meanwhile is done: nothing is left to free.
import type { ApiFailure } from './api-error.ts';
import type { ClaimJson, ClaimKey, ClaimRequester } from './claim-requests.ts';
import * as claims from './claim-requests.ts';

const { asClaim, claimPath, claimRef, isConflict, send } = claims;

/** The claim to deallocate: by name, the uid the cycle saw, and the resourceVersion it saw. */
export type ClaimToFree = ClaimKey & { uid: string; resourceVersion?: string };

/** How a deallocation ended: written (or nothing left to do), refused, or never sent. */
export type DeallocationOutcome =
  | { kind: 'done'; wrote: boolean }
  | { kind: 'failed'; message: string; code?: number }
  | { kind: 'ended'; fenced?: string };

/** client-go's retry.DefaultRetry steps. */
const retrySteps = 5;

/**
 * Writes `claim`'s status without `reservedFor`, `allocation` and `devices` (PUT
 * resourceclaims/status) for the pod of `podUid`, first with the resourceVersion the cycle
 * saw; a conflict re-reads and tries again (5 tries in all) while the claim may still be
 * deallocated. Never rejects.
 */
export async function deallocateClaim(
  r: ClaimRequester,
  claim: ClaimToFree,
  podUid: string,
): Promise<DeallocationOutcome> {
  let seen = claim.resourceVersion;
  let last: DeallocationOutcome = { kind: 'ended' };
  for (let step = 0; step < retrySteps; step++) {
    const read = await send(r, 'GET', claimPath(claim));
    if (read.kind === 'ended') return endedBy(read);
    if (read.kind === 'failed')
      return read.failure.code === 404
        ? { kind: 'done', wrote: false }
        : failure(`get claim ${claimRef(claim)}`, read.failure);
    const current = asClaim(read.body);
    if (current === undefined)
      return { kind: 'failed', message: `get claim ${claimRef(claim)}: not a ResourceClaim` };
    // After a conflict, only a claim that may still be deallocated is written again.
    if (step > 0 || seen === undefined) seen = current.metadata.resourceVersion;
    if (!deallocatable(current, claim.uid, podUid)) return { kind: 'done', wrote: false };
    const body = withoutAllocation(current, seen);
    const written = await send(r, 'PUT', claimPath(claim, true), body);
    if (written.kind === 'ended') return endedBy(written);
    if (written.kind === 'ok') return { kind: 'done', wrote: true };
    if (written.failure.code === 404) return { kind: 'done', wrote: false };
    last = failure(`deallocate claim ${claimRef(claim)}`, written.failure);
    if (!isConflict(written.failure)) return last;
  }
  return last;
}

/**
 * kube's condition for deallocating: the same claim (uid), allocated, and reserved for
 * nobody or only the pod.
 */
export function deallocatable(claim: ClaimJson, uid: string, podUid: string): boolean {
  if (claim.metadata.uid !== uid || claim.status?.allocation == null) return false;
  const holders = claim.status.reservedFor ?? [];
  return holders.length === 0 || (holders.length === 1 && holders[0]?.uid === podUid);
}

/** `claim` with the status kube's PostFilter writes, carrying `resourceVersion`. */
function withoutAllocation(claim: ClaimJson, resourceVersion: string | undefined): ClaimJson {
  const { reservedFor: _r, allocation: _a, devices: _d, ...status } = claim.status ?? {};
  return { ...claim, metadata: { ...claim.metadata, resourceVersion }, status };
}

function failure(step: string, f: ApiFailure): DeallocationOutcome {
  const code = f.code === undefined ? {} : { code: f.code };
  return { kind: 'failed', message: `${step}: ${f.message}`, ...code };
}

function endedBy(s: { message?: string }): DeallocationOutcome {
  return s.message === undefined ? { kind: 'ended' } : { kind: 'ended', fenced: s.message };
}
