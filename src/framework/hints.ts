// Queueing hints: one declarative builder for which cluster changes could undo a rejection.
import { amountsJson } from '../cluster/amount.ts';
import type { ObjectKind, ObjectTypes } from '../cluster/cluster-objects.ts';
import type { ClusterChange, NodeFacts, NodeInfo, PodRecord } from '../cluster/types.ts';
import type { Taint } from '../model/objects.ts';
import type { QueueingHint } from './types.ts';

/** The change of one kind. */
export type ChangeOf<K extends ClusterChange['kind']> = Extract<ClusterChange, { kind: K }>;

/** Whether an object of one kind changing from `before` to `after` could help (undefined: absent). */
export type ObjectHint<T> = (before: T | undefined, after: T | undefined) => boolean;

/**
 * What a plugin's rejection reacts to, per kind of cluster change. A kind left out never
 * requeues (kube: the plugin registers no event for it); so does an object kind left out
 * of `objects`, and `none`.
 */
export interface HintSpec {
  node?: (change: ChangeOf<'node'>) => boolean;
  pod?: (change: ChangeOf<'pod'>) => boolean;
  charge?: (change: ChangeOf<'charge'>) => boolean;
  resync?: (change: ChangeOf<'resync'>) => boolean;
  objects?: { readonly [K in ObjectKind]?: ObjectHint<ObjectTypes[K]> };
}

/** The queueing hint `spec` describes (kube's EventsToRegister with their QueueingHintFns). */
export function queueingHint(spec: HintSpec): QueueingHint {
  return (change) => {
    switch (change.kind) {
      case 'node':
        return spec.node?.(change) ?? false;
      case 'pod':
        return spec.pod?.(change) ?? false;
      case 'charge':
        return spec.charge?.(change) ?? false;
      case 'resync':
        return spec.resync?.(change) ?? false;
      case 'object': {
        const hint = spec.objects?.[change.objectKind] as ObjectHint<unknown> | undefined;
        return hint?.(change.before, change.after) ?? false;
      }
      case 'none':
        return false;
      default: {
        const unreachable: never = change;
        return unreachable;
      }
    }
  };
}

/** Any change of this kind helps. */
export const always = (): boolean => true;

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

/** A node (or object) was added, or updated so that `changed(before, after)` holds. */
export function addedOr<T>(changed: (before: T, after: T) => boolean): ObjectHint<T> {
  return (before, after) => after !== undefined && (before === undefined || changed(before, after));
}

/** A node change: added, or updated so that `changed` holds; deletions never help. */
export function nodeAddedOr(
  changed: (before: NodeFacts, after: NodeInfo) => boolean,
): (change: ChangeOf<'node'>) => boolean {
  return (c) => c.after !== undefined && (c.before === undefined || changed(c.before, c.after));
}

/** Added (not updated, not deleted). */
export const added = <T>(before: T | undefined, after: T | undefined): boolean =>
  before === undefined && after !== undefined;

/** Present after the change: added or updated. */
export const addedOrUpdated = <T>(_before: T | undefined, after: T | undefined): boolean =>
  after !== undefined;

/** A node added, deleted, or updated so that `changed` holds. */
export function nodeAnyOr(
  changed: (before: NodeFacts, after: NodeInfo) => boolean,
): (change: ChangeOf<'node'>) => boolean {
  return (c) => c.before === undefined || c.after === undefined || changed(c.before, c.after);
}

/** A pod that counts on a node: bound or assumed, or with `spec.nodeName` set. */
export function placed(r: PodRecord | undefined): boolean {
  return r !== undefined && (r.charge.kind !== 'none' || r.info.nodeName !== undefined);
}

/**
 * A pod hint for plugins that count placed pods: a placed pod added, deleted or replaced by
 * a recreation, or a pod placed or unplaced; for a pod placed before and after, whatever
 * `changed(before, after)` says. Changes to unplaced pods never help.
 */
export function placedPodChange(
  changed: (before: PodRecord, after: PodRecord) => boolean,
): (change: ChangeOf<'pod'>) => boolean {
  return (change) => {
    const { before, after } = change;
    if (change.replaced !== undefined && placed(change.replaced)) return true;
    if (before === undefined || after === undefined) return placed(before) || placed(after);
    if (!placed(before) && !placed(after)) return false;
    if (placed(before) !== placed(after)) return true;
    return changed(before, after);
  };
}

/** A relist removed nodes or pods. */
export const removedAnything = (c: ChangeOf<'resync'>): boolean =>
  c.removedNodes.length > 0 || c.removedPods.length > 0;

/** A reservation was released (unreserve, failed bind). */
export const reservationReleased = (c: ChangeOf<'charge'>): boolean =>
  c.before.kind !== 'none' && c.after.kind === 'none';

/**
 * Whether a pod that `uses` something on its node stopped holding it there: it was charged
 * to a node and is now deleted, uncharged (finished, unreserved) or on another node. With
 * `orNominated`, a deleted pod that was only nominated to a node counts too (kube's Filter
 * counted it there).
 */
export function leftNode(
  uses: (r: PodRecord) => boolean,
  orNominated = false,
): (before: PodRecord | undefined, after: PodRecord | undefined) => boolean {
  return (before, after) => {
    if (before === undefined || !uses(before)) return false;
    const was = before.charge;
    if (was.kind === 'none')
      return orNominated && after === undefined && before.info.nominatedNodeName !== undefined;
    const now = after?.charge;
    return now === undefined || now.kind === 'none' || now.node !== was.node;
  };
}

/**
 * The pod, charge and relist parts of a hint for what pods hold on nodes: a pod left its
 * node (`left`; a recreation's replaced pod counts as deleted), a reservation was
 * released, a relist removed such a pod.
 */
export function onRelease(
  left: (before: PodRecord | undefined, after: PodRecord | undefined) => boolean,
): Pick<HintSpec, 'pod' | 'charge' | 'resync'> {
  return {
    pod: (c) => left(c.before, c.after) || left(c.replaced, undefined),
    charge: reservationReleased,
    resync: (c) => c.removedPods.some((p) => left(p, undefined)),
  };
}

/** A hint that fires when a node is added, or when `changed(before, after)` says so. */
export function onNodeChange(
  changed: (before: NodeFacts, after: NodeInfo) => boolean,
): QueueingHint {
  return queueingHint({ node: nodeAddedOr(changed) });
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
export const capacityFreed: QueueingHint = queueingHint({
  node: nodeAddedOr((b, a) => amountsJson(b.allocatable) !== amountsJson(a.allocatable)),
  ...onRelease(leftNode(() => true)),
  resync: (c) => c.removedPods.length > 0,
});

/** Only the pod's own update can help (handled by the queue itself): never requeue. */
export const never: QueueingHint = () => false;
