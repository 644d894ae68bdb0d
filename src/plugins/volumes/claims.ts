// Shared look-ups of the volume plugins: claims, volumes and classes by name, with kube's not-found texts.
import type { ObjectStoreView } from '../../cluster/cluster-objects.ts';
import type { PodInfo } from '../../cluster/types.ts';
import type {
  PersistentVolumeClaimInfo,
  PersistentVolumeInfo,
  StorageClassInfo,
} from '../../cluster/volume-objects.ts';

/** `ReadWriteOncePod`: at most one pod in the cluster may use such a claim. */
export const readWriteOncePod = 'ReadWriteOncePod';
/** The binding mode that delays binding and provisioning until a pod is scheduled. */
export const waitForFirstConsumer = 'WaitForFirstConsumer';

/**
 * Go's `%q` for the names in kube's messages. Object names are DNS labels or subdomains,
 * for which JSON's quoting is the same (it differs only for control and non-ASCII runes).
 */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** kube's lister NotFound error text, e.g. `persistentvolumeclaim "data" not found`. */
export function notFound(
  resource: 'persistentvolumeclaim' | 'persistentvolume' | 'storageclass.storage.k8s.io',
  name: string,
): string {
  return `${resource} ${goQuote(name)} not found`;
}

/** The store key of claim `name` in the pod's namespace (kube's GetNamespacedName). */
export function claimKey(pod: PodInfo, name: string): string {
  return `${pod.namespace}/${name}`;
}

/** The claim `name` in `pod`'s namespace, if the cluster has it. */
export function getClaim(
  objects: ObjectStoreView,
  pod: PodInfo,
  name: string,
): PersistentVolumeClaimInfo | undefined {
  return objects.PersistentVolumeClaim.get(claimKey(pod, name));
}

/** The PersistentVolume `name`, if the cluster has it (`''` names none). */
export function getVolume(
  objects: ObjectStoreView,
  name: string,
): PersistentVolumeInfo | undefined {
  return name === '' ? undefined : objects.PersistentVolume.get(name);
}

/** The StorageClass `name`, if the cluster has it (`''` names none). */
export function getClass(objects: ObjectStoreView, name: string): StorageClassInfo | undefined {
  return name === '' ? undefined : objects.StorageClass.get(name);
}
