// kube-scheduler 1.37.2's validatePodGroup for a core PodGroup: one scheduler name, the group's priority, one preemption policy.
import { corePodGroupKeyOfGroup } from '../cluster/core-pod-groups.ts';
import type { PodInfo } from '../cluster/types.ts';
import type { CoreState } from './core-state.ts';
import { placedMembers } from './gang-victims.ts';

/**
 * Why core group `key`'s members cannot be scheduled as one group, in kube's words, or
 * undefined: every member (`waiting`, then those already placed) must name the same
 * scheduler as the first, have the PodGroup's `spec.priority` (0 when unset), and have the
 * PodGroup's `spec.preemptionPolicy` when it is set (gate PodGroupPreemptionPolicy), else
 * the first member's. A scheduler-plugins group, or one whose PodGroup is gone, passes.
 */
export function coreGroupMismatch(
  core: CoreState,
  key: string,
  waiting: readonly PodInfo[],
): string | undefined {
  const objectKey = corePodGroupKeyOfGroup(key);
  const pg = objectKey === undefined ? undefined : core.cluster.objects.CorePodGroup.get(objectKey);
  if (pg === undefined) return undefined;
  const first = waiting[0];
  if (first === undefined) return undefined;
  let policy: string | undefined;
  for (const pod of [...waiting, ...placedMembers(core, key)]) {
    if (pod.schedulerName !== first.schedulerName)
      return `all pods in a single pod group should have the same .spec.schedulerName set, got: "${pod.schedulerName}" and "${first.schedulerName}"`;
    if (pod.priority !== pg.priority)
      return `all pods in a single pod group should have the same priority as the pod group's priority, got ${pod.priority} and ${pg.priority}`;
    if (pg.preemptionPolicy !== undefined) {
      if (pod.preemptionPolicy !== pg.preemptionPolicy)
        return `all pods in a single pod group should have the same preemption policy as the pod group's preemption policy, got ${pod.preemptionPolicy} and ${pg.preemptionPolicy}`;
    } else if (policy === undefined) policy = pod.preemptionPolicy;
    else if (pod.preemptionPolicy !== policy)
      return `all pods in a single pod group should have the same preemption policy, got ${pod.preemptionPolicy} and ${policy}`;
  }
  return undefined;
}
