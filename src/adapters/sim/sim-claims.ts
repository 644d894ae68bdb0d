// The simulated API server's ResourceClaims: storage with resourceVersions and watch events, kube-scheduler's PreBind writes and its Unreserve.

import { isDeepStrictEqual } from 'node:util';
import type { ClaimBinding } from '../../core/commands.ts';
import type { BindFailureReason, InputEvent } from '../../events/types.ts';
import { podKey } from '../../model/keys.ts';
import { isRecord, type JsonRecord } from '../../model/record.ts';
import { extendedClaimBody } from '../kube/extended-claim-writes.ts';
import { trimObject } from '../trim.ts';
import { generatedName } from './sim-claim-names.ts';

/** The finalizer kube-scheduler puts on a claim it allocates (`resourceapi.Finalizer`). */
export const deleteProtectionFinalizer = 'resource.kubernetes.io/delete-protection';
/** The most entries `status.reservedFor` may hold (`ResourceClaimReservedForMaxSize`). */
export const maxReservedFor = 256;

/** A pod as a claim's consumer names it. */
export interface ClaimPod {
  namespace: string;
  name: string;
  uid: string;
}

/** Why a claim write was refused, as kube-scheduler's PreBind reports it. */
export interface ClaimRefusal {
  reason: BindFailureReason;
  message: string;
}

/** The claim's metadata (an empty record when malformed). */
export function claimMeta(claim: JsonRecord): JsonRecord {
  return isRecord(claim.metadata) ? claim.metadata : {};
}

/** The claim's status (an empty record when absent or malformed). */
export function claimStatus(claim: JsonRecord): JsonRecord {
  return isRecord(claim.status) ? claim.status : {};
}

