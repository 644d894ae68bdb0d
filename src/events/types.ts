// The event vocabulary: everything that can influence a decision, and the decisions themselves.
import type { NodeObject, PodObject } from '../cluster/objects.ts';

/** The kinds of object berth lists and watches. */
export type ResourceKind = 'Node' | 'Pod';

/** A node was added or changed (watch ADDED/MODIFIED, or an item of a relist). */
export interface NodeUpserted {
  type: 'NodeUpserted';
  node: NodeObject;
}

/** A node was deleted. */
export interface NodeDeleted {
  type: 'NodeDeleted';
  name: string;
}

/** A pod was added or changed (watch ADDED/MODIFIED, or an item of a relist). */
export interface PodUpserted {
  type: 'PodUpserted';
  pod: PodObject;
}

/** A pod was deleted. */
export interface PodDeleted {
  type: 'PodDeleted';
  /** `namespace/name`. */
  key: string;
}

/**
 * A relist of `kind` begins. Upserts of that kind until the matching ResyncDone are the
 * relist's items; at ResyncDone every object of that kind not seen since is deleted.
 */
export interface ResyncStarted {
  type: 'ResyncStarted';
  kind: ResourceKind;
}

/** The relist of `kind` is complete. */
export interface ResyncDone {
  type: 'ResyncDone';
  kind: ResourceKind;
}

/** The bind effect for `key` to `node` succeeded. */
export interface BindSucceeded {
  type: 'BindSucceeded';
  key: string;
  node: string;
}

/** Why a bind failed: a conflict means someone else bound or changed the pod first. */
export type BindFailureReason = 'Conflict' | 'NotFound' | 'Error';

/** The bind effect for `key` to `node` failed. */
export interface BindFailed {
  type: 'BindFailed';
  key: string;
  node: string;
  reason: BindFailureReason;
  message: string;
}

/** A timer fired: a pod's backoff delay, or the periodic unschedulable-pool flush. */
export interface TimerFired {
  type: 'TimerFired';
  timer: 'backoff' | 'flush';
  /** The pod whose timer fired (absent for `flush`). */
  key?: string;
}

/** Events that come from outside the core: watches, effect results, timers. */
export type InputEvent =
  | NodeUpserted
  | NodeDeleted
  | PodUpserted
  | PodDeleted
  | ResyncStarted
  | ResyncDone
  | BindSucceeded
  | BindFailed
  | TimerFired;

/** Decision: the pod is assumed onto `node` (its resources are reserved there). */
export interface PodAssumed {
  type: 'PodAssumed';
  key: string;
  node: string;
}

/** Decision: no node fits the pod right now; `message` is kube-scheduler style. */
export interface PodUnschedulable {
  type: 'PodUnschedulable';
  key: string;
  message: string;
}

/** A scheduling cycle's outcome. Exactly one per cycle. */
export type DecisionEvent = PodAssumed | PodUnschedulable;

/** Any event in berth's log. */
export type BerthEvent = InputEvent | DecisionEvent;

/** An event with its place in the log: sequence number and logical time (ms). */
export interface Envelope<E extends BerthEvent = BerthEvent> {
  seq: number;
  time: number;
  event: E;
}

/** True for the events that are decisions (the core's outputs). */
export function isDecision(event: BerthEvent): event is DecisionEvent {
  return event.type === 'PodAssumed' || event.type === 'PodUnschedulable';
}
