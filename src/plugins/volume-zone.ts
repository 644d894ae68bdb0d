// VolumeZone: a pod goes only where the zone/region labels of its bound volumes allow.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { PersistentVolumeInfo, StorageClassInfo } from '../cluster/volume-objects.ts';
import { volumeTopologyLabels } from '../cluster/volume-objects.ts';
import {
  added,
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
import {
  getClaim,
  getClass,
  getVolume,
  goQuote,
  notFound,
  waitForFirstConsumer,
} from './volumes/claims.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'VolumeZone';

/** kube's ErrReasonConflict. */
export const ErrReasonConflict = 'node(s) had no available volume zone';

/** The cycle-state key of what PreFilter found (kube's "PreFilter" + plugin name). */
export const preFilterStateKey = `PreFilter${name}`;

/** kube's LabelMultiZoneDelimiter: a PV label may list several zones, `a__b`. */
const multiZoneDelimiter = '__';

// UnschedulableAndUnresolvable, as kube: preemption cannot move a volume or relabel a node.
const conflict: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonConflict),
);

/** One topology label of a bound PV: its key and the values it allows. */
export interface PVTopology {
  readonly pvName: string;
  readonly key: string;
  readonly values: readonly string[];
}

/**
 * kube's getPVTopologies: each topology label the PV carries (beta zone, beta region, GA
 * zone, GA region, in that order) with its `__`-separated, trimmed values; a label with an
 * empty entry is ignored (kube logs and skips it).
 */
export function pvTopologies(pv: PersistentVolumeInfo): PVTopology[] {
  const out: PVTopology[] = [];
  for (const [key, value] of pv.topologyLabels) {
    const values = value.split(multiZoneDelimiter).map((z) => z.trim());
    if (values.some((z) => z === '')) continue;
    out.push({ pvName: pv.name, key, values: [...new Set(values)] });
  }
  return out;
}

const betaToGA: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
};

const unresolvable = (reason: string): Status =>
  status('UnschedulableAndUnresolvable', name, reason);

/**
 * kube's getPVbyPod over the pod's PVC volumes (not generic ephemeral ones), in order:
 * an unnamed claim, a missing claim, class or PV, an unbound claim without a class or whose
 * class has no binding mode, or an unbound Immediate claim is UnschedulableAndUnresolvable;
 * an unbound WaitForFirstConsumer claim is skipped. Otherwise the bound PVs' topologies.
 */
export function podVolumeTopologies(
  pod: PodInfo,
  snapshot: ClusterSnapshot,
): PVTopology[] | Status {
  const { objects } = snapshot;
  const out: PVTopology[] = [];
  for (const v of pod.volumes) {
    if (v.type !== 'persistentVolumeClaim') continue;
    if (v.claimName === '') return unresolvable('PersistentVolumeClaim had no name');
    const claim = getClaim(objects, pod, v.claimName);
    if (claim === undefined) return unresolvable(notFound('persistentvolumeclaim', v.claimName));
    if (claim.volumeName === '') {
      const className = claim.storageClassName;
      if (className === '')
        return unresolvable('PersistentVolumeClaim had no pv name and storageClass name');
      const cls: StorageClassInfo | undefined = getClass(objects, className);
      if (cls === undefined)
        return unresolvable(notFound('storageclass.storage.k8s.io', className));
      if (cls.volumeBindingMode === '')
        return unresolvable(`VolumeBindingMode not set for StorageClass ${goQuote(className)}`);
      if (cls.volumeBindingMode === waitForFirstConsumer) continue;
      return unresolvable('PersistentVolume had no name');
    }
    const pv = getVolume(objects, claim.volumeName);
    if (pv === undefined) return unresolvable(notFound('persistentvolume', claim.volumeName));
    out.push(...pvTopologies(pv));
  }
  return out;
}

/**
 * kube's Filter: a node with none of the four topology labels passes (single-zone
 * clusters); otherwise every PV topology label must be on the node (a beta key may be
 * matched by the node's GA label) with one of the PV's values.
 */
export function fitsVolumeZones(topologies: readonly PVTopology[], node: NodeInfo): boolean {
  const labels = node.labels;
  if (!volumeTopologyLabels.some((k) => Object.hasOwn(labels, k))) return true;
  for (const t of topologies) {
    let key = t.key;
    if (!Object.hasOwn(labels, key)) key = betaToGA[key] ?? key;
    if (!Object.hasOwn(labels, key) || !t.values.includes(labels[key] as string)) return false;
  }
  return true;
}

function preFilter(pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot): Status {
  const found = podVolumeTopologies(pod, snapshot);
  if (!Array.isArray(found)) return found;
  state.set(preFilterStateKey, found);
  return success;
}

function sameTopologies(a: PersistentVolumeInfo, b: PersistentVolumeInfo): boolean {
  return JSON.stringify(pvTopologies(a)) === JSON.stringify(pvTopologies(b));
}

/**
 * kube's events with queueing hints on: a node added or its labels changed; a StorageClass
 * added with WaitForFirstConsumer; a claim added or updated (kube: one the pod uses —
 * berth's hints do not see the pod, so any); a PV added, or updated with other topology.
 */
export const volumeZoneHint: QueueingHint = queueingHint({
  node: nodeAddedOr((b, a) => !sameRecord(b.labels, a.labels)),
  objects: {
    StorageClass: (before, after) =>
      added(before, after) && after?.volumeBindingMode === waitForFirstConsumer,
    PersistentVolumeClaim: addedOrUpdated,
    PersistentVolume: addedOr((b, a) => !sameTopologies(b, a)),
  },
});

/**
 * kube 1.34's VolumeZone. PreFilter: the topology labels of the PVs bound to the pod's
 * claims (see `podVolumeTopologies` for what rejects the pod outright). Filter:
 * UnschedulableAndUnresolvable "node(s) had no available volume zone" when a node's zone or
 * region labels do not allow one of those PVs.
 */
export const volumeZone = {
  name,
  queueingHint: volumeZoneHint,
  preFilter,
  /** kube's PreFilter Skip: no bound PV carries a topology label. */
  preFilterSkip(_pod: PodInfo, state: CycleState): boolean {
    const t = state.get(preFilterStateKey) as readonly PVTopology[] | undefined;
    return t !== undefined && t.length === 0;
  },
  filter(pod: PodInfo, node: NodeInfo, state: CycleState): Status {
    if (pod.volumes.length === 0) return success;
    const t = state.get(preFilterStateKey) as readonly PVTopology[] | undefined;
    if (t === undefined)
      return status('Error', name, `reading "${preFilterStateKey}" from cycle state: not found`);
    return fitsVolumeZones(t, node) ? success : conflict;
  },
} satisfies PreFilterPlugin & FilterPlugin;

/** Returns the VolumeZone plugin (it takes no arguments). */
export function newVolumeZone(): typeof volumeZone {
  return volumeZone;
}
