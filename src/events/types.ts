// The event vocabulary: everything that can influence a decision, and the decisions themselves.
import type {
  AllocationResult,
  DeviceRequest,
  ExtendedRequestMapping,
} from '../model/dra-types.ts';
import type { ObjectKind } from '../model/kinds.ts';
import type { NodeObject, PodObject } from '../model/objects.ts';

/** The kinds of object berth lists and watches: nodes, pods, and the other kinds plugins read. */
export type ResourceKind = 'Node' | 'Pod' | ObjectKind;

/** A pod's identity: its uid; `key` (`namespace/name`) is for people and the API's URLs. */
export interface PodRef {
  uid: string;
  key: string;
}

/**
 * One scheduling attempt of one pod: uid plus the attempt number (1, 2, …). Every decision,
 * command and effect result names its attempt; a result for an older attempt changes nothing.
 */
export interface AttemptRef extends PodRef {
  attempt: number;
}

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

/** A pod was deleted. The uid says which pod; a recreated pod of the same name is another. */
export interface PodDeleted extends PodRef {
  type: 'PodDeleted';
}

/**
 * An object of another watched kind (namespace, workload, volume) was added or changed,
 * trimmed to what plugins read.
 */
export interface ObjectUpserted {
  type: 'ObjectUpserted';
  kind: ObjectKind;
  object: Record<string, unknown>;
}

