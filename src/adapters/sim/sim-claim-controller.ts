// kube-controller-manager's resourceclaim controller (with the garbage collector's part for claims) in the simulated cluster.

import { podClaimNameAnnotation } from '../../cluster/dra-objects.ts';
import { podKey } from '../../model/keys.ts';
import type { PodObject } from '../../model/objects.ts';
import { isRecord, type JsonRecord } from '../../model/record.ts';
import { generatedClaimName, templateClaim } from './sim-claim-names.ts';
import {
  claimMeta,
  claimStatus,
  deleteProtectionFinalizer,
  finalizersOf,
  isReservedFor,
  maxReservedFor,
  ownerPod,
  reservedFor,
  type SimClaims,
  withFinalizers,
  withStatus,
} from './sim-claims.ts';

/** What the controller reads and writes besides claims: the API server's pods and clock. */
export interface ClaimControllerHost {
  /** The pod stored under `namespace/name`. */
  pod(key: string): PodObject | undefined;
  /** Writes the pod's `status.resourceClaimStatuses` and emits its update. */
  setClaimStatuses(key: string, statuses: { name: string; resourceClaimName: string }[]): void;
  /** Runs `work` after the controller's latency. */
  later(work: () => void): void;
  /** The run's logical time as an RFC 3339 timestamp. */
  timestamp(): string;
}

/** One `spec.resourceClaims` entry. */
interface PodClaimEntry {
  name: string;
  claimName?: string;
  templateName?: string;
}

function namespaceOf(pod: PodObject): string {
  return pod.metadata.namespace ?? 'default';
}

function entriesOf(pod: PodObject): PodClaimEntry[] {
  const list = (pod.spec as { resourceClaims?: unknown }).resourceClaims;
  if (!Array.isArray(list)) return [];
  return list.flatMap((c) =>
    isRecord(c) && typeof c.name === 'string' && c.name !== ''
      ? [
          {
            name: c.name,
            ...(typeof c.resourceClaimName === 'string' ? { claimName: c.resourceClaimName } : {}),
            ...(typeof c.resourceClaimTemplateName === 'string'
              ? { templateName: c.resourceClaimTemplateName }
              : {}),
          },
        ]
      : [],
  );
}

/** `status.resourceClaimStatuses` by entry name: the claim's name, or null ("not needed"). */
function statusesOf(pod: PodObject): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const list = (pod.status as { resourceClaimStatuses?: unknown } | undefined)
    ?.resourceClaimStatuses;
  if (Array.isArray(list))
    for (const s of list)
      if (isRecord(s) && typeof s.name === 'string')
        out.set(s.name, typeof s.resourceClaimName === 'string' ? s.resourceClaimName : null);
  return out;
}

/** The names of the claims the pod uses (kube's `resourceclaim.PodClaims`). */
function claimNamesOf(pod: PodObject): string[] {
  const statuses = statusesOf(pod);
  return entriesOf(pod).flatMap((e) => {
    const name = e.claimName ?? statuses.get(e.name);
    return typeof name === 'string' ? [name] : [];
  });
}

/** kube's isPodDone: terminal, or deleted before it was scheduled. */
function isPodDone(pod: PodObject): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  return pod.metadata.deletionTimestamp !== undefined && !pod.spec.nodeName;
}

/**
 * The resourceclaim controller: makes the ResourceClaim of each `resourceClaimTemplateName`
 * entry of a pod and names it in the pod's `status.resourceClaimStatuses`; reserves an
 * allocated claim for a pod bound without the scheduler; takes pods that will not run out of
 * `reservedFor`, deallocating a claim reserved for nobody (allocation and finalizer go), and
 * deletes generated claims whose pod is gone or will not run. Every action happens after the
 * host's latency, against what the API server holds then.
 */
export class SimClaimController {
  private readonly templates = new Map<string, JsonRecord>();

  constructor(
    private readonly host: ClaimControllerHost,
    private readonly claims: SimClaims,
    templates: readonly JsonRecord[],
  ) {
    for (const t of templates) {
      const meta = claimMeta(t);
      const ns = typeof meta.namespace === 'string' ? meta.namespace : undefined;
      this.templates.set(podKey(ns, String(meta.name)), t);
    }
  }

