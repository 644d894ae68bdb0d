// UnsupportedConstraints (berth-specific PreFilter): refuses pods that ask for what berth cannot check, or did not when a log was recorded.
import type { PodInfo } from '../cluster/types.ts';
import { never } from '../framework/hints.ts';
import { type PreFilterPlugin, type Status, status, success } from '../framework/types.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'UnsupportedConstraints';

/**
 * Rejects a pod that carries a constraint this profile does not check, naming the field,
 * instead of placing it as if it had not asked. Today that is only DRA resource claims
 * under a configuration recorded before berth allocated them (`refuseResourceClaims`):
 * such logs refused those pods (PodInfo's `unsupported`), and replay must do the same.
 * UnschedulableAndUnresolvable: only an update of the pod changes the answer.
 */
export function newUnsupportedConstraints(refuseResourceClaims = false): PreFilterPlugin {
  return {
    name,
    queueingHint: never,
    preFilter(pod: PodInfo): Status {
      const reason = refuseResourceClaims ? pod.unsupported : undefined;
      return reason === undefined ? success : status('UnschedulableAndUnresolvable', name, reason);
    },
  };
}
