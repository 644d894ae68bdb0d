// The DisruptionTarget condition berth writes on a preemption victim, and the one that takes it back.
import type { ApiFailure } from './api-error.ts';

/** A pod condition as berth writes it in a pods/status strategic merge patch. */
export interface PodConditionPatch {
  type: 'DisruptionTarget';
  observedGeneration?: number;
  status: 'True' | 'False';
  reason: string;
  message: string;
  lastTransitionTime: string;
}

/** kube's reason on a victim the scheduler is about to delete (v1.PodReasonPreemptionByScheduler). */
export const preemptionByScheduler = 'PreemptionByScheduler';

/** berth's reason when it takes the condition back: the victim could not be deleted. */
export const preemptionAbandoned = 'PreemptionAbandoned';

/**
 * `observedGeneration` for a condition berth writes, as kube 1.34 sets it from the pod's
 * metadata.generation; nothing when unknown (0, or an older log).
 */
export function generationField(generation: number | undefined): { observedGeneration?: number } {
  return generation !== undefined && generation > 0 ? { observedGeneration: generation } : {};
}

/**
 * DisruptionTarget=True, reason PreemptionByScheduler, with kube's message: it names the
 * preemptor's kind, `pod`, or `podgroup` for a core PodGroup's preemption (kube 1.37.2).
 */
export function disruptionTarget(
  schedulerName: string,
  now: Date,
  observedGeneration?: number,
  preemptor: 'pod' | 'podgroup' = 'pod',
): PodConditionPatch {
  return {
    type: 'DisruptionTarget',
    ...generationField(observedGeneration),
    status: 'True',
    reason: preemptionByScheduler,
    message: `${schedulerName}: preempting to accommodate a higher priority ${preemptor}`,
    lastTransitionTime: now.toISOString(),
  };
}

/**
 * DisruptionTarget=False, reason PreemptionAbandoned, saying why: what replaces the True
 * condition when the victim's delete failed, so that the pod no longer claims to be going
 * away. (kube-scheduler leaves the True condition; kube-controller-manager's disruption
 * controller sets it False two minutes later. berth does not rely on a controller.)
 */
export function disruptionAbandoned(
  schedulerName: string,
  now: Date,
  failure: ApiFailure,
  observedGeneration?: number,
): PodConditionPatch {
  return {
    type: 'DisruptionTarget',
    ...generationField(observedGeneration),
    status: 'False',
    reason: preemptionAbandoned,
    message: `${schedulerName}: not preempted after all: deleting the pod failed: ${failure.message}`,
    lastTransitionTime: now.toISOString(),
  };
}

/**
 * True when `failure` is the API server refusing the request (a 4xx answer): nothing was
 * done. A 5xx or no answer at all (timeout, reset) may hide a write that landed.
 */
export function refused(failure: ApiFailure): boolean {
  return failure.code !== undefined && failure.code >= 400 && failure.code < 500;
}