  /** A pod was created or updated: make its claims; release them if it will not run. */
  podChanged(pod: PodObject): void {
    if (entriesOf(pod).length === 0) return;
    const ref = {
      key: podKey(pod.metadata.namespace, pod.metadata.name),
      uid: pod.metadata.uid as string,
    };
    this.host.later(() => this.syncPod(ref.key, ref.uid));
    // Keys taken when the work runs: a claim syncPod has just made is among them.
    if (isPodDone(pod)) this.syncClaimsLater(() => this.claimKeysOf(pod));
  }

  /** A pod was deleted: release the claims it used, delete those made for it. */
  podDeleted(pod: PodObject): void {
    // The special claim of DRA-backed extended resources is owned by a pod without entries.
    const owns = this.claims.ownedBy(String(pod.metadata.uid)).length > 0;
    if (entriesOf(pod).length > 0 || owns) this.syncClaimsLater(() => this.claimKeysOf(pod));
  }

  /** Claims were written by someone else: look at them again. */
  claimsChanged(keys: readonly string[]): void {
    if (keys.length > 0) this.syncClaimsLater(() => keys);
  }

  private syncClaimsLater(keysOf: () => readonly string[]): void {
    this.host.later(() => {
      for (const key of new Set(keysOf()))
        for (let pass = 0; pass < 3 && this.syncClaim(key); pass++);
    });
  }

  /** The claims a pod's departure concerns: those it names and those it owns. */
  private claimKeysOf(pod: PodObject): string[] {
    const ns = namespaceOf(pod);
    const keys = claimNamesOf(pod).map((n) => podKey(ns, n));
    for (const c of this.claims.ownedBy(pod.metadata.uid as string))
      keys.push(this.claims.keyOf(c));
    return keys;
  }

  private syncPod(key: string, uid: string): void {
    const pod = this.host.pod(key);
    if (pod === undefined || pod.metadata.uid !== uid) return;
    if (pod.metadata.deletionTimestamp !== undefined) return;
    const ns = namespaceOf(pod);
    const statuses = statusesOf(pod);
    const made = new Map<string, string>();
    for (const entry of entriesOf(pod)) {
      if (entry.templateName === undefined) continue;
      const named = statuses.get(entry.name);
      if (named === null) continue;
      const existing = named === undefined ? undefined : this.claims.get(podKey(ns, named));
      if (existing !== undefined && ownerPod(existing)?.uid === uid) continue;
      const claim = this.ownedClaim(ns, uid, entry.name) ?? this.create(pod, entry);
      // No template (yet): kube retries with backoff; nothing in the sim adds it later.
      if (claim === undefined) return;
      made.set(entry.name, String(claimMeta(claim).name));
    }
    if (made.size > 0) this.writeStatuses(key, statuses, made);
    if (pod.spec.nodeName) this.reserveForBound(pod);
  }

  private writeStatuses(
    key: string,
    statuses: Map<string, string | null>,
    made: Map<string, string>,
  ): void {
    const merged = new Map<string, string>();
    for (const [name, claim] of statuses) if (claim !== null) merged.set(name, claim);
    let changed = false;
    for (const [name, claim] of made) {
      changed ||= merged.get(name) !== claim;
      merged.set(name, claim);
    }
    if (!changed) return; // an apply that changes nothing writes nothing
    const names = [...merged.keys()].sort();
    this.host.setClaimStatuses(
      key,
      names.map((name) => ({ name, resourceClaimName: merged.get(name) as string })),
    );
  }

  /** The claim the pod owns for entry `name` (annotated), as kube looks for an orphan. */
  private ownedClaim(ns: string, uid: string, name: string): JsonRecord | undefined {
    return this.claims.ownedBy(uid).find((c) => {
      const meta = claimMeta(c);
      const annotations = isRecord(meta.annotations) ? meta.annotations : {};
      return meta.namespace === ns && annotations[podClaimNameAnnotation] === name;
    });
  }

