// Queueing hints: which cluster events could make a parked (unschedulable) pod fit.
import type { Allocatable, Charge, NodeInfo } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';

/** Where a pod's resources were charged before and after an event (for pod events). */
export interface ChargeChange {
  before: Charge | undefined;
  after: Charge | undefined;
}

/** The scheduling-relevant parts of a node before an update (the reducer replaces them). */
export type NodeFacts = Pick<NodeInfo, 'labels' | 'taints' | 'unschedulable' | 'allocatable'>;

/** Captures a node's facts before an event; undefined when the node is new. */
export function nodeFacts(node: NodeInfo | undefined): NodeFacts | undefined {
  return node === undefined
    ? undefined
    : {
        labels: node.labels,
        taints: node.taints,
        unschedulable: node.unschedulable,
        allocatable: node.allocatable,
      };
}

function sameRecord(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) if (a[k] !== b[k]) return false;
  return true;
}

function sameAllocatable(a: Allocatable, b: Allocatable): boolean {
  return (
    a.milliCPU === b.milliCPU &&
    a.memory === b.memory &&
    a.ephemeralStorage === b.ephemeralStorage &&
    a.pods === b.pods &&
    sameRecord(a.scalar, b.scalar)
  );
}

/**
 * kube's node queueing hint, coarsely: a node update can help only when the node is new
 * or its labels, taints, cordon or allocatable changed. Status heartbeats (kubelet, kwok)
 * change none of these and must not requeue every parked pod.
 */
export function nodeUpdateCouldHelp(
  before: NodeFacts | undefined,
  after: NodeInfo | undefined,
): boolean {
  if (after === undefined) return false;
  if (before === undefined) return true;
  return (
    before.unschedulable !== after.unschedulable ||
    !sameAllocatable(before.allocatable, after.allocatable) ||
    !sameRecord(before.labels, after.labels) ||
    JSON.stringify(before.taints) !== JSON.stringify(after.taints)
  );
}

function frees(change: ChargeChange): boolean {
  const before = change.before;
  if (before === undefined || before.kind === 'none') return false;
  const after = change.after;
  return after === undefined || after.kind === 'none' || after.node !== before.node;
}

/**
 * True when `event` could help an unschedulable pod: a node was added or changed in a
 * way that matters (`nodeChanged`, see nodeUpdateCouldHelp), a
 * pod stopped using capacity (deleted, completed, moved), an assumption was forgotten,
 * or a relist finished (it may have removed objects). Nothing else moves parked pods.
 */
export function couldHelpParkedPods(
  event: BerthEvent,
  change: ChargeChange,
  nodeChanged = true,
): boolean {
  switch (event.type) {
    case 'NodeUpserted':
      return nodeChanged;
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
