// Queueing hints: which cluster events could make a parked (unschedulable) pod fit.
import type { Charge } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';

/** Where a pod's resources were charged before and after an event (for pod events). */
export interface ChargeChange {
  before: Charge | undefined;
  after: Charge | undefined;
}

function frees(change: ChargeChange): boolean {
  const before = change.before;
  if (before === undefined || before.kind === 'none') return false;
  const after = change.after;
  return after === undefined || after.kind === 'none' || after.node !== before.node;
}

/**
 * True when `event` could help an unschedulable pod: a node was added or changed, a
 * pod stopped using capacity (deleted, completed, moved), an assumption was forgotten,
 * or a relist finished (it may have removed objects). Nothing else moves parked pods.
 */
export function couldHelpParkedPods(event: BerthEvent, change: ChargeChange): boolean {
  switch (event.type) {
    case 'NodeUpserted':
    case 'ResyncDone':
    case 'BindFailed':
      return true;
    case 'PodDeleted':
    case 'PodUpserted':
      return frees(change);
    case 'NodeDeleted':
    case 'ResyncStarted':
    case 'BindSucceeded':
    case 'TimerFired':
    case 'PodAssumed':
    case 'PodUnschedulable':
      return false;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
