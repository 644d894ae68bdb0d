// The other API objects berth reads (namespaces, workloads, volumes, disruption budgets, pod groups, DRA objects): kinds, keys, parsed views.

import type {
  DeviceClassInfo,
  DeviceTaintRuleInfo,
  ResourceClaimInfo,
  ResourceSliceInfo,
} from '../model/dra-types.ts';
import { type ObjectKind, objectKinds } from '../model/kinds.ts';
import { type CorePodGroupInfo, parseCorePodGroup } from './core-pod-groups.ts';
import { type DisruptionBudget, parseDisruptionBudget } from './disruption-budgets.ts';
import { parseDeviceClass, parseDeviceTaintRule, parseResourceClaim } from './dra-objects.ts';
import { parseResourceSlice } from './dra-slices.ts';
import { isRecord, nonEmptyString, stringEntries } from './fields.ts';
import { type PodGroupInfo, parsePodGroup } from './pod-groups.ts';
import { type PodLabelSelector, parseLabelSelector } from './spread-constraints.ts';
import {
  type CSINodeInfo,
  type PersistentVolumeClaimInfo,
  type PersistentVolumeInfo,
  parseCSINode,
  parsePersistentVolume,
  parsePersistentVolumeClaim,
  parseStorageClass,
  type StorageClassInfo,
} from './volume-objects.ts';

export {
  isNamespacedKind,
  isObjectKind,
  type ObjectKind,
  objectKeyOf,
  objectKinds,
  optionalObjectKinds,
} from '../model/kinds.ts';

/** A Namespace: its labels (InterPodAffinity's `namespaceSelector` reads them). */
export interface NamespaceInfo {
  name: string;
  labels: Record<string, string>;
}

/**
 * A Service, ReplicaSet, StatefulSet or ReplicationController, reduced to its pod
 * selector: PodTopologySpread's default constraints select the pods of the workloads that
 * select the incoming pod. A Service or ReplicationController selector is a plain map; an
 * absent or empty one selects nothing (as kube's DefaultSelector skips it).
 */
export interface WorkloadInfo {
  kind: 'Service' | 'ReplicaSet' | 'StatefulSet' | 'ReplicationController';
  namespace: string;
  name: string;
  /** The pod selector; `undefined` when it selects nothing (absent, empty or malformed). */
  selector: PodLabelSelector | undefined;
}

/**
 * The parsed view each kind is stored as: plain JSON data (snapshots store it as it is),
 * except a PodDisruptionBudget's `disruptedPods` Set, which snapshots write as a list.
 */
export interface ObjectTypes {
  Namespace: NamespaceInfo;
  Service: WorkloadInfo;
  ReplicaSet: WorkloadInfo;
  StatefulSet: WorkloadInfo;
  ReplicationController: WorkloadInfo;
  PersistentVolumeClaim: PersistentVolumeClaimInfo;
  PersistentVolume: PersistentVolumeInfo;
  StorageClass: StorageClassInfo;
  CSINode: CSINodeInfo;
  PodDisruptionBudget: DisruptionBudget;
  PodGroup: PodGroupInfo;
  CorePodGroup: CorePodGroupInfo;
  ResourceClaim: ResourceClaimInfo;
  DeviceClass: DeviceClassInfo;
  ResourceSlice: ResourceSliceInfo;
  DeviceTaintRule: DeviceTaintRuleInfo;
}

/** The objects of every kind, by key. Written only by the reducer. */
export type ObjectStore = { [K in ObjectKind]: Map<string, ObjectTypes[K]> };

/** Read-only view of the store, as plugins see it in the snapshot. */
export type ObjectStoreView = { readonly [K in ObjectKind]: ReadonlyMap<string, ObjectTypes[K]> };

/** An empty store. */
export function emptyObjectStore(): ObjectStore {
  const store = {} as Record<ObjectKind, Map<string, unknown>>;
  for (const kind of objectKinds) store[kind] = new Map();
  return store as ObjectStore;
}

/** A parser's answer: the parsed view, or why the object cannot be stored at all. */
export type ObjectParse<T> = { value: T } | { rejected: string };

function parseNamespace(raw: unknown): ObjectParse<NamespaceInfo> {
  const name =
    isRecord(raw) && isRecord(raw.metadata) ? nonEmptyString(raw.metadata.name) : undefined;
  if (name === undefined) return { rejected: 'Namespace has no metadata.name' };
  return {
    value: {
      name,
      labels: stringEntries((raw as { metadata: { labels?: unknown } }).metadata.labels),
    },
  };
}

/** A plain map selector (Service, ReplicationController): empty or absent selects nothing. */
function mapSelector(v: unknown): PodLabelSelector | undefined {
  if (!isRecord(v)) return undefined;
  const labels = stringEntries(v);
  if (Object.keys(labels).length === 0) return undefined;
  const parsed = parseLabelSelector({ matchLabels: labels }, 'spec.selector');
  return parsed.ok ? parsed.value : undefined;
}

/** A metav1.LabelSelector (ReplicaSet, StatefulSet): malformed or empty selects nothing. */
function labelSelector(v: unknown): PodLabelSelector | undefined {
  if (!isRecord(v)) return undefined;
  const parsed = parseLabelSelector(v, 'spec.selector');
  if (!parsed.ok) return undefined;
  const sel = parsed.value;
  return sel.requirements.length === 0 ? undefined : sel;
}

function workloadParser(kind: WorkloadInfo['kind']): (raw: unknown) => ObjectParse<WorkloadInfo> {
  const selectorOf =
    kind === 'Service' || kind === 'ReplicationController' ? mapSelector : labelSelector;
  return (raw) => {
    if (!isRecord(raw) || !isRecord(raw.metadata)) return { rejected: `${kind} has no metadata` };
    const name = nonEmptyString(raw.metadata.name);
    if (name === undefined) return { rejected: `${kind} has no metadata.name` };
    const namespace = nonEmptyString(raw.metadata.namespace) ?? 'default';
    const spec = isRecord(raw.spec) ? raw.spec : undefined;
    return { value: { kind, namespace, name, selector: selectorOf(spec?.selector) } };
  };
}

/** The parser of each kind. Total: never throws; a nameless object is rejected. */
export const objectParsers: {
  readonly [K in ObjectKind]: (raw: unknown) => ObjectParse<ObjectTypes[K]>;
} = {
  Namespace: parseNamespace,
  Service: workloadParser('Service'),
  ReplicaSet: workloadParser('ReplicaSet'),
  StatefulSet: workloadParser('StatefulSet'),
  ReplicationController: workloadParser('ReplicationController'),
  PersistentVolumeClaim: parsePersistentVolumeClaim,
  PersistentVolume: parsePersistentVolume,
  StorageClass: parseStorageClass,
  CSINode: parseCSINode,
  PodDisruptionBudget: parseDisruptionBudget,
  PodGroup: parsePodGroup,
  CorePodGroup: parseCorePodGroup,
  ResourceClaim: parseResourceClaim,
  DeviceClass: parseDeviceClass,
  ResourceSlice: parseResourceSlice,
  DeviceTaintRule: parseDeviceTaintRule,
};
