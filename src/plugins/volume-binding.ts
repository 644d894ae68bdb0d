// VolumeBinding: a pod's claims must be bound, and their PVs' node affinity must allow the node.
import { claimNameOf } from '../cluster/pod-volumes.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { PersistentVolumeClaimInfo, PersistentVolumeInfo } from '../cluster/volume-objects.ts';
import {
  addedOr,
  addedOrUpdated,
  nodeAddedOr,
  queueingHint,
  sameRecord,
} from '../framework/hints.ts';
import {
  type CycleState,
  type FilterPlugin,
  type PreFilterPlugin,
  type QueueingHint,
  type Status,
  status,
  success,
} from '../framework/types.ts';
import { matchesAnyTerm } from './node-selector.ts';
import {
  getClaim,
  getClass,
  getVolume,
  goQuote,
  notFound,
  waitForFirstConsumer,
} from './volumes/claims.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'VolumeBinding';

/** kube 1.34's ErrReasonNodeConflict: a bound PV's node affinity does not allow the node. */
export const ErrReasonNodeConflict = "node(s) didn't match PersistentVolume's node affinity";
/** kube's ErrReasonPVNotExist: a claim is bound to a PV the cluster does not have. */
export const ErrReasonPVNotExist =
  'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
/** kube's PreFilter reason for a claim that should already be bound and is not. */
export const ErrReasonUnboundImmediate = 'pod has unbound immediate PersistentVolumeClaims';

/**
 * berth's reason for a WaitForFirstConsumer claim that is not bound yet: kube would find a
 * PV for it or provision one on the chosen node (PreBind); berth does neither yet.
 */
export function unboundDelayedReason(claim: PersistentVolumeClaimInfo): string {
  return `berth does not bind or provision volumes yet: persistentvolumeclaim ${goQuote(
    `${claim.namespace}/${claim.name}`,
  )} is not bound`;
}

/** The cycle-state key of what PreFilter found. */
export const preFilterStateKey = `PreFilter${name}`;

/** A bound claim of the pod and its PV (undefined when the cluster has no such PV). */
export interface BoundClaim {
  readonly claim: PersistentVolumeClaimInfo;
  readonly pv: PersistentVolumeInfo | undefined;
}

// UnschedulableAndUnresolvable, as kube: preemption cannot bind a claim or move a volume.
const nodeConflict: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonNodeConflict),
);
const pvMissing: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonPVNotExist),
);
const unresolvable = (reason: string): Status =>
  status('UnschedulableAndUnresolvable', name, reason);

/** kube's isPVCFullyBound: a volume name and the bind-completed annotation. */
export function isFullyBound(claim: PersistentVolumeClaimInfo): boolean {
  return claim.volumeName !== '' && claim.bindCompleted;
}

/**
 * kube's podHasPVCs: each claim-backed volume's claim exists (a generic ephemeral one
 * created for this pod), is not lost and not being deleted. Returns the pod's claims in
 * volume order, or the UnschedulableAndUnresolvable status naming the first bad one.
 */
function podClaims(pod: PodInfo, snapshot: ClusterSnapshot): PersistentVolumeClaimInfo[] | Status {
  const claims: PersistentVolumeClaimInfo[] = [];
  for (const v of pod.volumes) {
    const claimName = claimNameOf(pod.name, v);
    if (claimName === undefined) continue;
    const ephemeral = v.type === 'ephemeral';
    const claim = getClaim(snapshot.objects, pod, claimName);
    if (claim === undefined) {
      return unresolvable(
        ephemeral
          ? `waiting for ephemeral volume controller to create the persistentvolumeclaim ${goQuote(claimName)}`
          : notFound('persistentvolumeclaim', claimName),
      );
    }
    if (claim.phase === 'Lost') {
      return unresolvable(
        `persistentvolumeclaim ${goQuote(claim.name)} bound to non-existent persistentvolume ${goQuote(claim.volumeName)}`,
      );
    }
    if (claim.deleting)
      return unresolvable(`persistentvolumeclaim ${goQuote(claim.name)} is being deleted`);
    if (ephemeral && claim.controllerUid !== pod.uid) {
      return unresolvable(
        `PVC ${claim.namespace}/${claim.name} was not created for pod ${pod.namespace}/${pod.name} (pod is not owner)`,
      );
    }
    claims.push(claim);
  }
  return claims;
}

/**
 * kube's IsDelayBindingMode: the claim's class exists and says WaitForFirstConsumer. A
 * class without a binding mode is an error (kube: `VolumeBindingMode not set …`).
 */
function isDelayBinding(
  claim: PersistentVolumeClaimInfo,
  snapshot: ClusterSnapshot,
): boolean | string {
  if (claim.storageClassName === '') return false;
  const cls = getClass(snapshot.objects, claim.storageClassName);
  if (cls === undefined) return false;
  if (cls.volumeBindingMode === '')
    return `VolumeBindingMode not set for StorageClass ${goQuote(claim.storageClassName)}`;
  return cls.volumeBindingMode === waitForFirstConsumer;
}

