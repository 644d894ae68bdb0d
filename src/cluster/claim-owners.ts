// Who controls a ResourceClaim, as kube's resourceclaim helpers read its ownerReferences: the pod a template claim was made for, or the core PodGroup.
import { isRecord, type JsonRecord } from './fields.ts';

/** The uid of the controlling owner when it is a Pod. */
export function ownerPodUid(meta: JsonRecord): string | undefined {
  if (!Array.isArray(meta.ownerReferences)) return undefined;
  for (const ref of meta.ownerReferences)
    if (
      isRecord(ref) &&
      ref.controller === true &&
      ref.kind === 'Pod' &&
      typeof ref.uid === 'string'
    )
      return ref.uid;
  return undefined;
}

/** The controlling owner's name when it is a scheduling.k8s.io PodGroup (kube's isForPodGroupByPod). */
export function ownerPodGroup(meta: JsonRecord): string | undefined {
  if (!Array.isArray(meta.ownerReferences)) return undefined;
  const ref = meta.ownerReferences.find((r) => isRecord(r) && r.controller === true);
  if (!isRecord(ref) || ref.kind !== 'PodGroup' || typeof ref.name !== 'string') return undefined;
  const api = ref.apiVersion;
  return typeof api === 'string' && api.startsWith('scheduling.k8s.io/') ? ref.name : undefined;
}
