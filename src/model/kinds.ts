// The object kinds besides Node and Pod that berth lists, watches and logs, and their keys.
import { nameOfObject, podKeyOfObject } from './keys.ts';

/**
 * The kinds besides Node and Pod that berth lists, watches and logs, each trimmed to what
 * a plugin reads. They enter the log as `ObjectUpserted` / `ObjectDeleted`.
 */
export type ObjectKind =
  | 'Namespace'
  | 'Service'
  | 'ReplicaSet'
  | 'StatefulSet'
  | 'ReplicationController'
  | 'PersistentVolumeClaim'
  | 'PersistentVolume'
  | 'StorageClass'
  | 'CSINode'
  | 'PodDisruptionBudget'
  | 'PodGroup'
  | 'CorePodGroup'
  | 'ResourceClaim'
  | 'DeviceClass'
  | 'ResourceSlice'
  | 'DeviceTaintRule';

/** Every object kind, in the order the live runtime starts their watches. */
export const objectKinds: readonly ObjectKind[] = Object.freeze([
  'Namespace',
  'Service',
  'ReplicaSet',
  'StatefulSet',
  'ReplicationController',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'CSINode',
  'PodDisruptionBudget',
  'PodGroup',
  'CorePodGroup',
  'ResourceClaim',
  'DeviceClass',
  'ResourceSlice',
  'DeviceTaintRule',
]);

const namespaced: ReadonlySet<ObjectKind> = new Set<ObjectKind>([
  'Service',
  'ReplicaSet',
  'StatefulSet',
  'ReplicationController',
  'PersistentVolumeClaim',
  'PodDisruptionBudget',
  'PodGroup',
  'CorePodGroup',
  'ResourceClaim',
]);

/**
 * The kinds an API server may not serve (a CustomResourceDefinition not installed, an API
 * of a later Kubernetes release): berth runs without them (their relist ends `unavailable`) and says what that holds up.
 */
export const optionalObjectKinds: ReadonlySet<ObjectKind> = new Set<ObjectKind>([
  'PodGroup',
  // Kubernetes' own PodGroup (scheduling.k8s.io/v1beta1): served only with gate GenericWorkload.
  'CorePodGroup',
  // resource.k8s.io/v1 serves DeviceTaintRules from Kubernetes 1.37 (v1alpha3 before, off by default).
  'DeviceTaintRule',
]);

/** True for the object kinds that live in a namespace (their key is `namespace/name`). */
export function isNamespacedKind(kind: ObjectKind): boolean {
  return namespaced.has(kind);
}

const kindSet: ReadonlySet<string> = new Set(objectKinds);

/** True when `v` names an object kind. */
export function isObjectKind(v: unknown): v is ObjectKind {
  return typeof v === 'string' && kindSet.has(v);
}

/**
 * The key of a raw object of `kind`: `namespace/name` (namespace defaulting to `default`)
 * for namespaced kinds, `name` for cluster-scoped ones; undefined when it has no name.
 */
export function objectKeyOf(kind: ObjectKind, raw: unknown): string | undefined {
  return isNamespacedKind(kind) ? podKeyOfObject(raw) : nameOfObject(raw);
}