/**
 * PreFilter, kube's order: a bad claim (see `podClaims`) is UnschedulableAndUnresolvable;
 * a pod without claims skips the Filter. Claims are then sorted as kube's
 * GetPodVolumeClaims does: fully bound; unbound with delayed binding and no volume name;
 * the rest (unbound Immediate, or pre-bound and not yet completed). Any of the last kind
 * rejects the pod with kube's "pod has unbound immediate PersistentVolumeClaims"; any
 * delayed one, which kube would bind or provision, with berth's `unboundDelayedReason`.
 * Both UnschedulableAndUnresolvable: only a claim (or class) change can help.
 */
function preFilter(pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): Status {
  const claims = podClaims(pod, snapshot);
  if (!Array.isArray(claims)) return claims;
  const bound: BoundClaim[] = [];
  let immediate = false;
  let delayed: PersistentVolumeClaimInfo | undefined;
  for (const claim of claims) {
    if (isFullyBound(claim)) {
      bound.push({ claim, pv: getVolume(snapshot.objects, claim.volumeName) });
      continue;
    }
    const delay = isDelayBinding(claim, snapshot);
    if (typeof delay === 'string') return status('Error', name, delay);
    if (delay && claim.volumeName === '') delayed ??= claim;
    else immediate = true;
  }
  if (immediate) return unresolvable(ErrReasonUnboundImmediate);
  if (delayed !== undefined) return unresolvable(unboundDelayedReason(delayed));
  state.set(preFilterStateKey, bound);
  return success;
}

/**
 * kube's CheckNodeAffinity: without required node affinity every node passes; otherwise
 * some term must match the node's labels. kube matches against a node holding only the
 * labels, so `matchFields` terms are not checked (as for a nameless node).
 */
export function pvAllowsNode(pv: PersistentVolumeInfo, node: NodeInfo): boolean {
  const terms = pv.requiredNodeAffinity;
  return terms === undefined || matchesAnyTerm(terms, { name: '', labels: node.labels });
}

/**
 * kube's checkBoundClaims for one node, claim by claim: a missing PV rejects with
 * ErrReasonPVNotExist, a PV whose node affinity excludes the node with
 * ErrReasonNodeConflict (both UnschedulableAndUnresolvable); the first problem decides.
 */
export function checkBoundClaims(bound: readonly BoundClaim[], node: NodeInfo): Status {
  for (const { pv } of bound) {
    if (pv === undefined) return pvMissing;
    if (!pvAllowsNode(pv, node)) return nodeConflict;
  }
  return success;
}

/**
 * kube's events with queueing hints on: a StorageClass added, or its allowedTopologies
 * changed; a claim added or updated (kube: one the pod uses; berth's hints do not see the
 * pod, so any); a PV added or updated; a node added or its labels changed; a CSINode added
 * or its migrated-plugins annotation changed. (CSIDriver and CSIStorageCapacity are not
 * watched: berth does no capacity checks.)
 */
export const volumeBindingHint: QueueingHint = queueingHint({
  node: nodeAddedOr((b, a) => !sameRecord(b.labels, a.labels)),
  objects: {
    StorageClass: addedOr((b, a) => b.allowedTopologies !== a.allowedTopologies),
    PersistentVolumeClaim: addedOrUpdated,
    PersistentVolume: addedOrUpdated,
    CSINode: addedOr((b, a) => b.migratedPlugins.join(',') !== a.migratedPlugins.join(',')),
  },
});

/**
 * kube 1.34's VolumeBinding for pods whose claims are all bound: PreFilter rejects a pod
 * with a missing, lost, deleting or unbound claim (see `preFilter`); Filter checks each
 * bound PV's node affinity. berth does not bind or provision (no Reserve/PreBind), and does
 * not score (kube's score needs StorageCapacityScoring, off by default).
 */
export const volumeBinding = {
  name,
  queueingHint: volumeBindingHint,
  preFilter,
  /** kube's PreFilter Skip: the pod has no claim-backed volume. */
  preFilterSkip(_pod: PodInfo, state: CycleState): boolean {
    const bound = state.get(preFilterStateKey) as readonly BoundClaim[] | undefined;
    return bound !== undefined && bound.length === 0;
  },
  filter(_pod: PodInfo, node: NodeInfo, state: CycleState): Status {
    const bound = state.get(preFilterStateKey) as readonly BoundClaim[] | undefined;
    if (bound === undefined)
      return status('Error', name, `reading "${preFilterStateKey}" from cycle state: not found`);
    return checkBoundClaims(bound, node);
  },
} satisfies PreFilterPlugin & FilterPlugin;

/** Returns the VolumeBinding plugin (kube's bindTimeoutSeconds and shape arguments do not apply). */
export function newVolumeBinding(): typeof volumeBinding {
  return volumeBinding;
}
