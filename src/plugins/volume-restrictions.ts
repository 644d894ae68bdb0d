// VolumeRestrictions: in-tree disks two pods may not share on a node, and ReadWriteOncePod claims in use.

import type { InTreeDisk, PodVolume } from '../cluster/pod-volumes.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import { added, leftNode, onRelease, queueingHint } from '../framework/hints.ts';
import {
  type CycleState,
  type FilterPlugin,
  type PreFilterExtensions,
  type PreFilterPlugin,
  type QueueingHint,
  type Status,
  status,
  success,
} from '../framework/types.ts';
import { nodeClaimKeys } from './volumes/claim-users.ts';
import { claimKey, getClaim, notFound, readWriteOncePod } from './volumes/claims.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'VolumeRestrictions';

/** kube's ErrReasonDiskConflict. */
export const ErrReasonDiskConflict = 'node(s) had no available disk';

/** kube 1.34's ErrReasonReadWriteOncePodConflict. */
export const ErrReasonReadWriteOncePodConflict =
  'node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod';

/** The cycle-state key of what PreFilter found (kube's "PreFilter" + plugin name). */
export const preFilterStateKey = `PreFilter${name}`;

// Unschedulable, as kube: evicting the pod that holds the disk or the claim may help.
const diskConflict: Status = Object.freeze(status('Unschedulable', name, ErrReasonDiskConflict));
const rwopConflict: Status = Object.freeze(
  status('Unschedulable', name, ErrReasonReadWriteOncePodConflict),
);

/** What PreFilter leaves for Filter; AddPod/RemovePod put a new one in its place. */
export interface PreFilterState {
  /** The pod has a GCE PD, AWS EBS, RBD or iSCSI volume (kube's needsRestrictionsCheck). */
  readonly needsDiskCheck: boolean;
  /** How many of its ReadWriteOncePod claims pods on live nodes already use. */
  readonly conflictingClaims: number;
  /** Its ReadWriteOncePod claims (by name, in its namespace) → the pods on live nodes using each. */
  readonly claimUsers: ReadonlyMap<string, number>;
  /** kube's PreFilter Skip, as PreFilter found it: no disk to check, no claim in use. */
  readonly skipped: boolean;
}

type Disk = Extract<
  InTreeDisk,
  { type: 'gcePersistentDisk' | 'awsElasticBlockStore' | 'rbd' | 'iscsi' }
>;

function isCheckedDisk(v: PodVolume): v is PodVolume & Disk {
  return (
    v.type === 'gcePersistentDisk' ||
    v.type === 'awsElasticBlockStore' ||
    v.type === 'rbd' ||
    v.type === 'iscsi'
  );
}

function haveOverlap(a: readonly string[], b: readonly string[]): boolean {
  for (const x of a) if (b.includes(x)) return true;
  return false;
}

/**
 * kube's isVolumeConflict for one pair: the same GCE PD unless both mount it read-only;
 * the same EBS volume ID always; the same iSCSI IQN unless both are read-only; an RBD image
 * with a shared monitor, the same pool and image, unless both are read-only.
 */
export function disksConflict(a: Disk, b: PodVolume): boolean {
  switch (a.type) {
    case 'gcePersistentDisk':
      return b.type === a.type && a.pdName === b.pdName && !(a.readOnly && b.readOnly);
    case 'awsElasticBlockStore':
      return b.type === a.type && a.volumeID === b.volumeID;
    case 'iscsi':
      return b.type === a.type && a.iqn === b.iqn && !(a.readOnly && b.readOnly);
    case 'rbd':
      return (
        b.type === a.type &&
        haveOverlap(a.monitors, b.monitors) &&
        a.pool === b.pool &&
        a.image === b.image &&
        !(a.readOnly && b.readOnly)
      );
    default: {
      const unreachable: never = a;
      return unreachable;
    }
  }
}

