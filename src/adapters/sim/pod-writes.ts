// What the simulated API server writes to pods and refuses: a Binding's refusals (pod gone, replaced, bound, deleting, gated, injected failures) and an evicted pod's last state.

import type { AttemptRef } from '../../events/types.ts';
import type { Rng } from '../../framework/rng.ts';
import type { PodObject } from '../../model/objects.ts';
import type { ClaimPod, ClaimRefusal } from './sim-claims.ts';

function hasGates(pod: PodObject): boolean {
  const gates = (pod.spec as { schedulingGates?: unknown }).schedulingGates;
  return Array.isArray(gates) && gates.length > 0;
}

/** The pod an attempt binds, as a claim's consumer names it (`key` is `namespace/name`). */
export function claimPodOf(attempt: AttemptRef): ClaimPod {
  const slash = attempt.key.indexOf('/');
  return {
    namespace: attempt.key.slice(0, slash),
    name: attempt.key.slice(slash + 1),
    uid: attempt.uid,
  };
}

/**
 * Why the API server refuses the attempt's Binding of `pod` (the pod stored under the
 * attempt's key): NotFound when there is none, Conflict when its uid differs, it is bound
 * already, being deleted or gated; else an injected Error with probability
 * `bindFailureRate` (drawn from `rng` only when nothing else refuses). Undefined: it binds.
 */
export function bindRefusal(
  pod: PodObject | undefined,
  attempt: AttemptRef,
  opts: { bindFailureRate: number; rng: Rng },
): ClaimRefusal | undefined {
  const { key, uid } = attempt;
  if (pod === undefined) return { reason: 'NotFound', message: `pods "${key}" not found` };
  if (pod.metadata.uid !== uid)
    return {
      reason: 'Conflict',
      message: `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.metadata.uid}`,
    };
  const current = pod.spec.nodeName;
  if (current !== undefined && current !== '')
    return {
      reason: 'Conflict',
      message: `pod ${key} is already assigned to node "${current}"`,
    };
  if (pod.metadata.deletionTimestamp !== undefined)
    return {
      reason: 'Conflict',
      message: `pod ${key} is being deleted, cannot be assigned to a host`,
    };
  if (hasGates(pod))
    return { reason: 'Conflict', message: `pod ${key} has non-empty .spec.schedulingGates` };
  if (opts.bindFailureRate > 0 && opts.rng.nextFloat() < opts.bindFailureRate)
    return { reason: 'Error', message: 'injected bind failure' };
  return undefined;
}

/**
 * The victim of a preemption as its last update shows it: condition DisruptionTarget=True
 * (reason PreemptionByScheduler, replacing any earlier one) and a deletionTimestamp of `now`
 * unless it had one already.
 */
export function terminatingPod(
  pod: PodObject,
  schedulerName: string,
  now: string,
  preemptor: 'pod' | 'podgroup' = 'pod',
): PodObject {
  const conditions: unknown = pod.status?.conditions;
  const others = (Array.isArray(conditions) ? conditions : []).filter(
    (c: { type?: unknown } | null) => c?.type !== 'DisruptionTarget',
  );
  const condition = {
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'PreemptionByScheduler',
    message: `${schedulerName}: preempting to accommodate a higher priority ${preemptor}`,
    lastTransitionTime: now,
  };
  return {
    ...pod,
    metadata: { ...pod.metadata, deletionTimestamp: pod.metadata.deletionTimestamp ?? now },
    status: { ...pod.status, conditions: [...others, condition] },
  };
}
