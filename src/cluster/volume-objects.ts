// Parsed views of PersistentVolumeClaim, PersistentVolume, StorageClass and CSINode, built totally.

import type { NodeSelectorTerm } from '../model/objects.ts';
import { parseTerm } from './constraints.ts';
import { isRecord, type JsonRecord, nonEmptyString } from './fields.ts';
import { type InTreeDisk, parseInTreeDisk } from './pod-volumes.ts';

/** PVC and PV annotation naming the storage class (read before `spec.storageClassName`). */
export const annBetaStorageClass = 'volume.beta.kubernetes.io/storage-class';
/** PVC annotation the PV controller sets once it has bound the claim (kube's AnnBindCompleted). */
export const annBindCompleted = 'pv.kubernetes.io/bind-completed';
/** PVC annotation naming the node a WaitForFirstConsumer volume is provisioned for. */
export const annSelectedNode = 'volume.kubernetes.io/selected-node';
/** CSINode annotation listing the in-tree plugins migrated to CSI on the node. */
export const annMigratedPlugins = 'storage.alpha.kubernetes.io/migrated-plugins';

/** The PV labels VolumeZone reads, in kube's order (beta zone, beta region, GA zone, GA region). */
export const volumeTopologyLabels: readonly string[] = Object.freeze([
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
]);

/** A PersistentVolumeClaim as the volume plugins read it. Plain JSON data. */
export interface PersistentVolumeClaimInfo {
  namespace: string;
  name: string;
  /** `spec.volumeName`: the PV it is (being) bound to, `''` when none. */
  volumeName: string;
  /** kube's GetPersistentVolumeClaimClass: the beta annotation, else `spec.storageClassName`, else `''`. */
  storageClassName: string;
  accessModes: string[];
  /** `status.phase` (`Pending`, `Bound`, `Lost`), `''` when absent. */
  phase: string;
  /** Has the `pv.kubernetes.io/bind-completed` annotation. */
  bindCompleted: boolean;
  /** `volume.kubernetes.io/selected-node`, `''` when absent. */
  selectedNode: string;
  /** `metadata.deletionTimestamp` is set. */
  deleting: boolean;
  /** The uid of its controller owner reference (a generic ephemeral claim's pod), `''` when none. */
  controllerUid: string;
}

/** A CSI source of a PersistentVolume. */
export interface CSISource {
  driver: string;
  volumeHandle: string;
}

/** A PersistentVolume as the volume plugins read it. Plain JSON data. */
export interface PersistentVolumeInfo {
  name: string;
  /** kube's GetPersistentVolumeClass: the beta annotation, else `spec.storageClassName`. */
  storageClassName: string;
  /**
   * `spec.nodeAffinity.required.nodeSelectorTerms` (ORed), or undefined when the PV has no
   * required node affinity. Malformed terms are dropped: they match no node either way.
   */
  requiredNodeAffinity?: NodeSelectorTerm[];
  /** The topology labels it carries, as [key, value] in `volumeTopologyLabels` order. */
  topologyLabels: [string, string][];
  csi?: CSISource;
  /** An in-tree source that CSI migration may translate (NodeVolumeLimits). */
  inTree?: InTreeDisk;
  /** `status.phase`, `''` when absent. */
  phase: string;
}

/** A StorageClass as the volume plugins read it. Plain JSON data. */
export interface StorageClassInfo {
  name: string;
  provisioner: string;
  /** `volumeBindingMode` (`Immediate`, `WaitForFirstConsumer`); `''` when unset. */
  volumeBindingMode: string;
  /** `allowedTopologies` as JSON text (`''` when absent): only compared, for queueing hints. */
  allowedTopologies: string;
}

/** One driver of a CSINode: its name and attach limit (`allocatable.count`), if any. */
export interface CSINodeDriver {
  name: string;
  count?: number;
}

/** A CSINode (named after its node) as the volume plugins read it. Plain JSON data. */
export interface CSINodeInfo {
  name: string;
  drivers: CSINodeDriver[];
  /** The `storage.alpha.kubernetes.io/migrated-plugins` annotation split at commas; [] when empty. */
  migratedPlugins: string[];
}

/** A parser's answer (the shape of cluster-objects' ObjectParse, repeated to avoid a cycle). */
type Parse<T> = { value: T } | { rejected: string };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function metaOf(raw: unknown, kind: string): { meta: JsonRecord; name: string } | string {
  const meta = isRecord(raw) && isRecord(raw.metadata) ? raw.metadata : undefined;
  const name = meta === undefined ? undefined : nonEmptyString(meta.name);
  if (meta === undefined || name === undefined) return `${kind} has no metadata.name`;
  return { meta, name };
}

/** The value of annotation `key`, read as an own string property; undefined when absent. */
function annotation(meta: JsonRecord, key: string): string | undefined {
  const a = meta.annotations;
  if (!isRecord(a) || !Object.hasOwn(a, key)) return undefined;
  return typeof a[key] === 'string' ? a[key] : undefined;
}

