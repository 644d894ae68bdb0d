// Queueing-hint building blocks: which cluster changes could undo which kind of rejection.
import { amountsJson } from '../cluster/amount.ts';
import type { NodeFacts, NodeInfo } from '../cluster/types.ts';
import type { Taint } from '../model/objects.ts';
import type { QueueingHint } from './types.ts';

/** True when two records hold the same keys with the same values. */
export function sameRecord(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) if (!Object.hasOwn(b, k) || a[k] !== b[k]) return false;
  return true;
}

/** True when two taint lists are equal entry by entry (key, value, effect). */
export function sameTaints(a: readonly Taint[], b: readonly Taint[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Taint;
    const y = b[i] as Taint;
    if (x.key !== y.key || x.value !== y.value || x.effect !== y.effect) return false;
  }
  return true;
}

/** A hint that fires when a node is added, or when `changed(before, after)` says so. */
export function onNodeChange(
  changed: (before: NodeFacts, after: NodeInfo) => boolean,
): QueueingHint {
  return (change) =>
    change.kind === 'node' &&
    change.after !== undefined &&
    (change.before === undefined || changed(change.before, change.after));
}

/** A node was added or its labels changed (NodeAffinity, NodeSelector). */
export const nodeLabelsChanged = onNodeChange((b, a) => !sameRecord(b.labels, a.labels));

/** A node was added or its taints changed (TaintToleration). */
export const nodeTaintsChanged = onNodeChange((b, a) => !sameTaints(b.taints, a.taints));

/** A node was added or its cordon changed (NodeUnschedulable). */
export const nodeCordonChanged = onNodeChange((b, a) => b.unschedulable !== a.unschedulable);

/** A node was added (NodeName: only a new node can carry the wanted name). */
export const nodeAdded = onNodeChange(() => false);

/**
 * Capacity may have been freed (NodeResourcesFit): a node added or its allocatable
 * changed; a pod stopped using a node (deleted, finished, moved, replaced); a reservation
 * was released; a relist removed pods.
 */
export const capacityFreed: QueueingHint = (change) => {
  switch (change.kind) {
    case 'node':
      return (
        change.after !== undefined &&
        (change.before === undefined ||
          amountsJson(change.before.allocatable) !== amountsJson(change.after.allocatable))
      );
    case 'pod': {
      const was = change.before?.charge;
      const now = change.after?.charge;
      const freed =
        was !== undefined &&
        was.kind !== 'none' &&
        (now === undefined || now.kind === 'none' || now.node !== was.node);
      return freed || (change.replaced !== undefined && change.replaced.charge.kind !== 'none');
    }
    case 'charge':
      return change.before.kind !== 'none' && change.after.kind === 'none';
    case 'resync':
      return change.removedPods.length > 0;
    case 'none':
    case 'object':
      return false;
    default: {
      const unreachable: never = change;
      return unreachable;
    }
  }
};

/** Only the pod's own update can help (handled by the queue itself): never requeue. */
export const never: QueueingHint = () => false;
