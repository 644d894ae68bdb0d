// PodTopologySpread queueing hint: which cluster changes could undo a spread rejection.
import {
  always,
  nodeAnyOr,
  placedPodChange,
  queueingHint,
  removedAnything,
  sameRecord,
  sameTaints,
} from '../../framework/hints.ts';
import type { QueueingHint } from '../../framework/types.ts';

/** A placed pod added or deleted, or one whose place, labels or terminating state changed. */
const placedPodChanged = placedPodChange((before, after) => {
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
});

/**
 * kube's isSchedulableAfterPodChange/isSchedulableAfterNodeChange, widened because berth's
 * hint sees the change but not the waiting pod (so neither its selectors nor its topology
 * keys): a placed pod added or deleted (any labels); a placed pod whose labels, namespace,
 * node or terminating state changed (kube ignores the last one; berth's counts exclude
 * terminating pods, so it can help); a charge moved (assume, unreserve); a node added or
 * deleted, or its labels or taints changed; a relist removing anything. The waiting pod's
 * own update (e.g. a new toleration) is the queue's business.
 */
export const spreadQueueingHint: QueueingHint = queueingHint({
  pod: placedPodChanged,
  node: nodeAnyOr((b, a) => !sameRecord(b.labels, a.labels) || !sameTaints(b.taints, a.taints)),
  charge: always,
  resync: removedAnything,
});
