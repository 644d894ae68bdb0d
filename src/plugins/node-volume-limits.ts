// NodeVolumeLimits: per CSI driver, a node attaches at most its CSINode's allocatable count of volumes.

import type { ObjectStoreView } from '../cluster/cluster-objects.ts';
import type { PodVolume } from '../cluster/pod-volumes.ts';
import { claimNameOf } from '../cluster/pod-volumes.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { CSINodeInfo, PersistentVolumeClaimInfo } from '../cluster/volume-objects.ts';
import { added, addedOr, leftNode, onRelease, queueingHint } from '../framework/hints.ts';
import {
  type CycleState,
  type FilterPlugin,
  type PreFilterPlugin,
  type QueueingHint,
  type Status,
  status,
  success,
} from '../framework/types.ts';
import { getClaim, getClass, getVolume, notFound } from './volumes/claims.ts';
import {
  csiDriverOfPlugin,
  csiMigrationOn,
  isMigratable,
  isMigratablePluginName,
  pluginOf,
  translateInline,
  translatePV,
} from './volumes/csi-migration.ts';

/** Name of the plugin in the registry and in profiles (kube's CSILimits). */
export const name = 'NodeVolumeLimits';

/** kube's ErrReasonMaxVolumeCountExceeded. */
export const ErrReasonMaxVolumeCountExceeded = 'node(s) exceed max volume count';

/** The cycle-state key of what PreFilter leaves (the object store Filter looks claims up in). */
export const preFilterStateKey = `PreFilter${name}`;

// Unschedulable, as kube: evicting a pod may free an attachment.
const exceeded: Status = Object.freeze(
  status('Unschedulable', name, ErrReasonMaxVolumeCountExceeded),
);

/**
 * Stands in for kube's random prefix of the handle it makes up for a claim that has no PV
 * yet (counted under its class's provisioner). Deterministic, and no real handle starts so.
 */
const unboundHandlePrefix = '\u0000unbound-claim:';

/** A volume the plugin may count: a claim, a generic ephemeral volume, or a migratable disk. */
function isCountable(v: PodVolume): boolean {
  return v.type === 'persistentVolumeClaim' || v.type === 'ephemeral' || isMigratable(v);
}

/** kube's getCSIDriverInfoFromSC: the class's provisioner (migrated if in-tree) and a made-up handle. */
function driverFromClass(
  objects: ObjectStoreView,
  csiNode: CSINodeInfo | undefined,
  claim: PersistentVolumeClaimInfo,
): [string, string] | undefined {
  const cls = getClass(objects, claim.storageClassName);
  if (cls === undefined) return undefined;
  const handle = `${unboundHandlePrefix}${claim.namespace}/${claim.name}`;
  const provisioner = cls.provisioner;
  if (!isMigratablePluginName(provisioner)) return [provisioner, handle];
  if (!csiMigrationOn(csiNode, provisioner)) return undefined;
  const driver = csiDriverOfPlugin(provisioner);
  return driver === undefined ? undefined : [driver, handle];
}

/** kube's getCSIDriverInfo: the claim's PV's CSI source (translated if in-tree), else its class's. */
function driverOfClaim(
  objects: ObjectStoreView,
  csiNode: CSINodeInfo | undefined,
  claim: PersistentVolumeClaimInfo,
): [string, string] | undefined {
  const pv = getVolume(objects, claim.volumeName);
  if (pv === undefined) return driverFromClass(objects, csiNode, claim);
  if (pv.csi !== undefined) return [pv.csi.driver, pv.csi.volumeHandle];
  const disk = pv.inTree;
  if (disk === undefined || !isMigratable(disk)) return undefined;
  if (!csiMigrationOn(csiNode, pluginOf(disk) ?? '')) return undefined;
  const v = translatePV(pv, disk);
  return v === undefined ? undefined : [v.driver, v.handle];
}

/**
 * kube's filterAttachableVolumes: adds `driver/handle` → driver to `out` for each volume of
 * `pod` that some CSI driver attaches. For the incoming pod (`incoming`) a missing claim is
 * an error; for pods already on the node it is skipped. Returns the failing Status or
 * undefined.
 */