/** An object of another watched kind was deleted; `key` is `namespace/name`, or `name`. */
export interface ObjectDeleted {
  type: 'ObjectDeleted';
  kind: ObjectKind;
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

/**
 * The relist of `kind` is complete. `unavailable` (optional kinds only, e.g. PodGroup when
 * its CRD is not installed) says the API server does not serve the kind, with its message:
 * the list found nothing and berth keeps what depends on the kind waiting, saying why.
 */
export interface ResyncDone {
  type: 'ResyncDone';
  kind: ResourceKind;
  unavailable?: string;
}

/** The bind command of attempt (`uid`, `attempt`) to `node` succeeded. */
export interface BindSucceeded extends AttemptRef {
  type: 'BindSucceeded';
  node: string;
}

/** Why a bind failed: a conflict means someone else bound or changed the pod first. */
export type BindFailureReason = 'Conflict' | 'NotFound' | 'Error';

/** The bind command of attempt (`uid`, `attempt`) to `node` failed. */
export interface BindFailed extends AttemptRef {
  type: 'BindFailed';
  node: string;
  reason: BindFailureReason;
  message: string;
  /**
   * The API server's HTTP status (403, 422, 500, …); absent when the request got no answer
   * (refused, reset, timed out) and in logs written before it was recorded.
   */
  code?: number;
  /**
   * The plugin whose step failed when it was not the Binding itself: `DynamicResources` for
   * a PreBind ended by its binding conditions (format 6). Absent: the DefaultBinder.
   */
  plugin?: string;
}

/**
 * The bind of attempt (`uid`, `attempt`) to `node` wrote its ResourceClaims (DRA PreBind)
 * and holds the Binding back: a device has binding conditions, which the core waits for
 * (format 6). The bind stays open until the core completes it (BindingConditionsMet or
 * BindingConditionsFailed) and its BindSucceeded or BindFailed arrives.
 */
export interface ClaimsReserved extends AttemptRef {
  type: 'ClaimsReserved';
  node: string;
}

/**
 * Evicting `victim` from `node` for the preemptor's attempt (`uid`, `attempt`) failed (its
 * status patch or delete was refused; NotFound counts as success). The preemptor goes back
 * to the queue.
 */
export interface PreemptionFailed extends AttemptRef {
  type: 'PreemptionFailed';
  node: string;
  victim: PodRef;
  message: string;
}

/**
 * Deallocating `claim` for the attempt's pod (DynamicResources PostFilter) failed: the API
 * server refused its status update. Reported on the pod; the pod stays unschedulable.
 */
export interface ClaimDeallocationFailed extends AttemptRef {
  type: 'ClaimDeallocationFailed';
  claim: ClaimToDeallocate;
  message: string;
}

/**
 * The per-pod timers: retry after backoff, give up waiting at permit, give up waiting for
 * devices' binding conditions at PreBind (format 6).
 */
export type PodTimerId = 'backoff' | 'permit' | 'bindingConditions';

/** A pod's timer fired. Timers are keyed by (pod uid, timer id). */
export interface PodTimerFired extends PodRef {
  type: 'TimerFired';
  timer: PodTimerId;
}

/** The periodic flush of the unschedulable pool fired. */
export interface FlushTimerFired {
  type: 'TimerFired';
  timer: 'flush';
}

/** A timer fired. */
export type TimerFired = PodTimerFired | FlushTimerFired;

/**
 * This process became the leader (`leading`), or stopped being it. Recorded so that a log
 * shows when its scheduler was allowed to write; it changes no state and no decision.
 */
export interface LeadershipChanged {
  type: 'LeadershipChanged';
  leading: boolean;
  /** This process's election identity (`hostname_suffix`). */
  identity: string;
}

/** Events that come from outside the core: watches, effect results, timers, leadership. */
export type InputEvent =
  | NodeUpserted
  | NodeDeleted
  | PodUpserted
  | PodDeleted
  | ObjectUpserted
  | ObjectDeleted
  | ResyncStarted
  | ResyncDone
  | BindSucceeded
  | BindFailed
  | PreemptionFailed
  | ClaimDeallocationFailed
  | ClaimsReserved
  | TimerFired
  | LeadershipChanged;

/**
 * A DRA claim of a reserved pod: the allocation the cycle chose for it (kube's Reserve
 * signals it as pending), or none when the claim was allocated already (the bind only adds
 * the pod to its `reservedFor`).
 */
export interface ReservedClaim {
  /** `namespace/name`. */
  key: string;
  uid: string;
  allocation?: AllocationResult;
  /**
   * The pod group of the reserving pod, with an allocation: while it is in flight, other
   * members of the group share it (kube 1.37's pending allocations of a PodGroup cycle)
   * instead of waiting for it to be written.
   */
  group?: string;
  /**
   * The core PodGroup to reserve the claim for instead of the pod (kube's BindTo: the pod's
   * entry matches one of the PodGroup's `spec.resourceClaims` exactly).
   */
  podGroup?: PodGroupRef;
  /**
   * The special claim for the pod's DRA-backed extended resources (format 6), made at PreBind:
   * its device requests and which request serves each container's resource. Its key names
   * the namespace and `<extended-resources>`, its uid is berth's stand-in until it exists.
   */
  extended?: ExtendedClaimSpec;
}

/** A core PodGroup (scheduling.k8s.io) as a claim's `reservedFor` names it. */
export interface PodGroupRef {
  name: string;
  uid: string;
}

/** What the special claim of a pod's DRA-backed extended resources is created with. */
export interface ExtendedClaimSpec {
  requests: DeviceRequest[];
  mappings: ExtendedRequestMapping[];
}

/**
 * Decision (Reserve): the attempt's pod is assumed onto `node`; its resources are held
 * there, and so are the devices of the `claims` it allocates (DRA), until the claims show
 * them or the reservation is released.
 */
export interface PodReserved extends AttemptRef {
  type: 'PodReserved';
  node: string;
  /** The pod's DRA claims, in `spec.resourceClaims` order; absent for a pod without any. */
  claims?: ReservedClaim[];
}

/** Decision (Permit → Wait): the reserved pod waits before binding, at most `timeoutMs`. */
export interface PodWaiting extends AttemptRef {
  type: 'PodWaiting';
  node: string;
  timeoutMs: number;
}

/** Decision (Permit → Allow, then Bind): the bind command for the reservation is issued. */
export interface BindRequested extends AttemptRef {
  type: 'BindRequested';
  node: string;
}

/** Decision (Unreserve): the reservation is released (a wait rejected or timed out). */
export interface PodUnreserved extends AttemptRef {
  type: 'PodUnreserved';
  node: string;
  reason: string;
}

/** Decision: no node fits the pod right now; `message` is kube-scheduler style. */
export interface PodUnschedulable extends AttemptRef {
  type: 'PodUnschedulable';
  message: string;
}

/**
 * Decision (PostFilter, preemption): the attempt's pod is nominated to `node`, where its
 * victims (the VictimPreempted decisions that follow) are evicted; until they are gone it
 * waits in `preempting`, and pods of lower or equal priority are filtered as if it were
 * already there.
 */
export interface PodNominated extends AttemptRef {
  type: 'PodNominated';
  node: string;
  /** Why the pod did not fit this cycle (kube's FitError message, reported as for PodUnschedulable). */
  message: string;
}

/** Decision (preemption): `victim` is evicted from `node` to make room for the attempt's pod. */
export interface VictimPreempted extends AttemptRef {
  type: 'VictimPreempted';
  node: string;
  victim: PodRef;
}

/**
 * Decision (preemption): the nomination of `pod`, of lower priority, to `node` is cleared,
 * because the attempt's pod (the preemptor) preempted there. Also (emulating kube 1.35+)
 * the attempt's own nomination (`pod` is the attempt's pod), cleared because the attempt
 * failed where kube's failure handler clears it.
 */
export interface NominationCleared extends AttemptRef {
  type: 'NominationCleared';
  node: string;
  pod: PodRef;
}

/**
 * Decision (gang fairness): the attempt's pod, a member of the first blocked group in queue
 * order, is nominated to `node`, where it fitted in its group's last step, while the group
 * waits for room for the rest: pods of lower or equal priority are filtered as if it were
 * there. Not a reservation; released by NominationCleared (naming the member's own attempt)
 * when the group is placed, overtaken, or held longer than its schedule timeout.
 */
export interface PodHeld extends AttemptRef {
  type: 'PodHeld';
  node: string;
  /** The group's id (`namespace/name`). */
  group: string;
}

/**
 * A ResourceClaim the DynamicResources PostFilter deallocates: `namespace/name`, its uid and
 * the resourceVersion the cycle saw (the status update's precondition).
 */
export interface ClaimToDeallocate {
  key: string;
  uid: string;
  resourceVersion?: string;
  /**
   * Format 6: delete the claim instead (the special claim of DRA-backed extended resources an
   * earlier attempt left; kube's PostFilter deletes it, its finalizer taken off first).
   */
  delete?: true;
}

/**
 * Decision (PostFilter, DRA): `claim`, allocated where the attempt's pod cannot run and
 * reserved for no other pod, is to lose its `reservedFor`, `allocation` and `devices`
 * (kube's deallocateOrDeletePodClaims). The claim's watch shows the change; a refusal comes
 * back as ClaimDeallocationFailed.
 */
export interface ClaimDeallocationRequested extends AttemptRef {
  type: 'ClaimDeallocationRequested';
  claim: ClaimToDeallocate;
}

/**
 * Decision (PreBind, DRA): every binding condition of the devices the attempt's claims hold
 * is True: the held bind goes on to the Binding (format 6).
 */
export interface BindingConditionsMet extends AttemptRef {
  type: 'BindingConditionsMet';
  node: string;
}

/**
 * Decision (PreBind, DRA): a binding-failure condition became True, a claim went away, or
 * the binding timeout passed (`message`, kube's error): the held bind is abandoned, the pod
 * taken out of its claims' `reservedFor`, and the bind answered with BindFailed (format 6).
 */
export interface BindingConditionsFailed extends AttemptRef {
  type: 'BindingConditionsFailed';
  node: string;
  message: string;
}

/** Decision: the cycle failed with an error in `plugin`; the pod backs off and retries. */
export interface CycleFailed extends AttemptRef {
  type: 'CycleFailed';
  plugin: string;
  message: string;
  /**
   * The extension point that failed (PreFilter, Filter, Reserve), for the pod's message;
   * absent when not known and in logs written before it was kept (not part of the digest).
   */
  point?: 'PreFilter' | 'Filter' | 'Reserve';
}

/** The core's outputs. A cycle, a timer or a result may produce several, in order. */
export type DecisionEvent =
  | PodReserved
  | PodWaiting
  | BindRequested
  | PodUnreserved
  | PodUnschedulable
  | PodNominated
  | VictimPreempted
  | NominationCleared
  | PodHeld
  | ClaimDeallocationRequested
  | BindingConditionsMet
  | BindingConditionsFailed
  | CycleFailed;

/** Any event in berth's log. */
export type BerthEvent = InputEvent | DecisionEvent;

/** An event with its place in the log: sequence number and logical time (ms). */
export interface Envelope<E extends BerthEvent = BerthEvent> {
  seq: number;
  time: number;
  event: E;
}

/** Every decision type, in the order a cycle or timer may produce them. */
export const decisionEventTypes: readonly DecisionEvent['type'][] = Object.freeze([
  'PodReserved',
  'PodWaiting',
  'BindRequested',
  'PodUnreserved',
  'PodUnschedulable',
  'PodNominated',
  'VictimPreempted',
  'NominationCleared',
  'PodHeld',
  'ClaimDeallocationRequested',
  'BindingConditionsMet',
  'BindingConditionsFailed',
  'CycleFailed',
]);

/** Every input type. */
export const inputEventTypes: readonly InputEvent['type'][] = Object.freeze([
  'NodeUpserted',
  'NodeDeleted',
  'PodUpserted',
  'PodDeleted',
  'ObjectUpserted',
  'ObjectDeleted',
  'ResyncStarted',
  'ResyncDone',
  'BindSucceeded',
  'BindFailed',
  'PreemptionFailed',
  'ClaimDeallocationFailed',
  'ClaimsReserved',
  'TimerFired',
  'LeadershipChanged',
]);

const decisionTypes: ReadonlySet<string> = new Set(decisionEventTypes);

/** True for the events that are decisions (the core's outputs). */
export function isDecision(event: BerthEvent): event is DecisionEvent {
  return decisionTypes.has(event.type);
}
