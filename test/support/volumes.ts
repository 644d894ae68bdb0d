// Test builders for the volume plugins: raw PVC/PV/StorageClass/CSINode objects, parsed by the real parsers, in a snapshot.
import { emptyObjectStore, type ObjectStore } from '../../src/cluster/cluster-objects.ts';
import type { PodVolume } from '../../src/cluster/pod-volumes.ts';
import type { ClusterSnapshot, NodeInfo } from '../../src/cluster/types.ts';
import {
  parseCSINode,
  parsePersistentVolume,
  parsePersistentVolumeClaim,
  parseStorageClass,
} from '../../src/cluster/volume-objects.ts';

type Raw = Record<string, unknown>;

function parsed<T>(r: { value: T } | { rejected: string }): T {
  if ('rejected' in r) throw new Error(`test object rejected: ${r.rejected}`);
  return r.value;
}

/** The fields a test may give a claim. `bound` sets volumeName and bind-completed. */
export interface ClaimSpec {
  name: string;
  namespace?: string;
  volumeName?: string;
  bound?: boolean;
  storageClassName?: string;
  accessModes?: string[];
  phase?: string;
  deleting?: boolean;
  controllerUid?: string;
  annotations?: Record<string, string>;
}

/** A raw PersistentVolumeClaim as the API serves it. */
export function claimObject(c: ClaimSpec): Raw {
  const annotations: Record<string, string> = { ...(c.annotations ?? {}) };
  if (c.bound === true) annotations['pv.kubernetes.io/bind-completed'] = 'yes';
  const metadata: Raw = { name: c.name, namespace: c.namespace ?? 'default', annotations };
  if (c.deleting === true) metadata.deletionTimestamp = '2025-01-01T00:00:00Z';
  if (c.controllerUid !== undefined)
    metadata.ownerReferences = [{ kind: 'Pod', name: 'p', uid: c.controllerUid, controller: true }];
  const spec: Raw = { accessModes: c.accessModes ?? ['ReadWriteOnce'] };
  if (c.volumeName !== undefined) spec.volumeName = c.volumeName;
  if (c.storageClassName !== undefined) spec.storageClassName = c.storageClassName;
  return { metadata, spec, status: { phase: c.phase ?? (c.bound ? 'Bound' : 'Pending') } };
}

/** The fields a test may give a PV. */
export interface VolumeSpec {
  name: string;
  labels?: Record<string, string>;
  csi?: { driver: string; volumeHandle: string };
  /** Any other `spec` fields (in-tree sources, nodeAffinity, storageClassName). */
  spec?: Raw;
}

/** A raw PersistentVolume. */
export function volumeObject(v: VolumeSpec): Raw {
  const spec: Raw = { ...(v.spec ?? {}) };
  if (v.csi !== undefined) spec.csi = v.csi;
  return { metadata: { name: v.name, labels: v.labels ?? {} }, spec };
}

/** A PV whose required node affinity is the given terms. */
export function volumeWithAffinity(name: string, nodeSelectorTerms: unknown[]): VolumeSpec {
  return { name, spec: { nodeAffinity: { required: { nodeSelectorTerms } } } };
}

/** A raw StorageClass. */
export function classObject(name: string, provisioner: string, mode?: string): Raw {
  const o: Raw = { metadata: { name }, provisioner };
  if (mode !== undefined) o.volumeBindingMode = mode;
  return o;
}

/** A raw CSINode with per-driver limits (`undefined` count: a driver without a limit). */
export function csiNodeObject(
  node: string,
  drivers: Record<string, number | undefined>,
  migratedPlugins?: string,
): Raw {
  const metadata: Raw = { name: node };
  if (migratedPlugins !== undefined)
    metadata.annotations = { 'storage.alpha.kubernetes.io/migrated-plugins': migratedPlugins };
  return {
    metadata,
    spec: {
      drivers: Object.entries(drivers).map(([name, count]) =>
        count === undefined
          ? { name, nodeID: node }
          : { name, nodeID: node, allocatable: { count } },
      ),
    },
  };
}

/** The objects of a test cluster, raw. */
export interface TestObjects {
  claims?: Raw[];
  volumes?: Raw[];
  classes?: Raw[];
  csiNodes?: Raw[];
}

/** An object store holding the given raw objects, each parsed by its kind's parser. */
export function objectStore(o: TestObjects = {}): ObjectStore {
  const store = emptyObjectStore();
  for (const raw of o.claims ?? []) {
    const c = parsed(parsePersistentVolumeClaim(raw));
    store.PersistentVolumeClaim.set(`${c.namespace}/${c.name}`, c);
  }
  for (const raw of o.volumes ?? []) {
    const v = parsed(parsePersistentVolume(raw));
    store.PersistentVolume.set(v.name, v);
  }
  for (const raw of o.classes ?? []) {
    const c = parsed(parseStorageClass(raw));
    store.StorageClass.set(c.name, c);
  }
  for (const raw of o.csiNodes ?? []) {
    const n = parsed(parseCSINode(raw));
    store.CSINode.set(n.name, n);
  }
  return store;
}

/** A snapshot over `nodes` (in order) with the given objects. */
export function volumeSnapshot(nodes: NodeInfo[], objects: TestObjects = {}): ClusterSnapshot {
  return {
    nodes: new Map(nodes.map((n) => [n.name, n])),
    nodeOrder: nodes,
    nodeIndex: new Map(nodes.map((n, i) => [n.name, i])),
    topology: new Map(),
    nominated: new Map(),
    imageStates: new Map(),
    objects: objectStore(objects),
  };
}

/** A PVC volume named after its claim. */
export function pvcVolume(claimName: string, name = claimName): PodVolume {
  return { name, type: 'persistentVolumeClaim', claimName };
}