/** True when one of `pod`'s checked disks conflicts with a volume of `other`. */
function conflictsWith(pod: PodInfo, other: PodInfo): boolean {
  for (const v of pod.volumes) {
    if (!isCheckedDisk(v)) continue;
    for (const w of other.volumes) if (disksConflict(v, w)) return true;
  }
  return false;
}

/** kube's satisfyVolumeConflicts: no pod charged to the node holds a conflicting disk. */
export function satisfiesDiskConflicts(pod: PodInfo, node: NodeInfo): boolean {
  for (const other of node.pods.values()) {
    if (other.volumes.length !== 0 && conflictsWith(pod, other)) return false;
  }
  return true;
}

/** The distinct names of the claims of `pod`'s PVC volumes. */
function claimNames(pod: PodInfo): Set<string> {
  const names = new Set<string>();
  for (const v of pod.volumes) if (v.type === 'persistentVolumeClaim') names.add(v.claimName);
  return names;
}

/** True when `p` has a PVC volume naming `claim` (in its own namespace). */
function usesClaim(p: PodInfo, claim: string): boolean {
  for (const v of p.volumes)
    if (v.type === 'persistentVolumeClaim' && v.claimName === claim) return true;
  return false;
}

/**
 * How many pods charged to live nodes (bound, assumed or terminating) use the claim `claim`
 * of `pod`'s namespace; a pod naming it twice counts once. kube's IsPVCUsedByPods, counted,
 * so that RemovePod knows when the last user is gone. Visits only the pods of the nodes
 * whose claims include it (see `nodeClaimKeys`).
 */
export function claimUserCount(snapshot: ClusterSnapshot, pod: PodInfo, claim: string): number {
  const key = claimKey(pod, claim);
  let users = 0;
  for (const node of snapshot.nodeOrder) {
    if (!nodeClaimKeys(node).has(key)) continue;
    for (const p of node.pods.values())
      if (p.namespace === pod.namespace && usesClaim(p, claim)) users++;
  }
  return users;
}

/** How many of the claims have a user. */
function countConflicts(claimUsers: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const users of claimUsers.values()) if (users > 0) n++;
  return n;
}

/**
 * PreFilter: every PVC volume's claim must exist (UnschedulableAndUnresolvable
 * `persistentvolumeclaim "X" not found` otherwise); counts the users of each of the pod's
 * ReadWriteOncePod claims among the pods on live nodes (see `claimUserCount` for the cost).
 */
function preFilter(pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): Status {
  let needsDiskCheck = false;
  const rwop = new Set<string>();
  for (const v of pod.volumes) {
    if (isCheckedDisk(v)) needsDiskCheck = true;
    if (v.type !== 'persistentVolumeClaim') continue;
    const claim = getClaim(snapshot.objects, pod, v.claimName);
    if (claim === undefined)
      return status(
        'UnschedulableAndUnresolvable',
        name,
        notFound('persistentvolumeclaim', v.claimName),
      );
    if (claim.accessModes.includes(readWriteOncePod)) rwop.add(claim.name);
  }
  const claimUsers = new Map<string, number>();
  for (const claim of rwop) claimUsers.set(claim, claimUserCount(snapshot, pod, claim));
  const conflictingClaims = countConflicts(claimUsers);
  const skipped = !needsDiskCheck && conflictingClaims === 0;
  state.set(preFilterStateKey, {
    needsDiskCheck,
    conflictingClaims,
    claimUsers,
    skipped,
  } satisfies PreFilterState);
  return success;
}

/**
 * kube's updateWithPod: `other` joins (`by` 1) or leaves (−1) the users of the incoming
 * `pod`'s ReadWriteOncePod claims it names. Unlike kube, which adds its reference count
 * to one total, a pod of another namespace (naming another claim) counts nothing and a
 * claim stays in use while it has another user, as a fresh PreFilter would find.
 */