function attachableVolumes(
  objects: ObjectStoreView,
  csiNode: CSINodeInfo | undefined,
  pod: PodInfo,
  incoming: boolean,
  out: Map<string, string>,
): Status | undefined {
  for (const v of pod.volumes) {
    if (v.type !== 'persistentVolumeClaim' && v.type !== 'ephemeral') {
      if (!isMigratable(v) || !csiMigrationOn(csiNode, pluginOf(v) ?? '')) continue;
      const csi = translateInline(v);
      if (csi === undefined) continue;
      if ('error' in csi)
        return status(
          'Error',
          name,
          `converting volume(${v.name}) from inline to csi: ${csi.error}`,
        );
      out.set(`${csi.driver}/${csi.handle}`, csi.driver);
      continue;
    }
    const claimName = claimNameOf(pod.name, v) ?? '';
    if (claimName === '') return status('Error', name, 'PersistentVolumeClaim had no name');
    const claim = getClaim(objects, pod, claimName);
    if (claim === undefined) {
      if (!incoming) continue;
      const why = `looking up PVC ${pod.namespace}/${claimName}: ${notFound('persistentvolumeclaim', claimName)}`;
      return status('UnschedulableAndUnresolvable', name, why);
    }
    if (v.type === 'ephemeral' && claim.controllerUid !== pod.uid) {
      const why = `PVC ${claim.namespace}/${claim.name} was not created for pod ${pod.namespace}/${pod.name} (pod is not owner)`;
      return status('Error', name, why);
    }
    const found = driverOfClaim(objects, csiNode, claim);
    if (found === undefined || found[0] === '' || found[1] === '') continue;
    out.set(`${found[0]}/${found[1]}`, found[0]);
  }
  return undefined;
}

/** kube's getVolumeLimits: driver → `allocatable.count` of the node's CSINode. */
function volumeLimits(csiNode: CSINodeInfo | undefined): Map<string, number> {
  const limits = new Map<string, number>();
  for (const d of csiNode?.drivers ?? []) if (d.count !== undefined) limits.set(d.name, d.count);
  return limits;
}

/**
 * kube's CSILimits Filter: the incoming pod's new unique volumes per driver, plus the
 * unique volumes of the pods charged to the node (a volume shared with them counts once),
 * must not exceed the driver's limit. A driver without a limit, or a node without a
 * CSINode, limits nothing.
 */
export function filterVolumeLimits(objects: ObjectStoreView, pod: PodInfo, node: NodeInfo): Status {
  if (pod.volumes.length === 0) return success;
  const csiNode = objects.CSINode.get(node.name);
  const added = new Map<string, string>();
  const failed = attachableVolumes(objects, csiNode, pod, true, added);
  if (failed !== undefined) return failed;
  if (added.size === 0) return success;
  const limits = volumeLimits(csiNode);
  if (limits.size === 0) return success;
  const attached = new Map<string, string>();
  for (const other of node.pods.values()) {
    if (other.volumes.length === 0) continue;
    const bad = attachableVolumes(objects, csiNode, other, false, attached);
    if (bad !== undefined) return bad;
  }
  const attachedCount = new Map<string, number>();
  for (const [unique, driver] of attached) {
    added.delete(unique);
    attachedCount.set(driver, (attachedCount.get(driver) ?? 0) + 1);
  }
  const addedCount = new Map<string, number>();
  for (const driver of added.values()) addedCount.set(driver, (addedCount.get(driver) ?? 0) + 1);
  for (const [driver, count] of addedCount) {
    const limit = limits.get(driver);
    if (limit !== undefined && (attachedCount.get(driver) ?? 0) + count > limit) return exceeded;
  }
  return success;
}

function limitRaised(before: CSINodeInfo, after: CSINodeInfo): boolean {
  const old = new Map(before.drivers.map((d) => [d.name, d.count ?? 0]));
  return after.drivers.some((d) => (d.count ?? 0) > (old.get(d.name) ?? 0));
}

/**
 * kube's events with queueing hints on: a CSINode added, or updated with a higher limit
 * for some driver; a pod with claims or migratable disks deleted from a node (berth: left
 * it: deleted, finished, moved, replaced, relisted away, or a reservation released) or
 * deleted while nominated; a claim added. kube also requeues when a VolumeAttachment is
 * deleted: berth does not watch VolumeAttachments.
 */
export const nodeVolumeLimitsHint: QueueingHint = queueingHint({
  ...onRelease(leftNode((r) => r.info.volumes.some(isCountable), true)),
  objects: { PersistentVolumeClaim: added, CSINode: addedOr(limitRaised) },
});

/**
 * kube 1.34's NodeVolumeLimits (CSILimits) without VolumeAttachment counting. PreFilter
 * keeps the object store for Filter; see `filterVolumeLimits` for the Filter.
 */
export const nodeVolumeLimits = {
  name,
  queueingHint: nodeVolumeLimitsHint,
  preFilter(_pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): Status {
    state.set(preFilterStateKey, snapshot.objects);
    return success;
  },
  /** kube's PreFilter Skip: no claim, ephemeral volume or migratable in-tree disk. */
  preFilterSkip(pod: PodInfo): boolean {
    return !pod.volumes.some(isCountable);
  },
  filter(pod: PodInfo, node: NodeInfo, state: CycleState): Status {
    const objects = state.get(preFilterStateKey) as ObjectStoreView | undefined;
    if (objects === undefined)
      return status('Error', name, `reading "${preFilterStateKey}" from cycle state: not found`);
    return filterVolumeLimits(objects, pod, node);
  },
} satisfies PreFilterPlugin & FilterPlugin;

/** Returns the NodeVolumeLimits plugin (it takes no arguments). */
export function newNodeVolumeLimits(): typeof nodeVolumeLimits {
  return nodeVolumeLimits;
}