function controllerUid(meta: JsonRecord): string {
  if (!Array.isArray(meta.ownerReferences)) return '';
  for (const ref of meta.ownerReferences) {
    if (isRecord(ref) && ref.controller === true) return str(ref.uid);
  }
  return '';
}

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

/** Parses a PersistentVolumeClaim. Never throws; rejects only a nameless object. */
export function parsePersistentVolumeClaim(raw: unknown): Parse<PersistentVolumeClaimInfo> {
  const m = metaOf(raw, 'PersistentVolumeClaim');
  if (typeof m === 'string') return { rejected: m };
  const { meta, name } = m;
  const obj = raw as JsonRecord;
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const status = isRecord(obj.status) ? obj.status : {};
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  return {
    value: {
      namespace: nonEmptyString(meta.namespace) ?? 'default',
      name,
      volumeName: str(spec.volumeName),
      storageClassName: annotation(meta, annBetaStorageClass) ?? str(spec.storageClassName),
      accessModes: modes.filter((x): x is string => typeof x === 'string'),
      phase: str(status.phase),
      bindCompleted: annotation(meta, annBindCompleted) !== undefined,
      selectedNode: annotation(meta, annSelectedNode) ?? '',
      deleting: present(meta.deletionTimestamp),
      controllerUid: controllerUid(meta),
    },
  };
}

function nodeAffinityTerms(spec: JsonRecord): NodeSelectorTerm[] | undefined {
  const na = spec.nodeAffinity;
  if (!isRecord(na) || !isRecord(na.required)) return undefined;
  const list = na.required.nodeSelectorTerms;
  const out: NodeSelectorTerm[] = [];
  if (!Array.isArray(list)) return out;
  list.forEach((t, i) => {
    const term = parseTerm(t, `spec.nodeAffinity.required.nodeSelectorTerms[${i}]`);
    if (term.ok) out.push(term.value);
  });
  return out;
}

function topologyLabels(meta: JsonRecord): [string, string][] {
  const labels = meta.labels;
  if (!isRecord(labels)) return [];
  const out: [string, string][] = [];
  for (const key of volumeTopologyLabels) {
    const v = Object.hasOwn(labels, key) ? labels[key] : undefined;
    if (typeof v === 'string') out.push([key, v]);
  }
  return out;
}

/** Parses a PersistentVolume. Never throws; rejects only a nameless object. */
export function parsePersistentVolume(raw: unknown): Parse<PersistentVolumeInfo> {
  const m = metaOf(raw, 'PersistentVolume');
  if (typeof m === 'string') return { rejected: m };
  const { meta, name } = m;
  const obj = raw as JsonRecord;
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const status = isRecord(obj.status) ? obj.status : {};
  const value: PersistentVolumeInfo = {
    name,
    storageClassName: annotation(meta, annBetaStorageClass) ?? str(spec.storageClassName),
    topologyLabels: topologyLabels(meta),
    phase: str(status.phase),
  };
  const terms = nodeAffinityTerms(spec);
  if (terms !== undefined) value.requiredNodeAffinity = terms;
  if (isRecord(spec.csi)) {
    value.csi = { driver: str(spec.csi.driver), volumeHandle: str(spec.csi.volumeHandle) };
  } else {
    const disk = parseInTreeDisk(spec);
    if (disk !== undefined) value.inTree = disk;
  }
  return { value };
}

/** Parses a StorageClass. Never throws; rejects only a nameless object. */
export function parseStorageClass(raw: unknown): Parse<StorageClassInfo> {
  const m = metaOf(raw, 'StorageClass');
  if (typeof m === 'string') return { rejected: m };
  const obj = raw as JsonRecord;
  const topologies = obj.allowedTopologies;
  return {
    value: {
      name: m.name,
      provisioner: str(obj.provisioner),
      volumeBindingMode: str(obj.volumeBindingMode),
      allowedTopologies: present(topologies) ? JSON.stringify(topologies) : '',
    },
  };
}

function driverOf(d: unknown): CSINodeDriver | undefined {
  if (!isRecord(d)) return undefined;
  const driver: CSINodeDriver = { name: str(d.name) };
  const count = isRecord(d.allocatable) ? d.allocatable.count : undefined;
  if (typeof count === 'number' && Number.isInteger(count)) driver.count = count;
  return driver;
}

/** Parses a CSINode. Never throws; rejects only a nameless object. */
export function parseCSINode(raw: unknown): Parse<CSINodeInfo> {
  const m = metaOf(raw, 'CSINode');
  if (typeof m === 'string') return { rejected: m };
  const obj = raw as JsonRecord;
  const list = isRecord(obj.spec) && Array.isArray(obj.spec.drivers) ? obj.spec.drivers : [];
  const drivers: CSINodeDriver[] = [];
  for (const d of list) {
    const driver = driverOf(d);
    if (driver !== undefined) drivers.push(driver);
  }
  const migrated = annotation(m.meta, annMigratedPlugins) ?? '';
  return {
    value: { name: m.name, drivers, migratedPlugins: migrated === '' ? [] : migrated.split(',') },
  };
}
