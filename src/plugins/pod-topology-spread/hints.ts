// PodTopologySpread queueing hint: which cluster changes could undo a spread rejection.
import type { PodRecord } from '../../cluster/types.ts';
import { sameRecord, sameTaints } from '../../framework/hints.ts';
import type { QueueingHint } from '../../framework/types.ts';

/** A pod that counts somewhere: bound or assumed (kube: `spec.nodeName` set). */
function placed(r: PodRecord | undefined): boolean {
  return r !== undefined && (r.charge.kind !== 'none' || r.info.nodeName !== undefined);
}

/**
 * kube's isSchedulableAfterPodChange/isSchedulableAfterNodeChange, widened because berth's
 * hint sees the change but not the waiting pod (so neither its selectors nor its topology
 * keys): a placed pod added or deleted (any labels); a placed pod whose labels, namespace,
 * node or terminating state changed (kube ignores the last one; berth's counts exclude
 * terminating pods, so it can help); a charge moved (assume, unreserve); a node added or
 * deleted, or its labels or taints changed; a relist removing anything. The waiting pod's
 * own update (e.g. a new toleration) is the queue's business.
 */
export const spreadQueueingHint: QueueingHint = (change) => {
  switch (change.kind) {
    case 'pod': {
      const { before, after } = change;
      if (change.replaced !== undefined && placed(change.replaced)) return true;
      if (before === undefined || after === undefined) return placed(before) || placed(after);
      if (!placed(before) && !placed(after)) return false;
      if (placed(before) !== placed(after)) return true;
      const b = before.info;
      const a = after.info;
      return (
        b.namespace !== a.namespace ||
        b.terminating !== a.terminating ||
        b.nodeName !== a.nodeName ||
        (before.charge.kind !== 'none' &&
          after.charge.kind !== 'none' &&
          before.charge.node !== after.charge.node) ||
        !sameRecord(b.labels, a.labels)
      );
    }
    case 'node': {
      const { before, after } = change;
      if (before === undefined || after === undefined) return true;
      return !sameRecord(before.labels, after.labels) || !sameTaints(before.taints, after.taints);
    }
    case 'charge':
      return true;
    case 'resync':
      return change.removedNodes.length > 0 || change.removedPods.length > 0;
    case 'none':
    case 'object':
      return false;
    default: {
      const unreachable: never = change;
      return unreachable;
    }
  }
};
