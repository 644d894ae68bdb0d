// InterPodAffinity queueing hint: which cluster changes could undo an inter-pod affinity rejection.
import type { PodRecord } from '../../cluster/types.ts';
import {
  always,
  nodeAnyOr,
  placedPodChange,
  queueingHint,
  removedAnything,
  sameRecord,
} from '../../framework/hints.ts';
import type { QueueingHint } from '../../framework/types.ts';

function chargedNode(r: PodRecord): string | undefined {
  return r.charge.kind === 'none' ? r.info.nodeName : r.charge.node;
}

/** kube's isSchedulableAfterPodChange, widened: any change to a placed pod's match or place. */
const podChange = placedPodChange(
  (before, after) =>
    before.info.namespace !== after.info.namespace ||
    chargedNode(before) !== chargedNode(after) ||
    !sameRecord(before.info.labels, after.info.labels),
);

/**
 * kube's isSchedulableAfterPodChange / isSchedulableAfterNodeChange, widened because berth's
 * hint sees the change but not the waiting pod (so neither its terms nor its keys):
 * - a placed (bound or assumed) pod added or deleted, or whose labels, namespace or node
 *   changed (it may now match an affinity term, or no longer match an anti-affinity one);
 *   an unplaced pod changes nothing (kube: QueueSkip);
 * - a charge moved (assume, unreserve, failed bind);
 * - a node added, deleted (its pods stop counting) or relabelled; a taint-only or
 *   allocatable change cannot help;
 * - a Namespace added, deleted or relabelled (namespaceSelectors read its labels);
 * - a relist that removed nodes or pods.
 */
export const interPodAffinityQueueingHint: QueueingHint = queueingHint({
  pod: podChange,
  node: nodeAnyOr((b, a) => !sameRecord(b.labels, a.labels)),
  charge: always,
  resync: removedAnything,
  objects: {
    Namespace: (before, after) =>
      before === undefined || after === undefined || !sameRecord(before.labels, after.labels),
  },
});