function updateWithPod(state: CycleState, pod: PodInfo, other: PodInfo, by: 1 | -1): void {
  const s = state.get(preFilterStateKey) as PreFilterState | undefined;
  if (s === undefined || s.skipped || s.claimUsers.size === 0) return;
  if (other.namespace !== pod.namespace || other.volumes.length === 0) return;
  let claimUsers: Map<string, number> | undefined;
  for (const claim of claimNames(other)) {
    const users = s.claimUsers.get(claim);
    if (users === undefined) continue;
    claimUsers ??= new Map(s.claimUsers);
    claimUsers.set(claim, users + by);
  }
  if (claimUsers === undefined) return;
  const conflictingClaims = countConflicts(claimUsers);
  state.set(preFilterStateKey, { ...s, claimUsers, conflictingClaims } satisfies PreFilterState);
}

/**
 * kube's VolumeRestrictions AddPod/RemovePod (nothing when PreFilter was skipped, as in
 * kube). They put a new state in place of the old one, never change it, so a clone needs
 * nothing more than the shallow copy it has.
 */
export const volumeRestrictionsExtensions: PreFilterExtensions = {
  tracks(state: CycleState): boolean {
    const s = state.get(preFilterStateKey) as PreFilterState | undefined;
    return s !== undefined && !s.skipped && s.claimUsers.size > 0;
  },
  addPod(pod: PodInfo, state: CycleState, added: PodInfo): void {
    updateWithPod(state, pod, added, 1);
  },
  removePod(pod: PodInfo, state: CycleState, removed: PodInfo): void {
    updateWithPod(state, pod, removed, -1);
  },
  cloneState(): void {},
};

/**
 * kube's events with queueing hints on: a pod deleted (berth: a pod with such volumes left
 * its node: deleted, finished, moved, replaced, removed by a relist, or a reservation
 * released), a node added, a claim added. kube also skips a deleted pod in another
 * namespace or without a shared disk or claim; berth's hints do not see the waiting pod,
 * so any pod with volumes leaving requeues (more often than kube, never less).
 */
export const volumeRestrictionsHint: QueueingHint = queueingHint({
  node: (c) => added(c.before, c.after),
  ...onRelease(leftNode((r) => r.info.volumes.length > 0)),
  objects: { PersistentVolumeClaim: added },
});

/**
 * kube 1.34's VolumeRestrictions. PreFilter: the pod's PVCs must exist; its ReadWriteOncePod
 * claims already used by another pod are counted. Filter: Unschedulable "node(s) had no
 * available disk" when a pod on the node holds a conflicting GCE PD / EBS / RBD / iSCSI
 * disk; then Unschedulable (on every node) when a ReadWriteOncePod claim is in use.
 * AddPod/RemovePod (`extensions`): a pod put on or taken off a node counts as a user of
 * the claims it names.
 */
export const volumeRestrictions = {
  name,
  queueingHint: volumeRestrictionsHint,
  preFilter,
  extensions: volumeRestrictionsExtensions,
  /** kube's PreFilter Skip: no disk to check and no ReadWriteOncePod claim in use. */
  preFilterSkip(_pod: PodInfo, state: CycleState): boolean {
    const s = state.get(preFilterStateKey) as PreFilterState | undefined;
    return s?.skipped === true;
  },
  filter(pod: PodInfo, node: NodeInfo, state: CycleState): Status {
    const s = state.get(preFilterStateKey) as PreFilterState | undefined;
    if (s === undefined)
      return status('Error', name, `reading "${preFilterStateKey}" from cycle state: not found`);
    if (s.needsDiskCheck && !satisfiesDiskConflicts(pod, node)) return diskConflict;
    return s.conflictingClaims > 0 ? rwopConflict : success;
  },
} satisfies PreFilterPlugin & FilterPlugin;

/** Returns the VolumeRestrictions plugin (it takes no arguments). */
export function newVolumeRestrictions(): typeof volumeRestrictions {
  return volumeRestrictions;
}
