// InterPodAffinity queueing hint: which cluster changes could undo an inter-pod affinity rejection.
import type { NamespaceInfo } from '../../cluster/cluster-objects.ts';
import type { ClusterChange, PodRecord } from '../../cluster/types.ts';
import { sameRecord } from '../../framework/hints.ts';
import type { QueueingHint } from '../../framework/types.ts';

/** A pod that counts on a node: bound or assumed (kube: `spec.nodeName` set). */
function placed(r: PodRecord | undefined): boolean {
  return r !== undefined && (r.charge.kind !== 'none' || r.info.nodeName !== undefined);
}

function chargedNode(r: PodRecord): string | undefined {
  return r.charge.kind === 'none' ? r.info.nodeName : r.charge.node;
}

/** kube's isSchedulableAfterPodChange, widened: any change to a placed pod's match or place. */
function podChange(change: Extract<ClusterChange, { kind: 'pod' }>): boolean {
  const { before, after } = change;
  if (change.replaced !== undefined && placed(change.replaced)) return true;
  if (before === undefined || after === undefined) return placed(before) || placed(after);
  if (!placed(before) && !placed(after)) return false;
  if (placed(before) !== placed(after)) return true;
  return (
    before.info.namespace !== after.info.namespace ||
    chargedNode(before) !== chargedNode(after) ||
    !sameRecord(before.info.labels, after.info.labels)
  );
}

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
export const interPodAffinityQueueingHint: QueueingHint = (change) => {
  switch (change.kind) {
    case 'pod':
      return podChange(change);
    case 'node': {
      const { before, after } = change;
      if (before === undefined || after === undefined) return true;
      return !sameRecord(before.labels, after.labels);
    }
    case 'charge':
      return true;
    case 'resync':
      return change.removedNodes.length > 0 || change.removedPods.length > 0;
    case 'object': {
      if (change.objectKind !== 'Namespace') return false;
      const { before, after } = change;
      if (before === undefined || after === undefined) return true;
      // objectKind 'Namespace' means both sides are NamespaceInfo.
      return !sameRecord((before as NamespaceInfo).labels, (after as NamespaceInfo).labels);
    }
    case 'none':
      return false;
    default: {
      const unreachable: never = change;
      return unreachable;
    }
  }
};
