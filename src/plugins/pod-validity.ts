// PodValidity (berth-specific PreFilter): a pod the reducer could not parse is never scheduled.

import type { PodInfo } from '../cluster/types.ts';
import { never } from '../framework/hints.ts';
import { type PreFilterPlugin, type Status, status, success } from '../framework/types.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'PodValidity';

/** Reason used when a pod is marked invalid without any text (should not happen). */
export const ErrReasonInvalidPod = 'pod is invalid';

/**
 * Rejects a pod whose `invalid` is set, with that text as the reason. Preemption cannot
 * help, so the code is UnschedulableAndUnresolvable; the pod waits for an update.
 */
export const podValidity = {
  name,
  queueingHint: never,
  preFilter(pod: PodInfo): Status {
    const invalid = pod.invalid;
    if (invalid === undefined) return success;
    return status(
      'UnschedulableAndUnresolvable',
      name,
      invalid === '' ? ErrReasonInvalidPod : invalid,
    );
  },
} satisfies PreFilterPlugin;

/** Returns the PodValidity plugin (it takes no arguments). */
export function newPodValidity(): typeof podValidity {
  return podValidity;
}