  private create(pod: PodObject, entry: PodClaimEntry): JsonRecord | undefined {
    const ns = namespaceOf(pod);
    const template = this.templates.get(podKey(ns, entry.templateName as string));
    if (template === undefined) return undefined;
    const name = generatedClaimName(pod, entry.name, (n) => this.claims.has(podKey(ns, n)));
    return this.claims.create(
      templateClaim(pod, entry.name, name, template),
      this.host.timestamp(),
    );
  }

  /** kube's syncPod for a bound pod: reserve an allocated claim the scheduler did not. */
  private reserveForBound(pod: PodObject): void {
    const ns = namespaceOf(pod);
    const uid = pod.metadata.uid as string;
    const statuses = statusesOf(pod);
    for (const entry of entriesOf(pod)) {
      const name = entry.claimName ?? statuses.get(entry.name);
      if (typeof name !== 'string') continue;
      const claim = this.claims.get(podKey(ns, name));
      if (claim === undefined) return;
      if (entry.templateName !== undefined && ownerPod(claim)?.uid !== uid) return;
      const consumers = reservedFor(claim);
      if (claimStatus(claim).allocation === undefined || isReservedFor(claim, uid)) continue;
      if (consumers.length >= maxReservedFor) continue;
      const consumer = { resource: 'pods', name: pod.metadata.name, uid };
      this.claims.update(
        withStatus(claim, { ...claimStatus(claim), reservedFor: [...consumers, consumer] }),
      );
    }
  }

  private dropFinalizer(claim: JsonRecord): JsonRecord | undefined {
    const rest = finalizersOf(claim).filter((f) => f !== deleteProtectionFinalizer);
    return this.claims.update(withFinalizers(claim, rest));
  }

  /** True when the pod a `reservedFor` entry names exists (same uid) and may still run. */
  private podMayRun(ns: string, consumer: JsonRecord): boolean {
    const pod = this.host.pod(podKey(ns, String(consumer.name)));
    return pod !== undefined && pod.metadata.uid === consumer.uid && !isPodDone(pod);
  }

  /** kube's syncClaim and the garbage collector for one claim; true when it wrote something. */
  private syncClaim(key: string): boolean {
    let claim = this.claims.get(key);
    if (claim === undefined) return false;
    const ns = String(claimMeta(claim).namespace ?? 'default');
    const consumers = reservedFor(claim);
    const remaining = consumers.filter(
      (r) => r.resource !== 'pods' || !!r.apiGroup || this.podMayRun(ns, r),
    );
    const protectedByUs = finalizersOf(claim).includes(deleteProtectionFinalizer);
    const deleting = claimMeta(claim).deletionTimestamp !== undefined;
    let wrote = false;
    if (remaining.length < consumers.length) {
      const status: JsonRecord = {
        ...claimStatus(claim),
        reservedFor: remaining.length > 0 ? remaining : undefined,
      };
      // The last consumer went: deallocate, so that the next one allocates afresh.
      if (remaining.length === 0 && protectedByUs) status.allocation = undefined;
      claim = this.claims.update(withStatus(claim, status));
      if (claim !== undefined && protectedByUs && claimStatus(claim).allocation === undefined)
        claim = this.dropFinalizer(claim);
      wrote = true;
    } else if (protectedByUs && deleting && remaining.length === 0) {
      // Deleted while allocated for nobody: deallocate, then let the deletion finish.
      if (claimStatus(claim).allocation !== undefined)
        claim = this.claims.update(
          withStatus(claim, { ...claimStatus(claim), allocation: undefined }),
        );
      if (claim !== undefined) claim = this.dropFinalizer(claim);
      wrote = true;
    }
    if (claim === undefined) return wrote;
    const owner = ownerPod(claim);
    if (owner === undefined || claimMeta(claim).deletionTimestamp !== undefined) return wrote;
    const pod = this.host.pod(podKey(ns, owner.name));
    // The owner is gone (the garbage collector), or reserved for nobody and will not run.
    const ownerGone = pod === undefined || pod.metadata.uid !== owner.uid;
    if (ownerGone || (remaining.length === 0 && isPodDone(pod))) {
      this.claims.delete(key, this.host.timestamp());
      return true;
    }
    return wrote;
  }
}