/** The claim's `status.reservedFor` entries that are objects. */
export function reservedFor(claim: JsonRecord): JsonRecord[] {
  const list = claimStatus(claim).reservedFor;
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

/** The claim's finalizers that are strings. */
export function finalizersOf(claim: JsonRecord): string[] {
  const list = claimMeta(claim).finalizers;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [];
}

/** The uid of the pod that controls the claim (ownerReferences), if any. */
export function ownerPod(claim: JsonRecord): { name: string; uid: string } | undefined {
  const owners = claimMeta(claim).ownerReferences;
  if (!Array.isArray(owners)) return undefined;
  for (const o of owners)
    if (isRecord(o) && o.controller === true && o.apiVersion === 'v1' && o.kind === 'Pod')
      if (typeof o.name === 'string' && typeof o.uid === 'string')
        return { name: o.name, uid: o.uid };
  return undefined;
}

/** True when `claim.status.reservedFor` names the pod of `uid`. */
export function isReservedFor(claim: JsonRecord, uid: string): boolean {
  return reservedFor(claim).some((r) => r.resource === 'pods' && !r.apiGroup && r.uid === uid);
}

/** The claim with `status` replaced by `status` (keys set to undefined are dropped). */
export function withStatus(claim: JsonRecord, status: JsonRecord): JsonRecord {
  const next: JsonRecord = {};
  for (const [k, v] of Object.entries(status)) if (v !== undefined) next[k] = v;
  return { ...claim, status: next };
}

/** An allocation without its `allocationTimestamp` (two writes of one allocation compare equal). */
function unstamped(allocation: unknown): unknown {
  if (!isRecord(allocation) || allocation.allocationTimestamp === undefined) return allocation;
  const { allocationTimestamp: _, ...rest } = allocation;
  return rest;
}

/** The claim with its finalizers replaced. */
export function withFinalizers(claim: JsonRecord, finalizers: string[]): JsonRecord {
  const { finalizers: _, ...meta } = claimMeta(claim);
  return { ...claim, metadata: finalizers.length > 0 ? { ...meta, finalizers } : meta };
}

/**
 * The ResourceClaims the simulated API server holds, by `namespace/name`. Every write gives
 * the claim a new resourceVersion and emits its watch event through `emit`, as the server's
 * watch does; a deletion of a claim with finalizers only marks it (deletionTimestamp).
 */
export class SimClaims {
  private readonly claims = new Map<string, JsonRecord>();
  /** Keys of the claims each pod (uid) controls: kube's claimPodOwnerIndex. */
  private readonly byOwner = new Map<string, Set<string>>();
  private version = 0;
  private uids = 0;

  constructor(
    private readonly emit: (event: InputEvent) => void,
    initial: readonly JsonRecord[] = [],
  ) {
    for (const raw of initial) {
      const meta = claimMeta(raw);
      const uid = typeof meta.uid === 'string' && meta.uid !== '' ? meta.uid : this.nextUid();
      const claim = { ...raw, metadata: { ...meta, uid } };
      this.store(this.keyOf(claim), claim);
      // Later writes get higher resourceVersions than any given, as on one etcd.
      const rv = Number(meta.resourceVersion);
      if (Number.isSafeInteger(rv) && rv > this.version) this.version = rv;
    }
    for (const [key, claim] of this.claims)
      if (typeof claimMeta(claim).resourceVersion !== 'string')
        this.store(key, {
          ...claim,
          metadata: { ...claimMeta(claim), resourceVersion: this.nextRv() },
        });
  }

  /** The claim stored under `namespace/name`. */
  get(key: string): JsonRecord | undefined {
    return this.claims.get(key);
  }

  /** True when a claim is stored under `key`. */
  has(key: string): boolean {
    return this.claims.has(key);
  }

  /** Every stored claim, in creation order. */
  all(): JsonRecord[] {
    return [...this.claims.values()];
  }

  /** The key of a raw claim (`namespace/name`, namespace defaulting to `default`). */
  keyOf(claim: JsonRecord): string {
    const meta = claimMeta(claim);
    const ns = typeof meta.namespace === 'string' ? meta.namespace : undefined;
    return podKey(ns, String(meta.name));
  }

  /** Stores a new claim with a fresh uid and resourceVersion and emits it; returns it. */
  create(raw: JsonRecord, creationTimestamp: string): JsonRecord {
    const meta = claimMeta(raw);
    const claim = {
      ...raw,
      metadata: { ...meta, uid: this.nextUid(), resourceVersion: this.nextRv(), creationTimestamp },
    };
    this.store(this.keyOf(claim), claim);
    this.emit({
      type: 'ObjectUpserted',
      kind: 'ResourceClaim',
      object: trimObject('ResourceClaim', claim),
    });
    return claim;
  }

  /**
   * Writes `claim` over the stored one of its key with a new resourceVersion and emits it;
   * a claim being deleted whose last finalizer goes is removed instead. Returns what is stored.
   */
  update(claim: JsonRecord): JsonRecord | undefined {
    const key = this.keyOf(claim);
    if (claimMeta(claim).deletionTimestamp !== undefined && finalizersOf(claim).length === 0) {
      this.remove(key);
      return undefined;
    }
    const stored = { ...claim, metadata: { ...claimMeta(claim), resourceVersion: this.nextRv() } };
    this.store(key, stored);
    this.emit({
      type: 'ObjectUpserted',
      kind: 'ResourceClaim',
      object: trimObject('ResourceClaim', stored),
    });
    return stored;
  }

  /** Deletes as the API server does: marks a claim with finalizers, removes any other. */
  delete(key: string, now: string): void {
    const claim = this.claims.get(key);
    if (claim === undefined) return;
    if (finalizersOf(claim).length === 0) this.remove(key);
    else if (claimMeta(claim).deletionTimestamp === undefined)
      this.update({ ...claim, metadata: { ...claimMeta(claim), deletionTimestamp: now } });
  }

  /**
   * kube-scheduler's PreBind for `pod`: for each binding in order, unless the claim is already
   * reserved for the pod, adds the finalizer (its own update) and writes the allocation when
   * the binding carries one (stamped `allocationTimestamp`, when given, as kube 1.37 stamps
   * it), then appends the pod to `reservedFor` (a status update). Stops
   * at the first refusal and returns it: the claim gone, replaced or being deleted, already
   * allocated to other devices, or reserved for too many consumers.
   */
  reserve(
    pod: ClaimPod,
    bindings: readonly ClaimBinding[],
    timestamp?: string,
  ): ClaimRefusal | undefined {
    for (const b of bindings) {
      const refusal = this.reserveOne(pod, b, timestamp);
      if (refusal !== undefined) return refusal;
    }
    return undefined;
  }

  /**
   * kube-scheduler's PreBind creating the special claim of the pod's DRA-backed extended
   * resources (generateName `<pod>-extended-resources-`, the annotation, the pod as its
   * controller); the binding that then writes it as any claim.
   */
  createExtended(pod: ClaimPod, b: ClaimBinding, now: string): ClaimBinding {
    const taken = (n: string) => this.claims.has(podKey(pod.namespace, n));
    const generateName = `${pod.name}-extended-resources-`;
    const seed = `${pod.namespace}/${pod.name}/${pod.uid}/<extended-resources>`;
    const raw = extendedClaimBody(pod, b.extended ?? { requests: [], mappings: [] }) as JsonRecord;
    const { generateName: _, ...rest } = claimMeta(raw);
    const meta = { ...rest, name: generatedName(generateName, seed, taken) };
    const created = claimMeta(this.create({ ...raw, metadata: meta }, now));
    const allocation = b.allocation === undefined ? {} : { allocation: b.allocation };
    return {
      namespace: pod.namespace,
      name: String(created.name),
      uid: String(created.uid),
      ...allocation,
    };
  }

  /** kube's deleteClaim: the finalizer off, then the claim deleted (a failed bind's special claim). */
  deleteCreated(key: string, now: string): void {
    const claim = this.claims.get(key);
    if (claim === undefined) return;
    const rest = finalizersOf(claim).filter((f) => f !== deleteProtectionFinalizer);
    const kept = this.update(withFinalizers(claim, rest));
    if (kept !== undefined) this.delete(key, now);
  }

  /**
   * kube-scheduler's Unreserve: takes the pod out of `reservedFor` of each binding's claim
   * that is still the same claim (uid), allocated and reserved for it; the allocation stays.
   * Returns the keys of the claims written.
   */
  unreserve(pod: ClaimPod, bindings: readonly ClaimBinding[]): string[] {
    const written: string[] = [];
    for (const b of bindings) {
      const key = podKey(b.namespace, b.name);
      const claim = this.claims.get(key);
      if (claim === undefined || claimMeta(claim).uid !== b.uid) continue;
      if (claimStatus(claim).allocation === undefined || !isReservedFor(claim, pod.uid)) continue;
      const rest = reservedFor(claim).filter((r) => r.uid !== pod.uid);
      const status = { ...claimStatus(claim), reservedFor: rest.length > 0 ? rest : undefined };
      this.update(withStatus(claim, status));
      written.push(key);
    }
    return written;
  }

  /**
   * kube-scheduler's PostFilter deallocation for the pod of `podUid`: the claim of `key`, if
   * it is still the claim of `uid`, allocated, and reserved for nobody or only that pod, loses
   * `reservedFor`, `allocation` and `devices` (one status update; a write on a newer
   * resourceVersion is the API server's conflict, which the writer retries on the claim it
   * re-reads, so only the claim as it is now counts). True when it was written.
   */
  deallocate(key: string, uid: string, podUid: string): boolean {
    const claim = this.claims.get(key);
    if (claim === undefined || claimMeta(claim).uid !== uid) return false;
    const { reservedFor: holders, allocation, devices: _d, ...rest } = claimStatus(claim);
    if (allocation === undefined) return false;
    const held = Array.isArray(holders) ? (holders as JsonRecord[]) : [];
    if (held.length > 1 || (held.length === 1 && held[0]?.uid !== podUid)) return false;
    this.update(withStatus(claim, rest));
    return true;
  }

  private reserveOne(
    pod: ClaimPod,
    b: ClaimBinding,
    timestamp: string | undefined,
  ): ClaimRefusal | undefined {
    const key = podKey(b.namespace, b.name);
    let claim = this.claims.get(key);
    const ref = `${b.namespace}/${b.name}`;
    if (claim === undefined || claimMeta(claim).uid !== b.uid)
      return { reason: 'NotFound', message: `claim ${ref} got deleted in the meantime` };
    // kube's BindTo: the claim is reserved for the member's PodGroup, once, or for the pod.
    const group = b.podGroup;
    const consumer =
      group === undefined
        ? { resource: 'pods', name: pod.name, uid: pod.uid }
        : { apiGroup: 'scheduling.k8s.io', resource: 'podgroups', ...group };
    if (reservedFor(claim).some((r) => r.uid === consumer.uid)) return undefined;
    if (claimMeta(claim).deletionTimestamp !== undefined)
      return { reason: 'NotFound', message: `claim ${ref} got deleted in the meantime` };
    const current = unstamped(claimStatus(claim).allocation);
    if (
      b.allocation !== undefined &&
      current !== undefined &&
      !isDeepStrictEqual(current, unstamped(b.allocation))
    )
      return {
        reason: 'Conflict',
        message: `claim ${ref} got allocated elsewhere in the meantime`,
      };
    const consumers = reservedFor(claim);
    if (consumers.length >= maxReservedFor)
      return {
        reason: 'Error',
        message: `add reservation to claim ${ref}: status.reservedFor: Too many: ${consumers.length + 1}: must have at most ${maxReservedFor} items`,
      };
    if (b.allocation !== undefined && !finalizersOf(claim).includes(deleteProtectionFinalizer))
      claim =
        this.update(withFinalizers(claim, [...finalizersOf(claim), deleteProtectionFinalizer])) ??
        claim;
    const status: JsonRecord = { ...claimStatus(claim), reservedFor: [...consumers, consumer] };
    if (b.allocation !== undefined)
      status.allocation =
        timestamp === undefined || b.allocation.allocationTimestamp !== undefined
          ? b.allocation
          : { ...b.allocation, allocationTimestamp: timestamp };
    this.update(withStatus(claim, status));
    return undefined;
  }

  /** The claims the pod of `uid` controls (ownerReferences), in creation order. */
  ownedBy(uid: string): JsonRecord[] {
    const keys = this.byOwner.get(uid);
    if (keys === undefined) return [];
    const out: JsonRecord[] = [];
    for (const k of keys) {
      const claim = this.claims.get(k);
      if (claim !== undefined) out.push(claim);
    }
    return out;
  }

  private store(key: string, claim: JsonRecord): void {
    this.unindex(key);
    this.claims.set(key, claim);
    const uid = ownerPod(claim)?.uid;
    if (uid === undefined) return;
    const keys = this.byOwner.get(uid) ?? new Set<string>();
    this.byOwner.set(uid, keys.add(key));
  }

  private unindex(key: string): void {
    const old = this.claims.get(key);
    const uid = old === undefined ? undefined : ownerPod(old)?.uid;
    if (uid === undefined) return;
    const keys = this.byOwner.get(uid);
    keys?.delete(key);
    if (keys?.size === 0) this.byOwner.delete(uid);
  }

  private remove(key: string): void {
    this.unindex(key);
    if (this.claims.delete(key)) this.emit({ type: 'ObjectDeleted', kind: 'ResourceClaim', key });
  }

  private nextRv(): string {
    this.version += 1;
    return String(this.version);
  }

  private nextUid(): string {
    this.uids += 1;
    return `00000000-0000-4000-a000-${this.uids.toString(16).padStart(12, '0')}`;
  }
}
