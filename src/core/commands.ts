// The commands the core returns for the runtime to carry out: binds, evictions, reports and timers, as plain data.

import type {
  AttemptRef,
  ClaimToDeallocate,
  ExtendedClaimSpec,
  PodGroupRef,
  PodRef,
  PodTimerId,
} from '../events/types.ts';
import type { AllocationResult } from '../model/dra-types.ts';
import type { GroupReport, PodScheduledReason } from './ports.ts';

/**
 * A ResourceClaim the bind writes before the Binding (kube's DynamicResources PreBind): the
 * `resource.kubernetes.io/delete-protection` finalizer and `status.allocation` when the
 * cycle allocated it, and the pod appended to `status.reservedFor`.
 */
export interface ClaimBinding {
  namespace: string;
  name: string;
  uid: string;
  /** The allocation to write; absent when the claim was allocated already (only reserved). */
  allocation?: AllocationResult;
  /** Reserve the claim for this core PodGroup instead of the pod (kube's BindTo). */
  podGroup?: PodGroupRef;
  /**
   * Set for the special claim of the pod's DRA-backed extended resources: PreBind creates it
   * (kube's generateName `<pod>-extended-resources-`, annotation, the pod as controller), then
   * writes it as any claim, then names it in the pod's `status.extendedResourceClaimStatus`.
   */
  extended?: ExtendedClaimSpec;
}

/**
 * Binds the attempt's pod to `node` (the Binding carries the uid), after writing its
 * `claims` (DRA PreBind) when it has any. Its result must come back through the log as
 * BindSucceeded or BindFailed naming the same attempt; a failure after a claim was
 * reserved for the pod takes the pod out of that claim's `reservedFor` again (kube's
 * Unreserve), leaving the allocation for the PostFilter to release.
 */
export interface BindCommand {
  kind: 'bind';
  attempt: AttemptRef;
  node: string;
  claims?: ClaimBinding[];
  /**
   * A device of the claims has binding conditions (format 6): after the claims are written,
   * the Binding is held back and ClaimsReserved comes back instead (a failure is still
   * BindFailed); a CompleteBindCommand later binds or abandons it.
   */
  awaitBindingConditions?: true;
}

/** A claim the held bind reserved for its pod: by name, and the uid an Unreserve patch carries. */
export interface ClaimRef {
  namespace: string;
  name: string;
  uid: string;
}

/**
 * Ends a bind held after its claims were written (ClaimsReserved). Without `failure`: the
 * Binding, as a bind sends it, its result BindSucceeded or BindFailed (a failure takes the
 * pod out of `claims`' `reservedFor`, kube's Unreserve). With `failure`: no Binding; the
 * pod is taken out of `claims`' `reservedFor` and BindFailed (reason Error) comes back with
 * `failure`'s message and plugin (kube's PreBind error).
 */
export interface CompleteBindCommand {
  kind: 'completeBind';
  attempt: AttemptRef;
  node: string;
  claims: ClaimRef[];
  failure?: { plugin: string; message: string };
}

/**
 * Preemption: evicts `victim` from `node` for `preemptor`'s attempt, as kube's
 * DefaultPreemption does: status condition DisruptionTarget=True (reason
 * PreemptionByScheduler, message "<schedulerName>: preempting to accommodate a higher
 * priority pod"), delete (the victim's uid as precondition; NotFound or a changed uid is
 * success), then Event Preempted on the victim ("Preempted by pod <uid> on node <node>").
 * A failure must come back through the log as PreemptionFailed naming the same attempt.
 * A positive `observedGeneration` (the victim's metadata.generation) goes on the condition.
 */
export interface PreemptCommand {
  kind: 'preempt';
  preemptor: AttemptRef;
  schedulerName: string;
  victim: PodRef;
  node: string;
  observedGeneration: number;
  /**
   * The core PodGroup (scheduling.k8s.io/v1beta1) the preemptor's group preempts for, if
   * it is one: kube 1.37.2 then names the group, not the pod — condition message "… a
   * higher priority podgroup", Event "Preempted by podgroup <group uid> on node cluster".
   */
  preemptorGroup?: PodRef;
}

