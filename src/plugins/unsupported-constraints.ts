// UnsupportedConstraints (berth-specific PreFilter): refuses pods that ask for what berth cannot check yet.
import type { PodInfo } from '../cluster/types.ts';
import { never } from '../framework/hints.ts';
import { type PreFilterPlugin, type Status, status, success } from '../framework/types.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'UnsupportedConstraints';

/**
 * Rejects a pod that carries a constraint no berth plugin checks yet (PodInfo's
 * `unsupported`; none today), naming the field, instead of placing it as if it had not
 * asked. UnschedulableAndUnresolvable: only an update of the pod (or a newer berth)
 * changes the answer.
 */
export const unsupportedConstraints = {
  name,
  queueingHint: never,
  preFilter(pod: PodInfo): Status {
    const reason = pod.unsupported;
    return reason === undefined ? success : status('UnschedulableAndUnresolvable', name, reason);
  },
} satisfies PreFilterPlugin;

/** Returns the UnsupportedConstraints plugin (it takes no arguments). */
export function newUnsupportedConstraints(): typeof unsupportedConstraints {
  return unsupportedConstraints;
}
