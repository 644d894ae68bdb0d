// PodTopologySpread queueing hint: which cluster changes could undo a spread rejection.
import type { Taint } from '../../cluster/objects.ts';
import type { PodRecord } from '../../cluster/types.ts';
import type { QueueingHint } from '../../framework/types.ts';

/** A pod that counts somewhere: bound or assumed (kube: `spec.nodeName` set). */
function placed(r: PodRecord | undefined): boolean {
  return r !== undefined && (r.charge.kind !== 'none' || r.info.nodeName !== undefined);
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) if (!Object.hasOwn(b, k) || a[k] !== b[k]) return false;
  return true;
}

function sameTaints(a: readonly Taint[], b: readonly Taint[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Taint;
    const y = b[i] as Taint;
    if (x.key !== y.key || x.value !== y.value || x.effect !== y.effect) return false;
  }
  return true;
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
        !sameLabels(b.labels, a.labels)
      );
    }
    case 'node': {
      const { before, after } = change;
      if (before === undefined || after === undefined) return true;
      return !sameLabels(before.labels, after.labels) || !sameTaints(before.taints, after.taints);
    }
    case 'charge':
      return true;
    case 'resync':
      return change.removedNodes.length > 0 || change.removedPods.length > 0;
    case 'none':
      return false;
    default: {
      const unreachable: never = change;
      return unreachable;
    }
  }
};