/**
 * DynamicResources PostFilter: writes `claim`'s status without `reservedFor`, `allocation`
 * and `devices` (an UpdateStatus with the resourceVersion the cycle saw), for `pod`'s
 * attempt. A conflict re-reads the claim and tries again only while it is still the same
 * claim, allocated, and reserved for nobody or only `pod`; a claim gone is done. Success
 * shows on the claim's watch; a refusal must come back as ClaimDeallocationFailed.
 */
export interface DeallocateClaimCommand {
  kind: 'deallocateClaim';
  pod: AttemptRef;
  claim: ClaimToDeallocate;
}

/**
 * Sets the pod's `status.nominatedNodeName` to `node`, or clears it (undefined). Its
 * outcome is not an input (the watch shows it); failures are logged.
 */
export interface NominateCommand {
  kind: 'nominate';
  pod: PodRef;
  node: string | undefined;
}

/**
 * The pod is not scheduled: set PodScheduled=False with `reason` (Unschedulable: no node
 * fits; SchedulerError: the attempt failed otherwise) and `message`, and emit a Warning
 * FailedScheduling Event with `message`. A positive `observedGeneration` (the pod's
 * metadata.generation) goes on the condition, as kube writes it.
 */
export interface ReportUnschedulableCommand {
  kind: 'reportUnschedulable';
  pod: PodRef;
  message: string;
  observedGeneration: number;
  reason: PodScheduledReason;
}

/**
 * PreBind waits for devices' binding conditions: emit the Normal `BindingConditionsPending`
 * Event on the pod ("waiting for binding conditions for device on node <node>").
 */
export interface ReportBindingWaitCommand {
  kind: 'reportBindingWait';
  pod: PodRef;
  node: string;
}

/** The pod was bound to `node`: emit the Scheduled Event. */
export interface ReportScheduledCommand {
  kind: 'reportScheduled';
  pod: PodRef;
  node: string;
}

/**
 * A pod group's standing changed: write its PodGroup `status` and, when `report.event` is
 * set, emit that Event about the PodGroup. The latest report of a group supersedes an
 * unsent one.
 */
export interface ReportGroupCommand {
  kind: 'reportGroup';
  report: GroupReport;
}

/** The pod is gone (deleted, or replaced under its name): forget what was reported. */
export interface ForgetPodCommand {
  kind: 'forgetPod';
  pod: PodRef;
}

/**
 * Arms pod timer (`pod.uid`, `timer`) at logical time `deadline`; arming again replaces.
 * A fired timer must come back through the log as TimerFired.
 */
export interface ArmPodTimerCommand {
  kind: 'armPodTimer';
  pod: PodRef;
  timer: PodTimerId;
  deadline: number;
}

/** Disarms pod timer (`uid`, `timer`) if armed. */
export interface DisarmPodTimerCommand {
  kind: 'disarmPodTimer';
  uid: string;
  timer: PodTimerId;
}

/** Arms the unschedulable pool's periodic flush at logical time `deadline`. */
export interface ArmFlushTimerCommand {
  kind: 'armFlushTimer';
  deadline: number;
}

/** Commands that change the cluster; their results come back as events. */
export type BinderCommand =
  | BindCommand
  | CompleteBindCommand
  | PreemptCommand
  | DeallocateClaimCommand;

/**
 * Commands that inform people and other controllers (pod condition, Events, nominations,
 * PodGroup status). They never influence a decision: an adapter sends them on a budget of
 * its own, so that a bind never waits behind a report.
 */
export type ReportCommand =
  | NominateCommand
  | ReportUnschedulableCommand
  | ReportScheduledCommand
  | ReportBindingWaitCommand
  | ReportGroupCommand
  | ForgetPodCommand;

/** Commands for the clock that drives the run. */
export type TimerCommand = ArmPodTimerCommand | DisarmPodTimerCommand | ArmFlushTimerCommand;

/** Everything the core asks the outside world to do, in the order it must be done. */
export type Command = BinderCommand | ReportCommand | TimerCommand;

/** Carries out commands of kind `C` (an adapter: the API server, the simulated cluster, a clock). */
export interface CommandHandler<C extends Command = Command> {
  execute(command: C): void;
}
