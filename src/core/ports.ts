// The core's two ports: where commands go (effects) and where timers are armed.
import type { AttemptRef, PodRef, PodTimerId } from '../events/types.ts';

/**
 * Arms timers on whatever clock drives this run; a fired timer must come back through the
 * log as TimerFired. Pod timers are keyed by (uid, timer id): arming again replaces.
 */
export interface TimerPort {
  /** Arms pod timer (`pod.uid`, `timer`) at logical time `deadline`. */
  armPod(pod: PodRef, timer: PodTimerId, deadline: number): void;
  /** Disarms pod timer (`uid`, `timer`) if armed. */
  disarmPod(uid: string, timer: PodTimerId): void;
  /** Arms the unschedulable pool's periodic flush at logical time `deadline`. */
  armFlush(deadline: number): void;
}

/**
 * Where commands go. A bind's result must come back through the log as BindSucceeded or
 * BindFailed naming the same attempt. Reports inform people and other controllers (pod
 * condition, Events) and never influence a decision: an adapter sends them on a budget of
 * their own, so that a bind never waits behind a report.
 */
export interface EffectPort {
  /** Binds the attempt's pod to `node` (the Binding carries the uid). */
  bind(attempt: AttemptRef, node: string): void;
  /**
   * Preemption: evicts `victim` from `node` for `preemptor`'s attempt, as kube's
   * DefaultPreemption does: status condition DisruptionTarget=True (reason
   * PreemptionByScheduler, message "<schedulerName>: preempting to accommodate a higher
   * priority pod"), delete (the victim's uid as precondition; NotFound or a changed uid is
   * success), then Event Preempted on the victim ("Preempted by pod <uid> on node <node>").
   * A failure must come back through the log as PreemptionFailed naming the same attempt.
   */
  preempt?(
    preemptor: AttemptRef,
    schedulerName: string,
    victim: PodRef,
    node: string,
    observedGeneration?: number,
  ): void;
  /**
   * Sets the pod's `status.nominatedNodeName` to `node`, or clears it (undefined). Its
   * outcome is not an input (the watch shows it); failures are logged.
   */
  nominate?(pod: PodRef, node: string | undefined): void;
  /**
   * The pod is not scheduled: set PodScheduled=False with `reason` (default Unschedulable: no
   * node fits; SchedulerError: the bind was refused) and `message`, and emit a Warning
   * FailedScheduling Event with `message`. A positive `observedGeneration` (the pod's
   * metadata.generation) goes on the condition, as kube 1.34 writes it
   * (PodObservedGenerationTracking); so does preempt's on DisruptionTarget.
   */
  reportUnschedulable?(
    pod: PodRef,
    message: string,
    observedGeneration?: number,
    reason?: PodScheduledReason,
  ): void;
  /** The pod was bound to `node`: emit the Scheduled Event. */
  reportScheduled?(pod: PodRef, node: string): void;
  /** The pod is gone (deleted, or replaced under its name): forget what was reported. */
  forgetPod?(pod: PodRef): void;
  /**
   * A pod group's standing changed: write its PodGroup `status` (phase, counts,
   * scheduleStartTime) and, when `report.event` is set, emit that Event about the PodGroup.
   * A report, never an input: the latest report of a group supersedes an unsent one.
   */
  reportGroup?(report: GroupReport): void;
}

/**
 * The reasons of PodScheduled=False that berth writes, as kube-scheduler's
 * handleSchedulingFailure does: Unschedulable when no node fits (or Permit rejected the pod),
 * SchedulerError when the attempt failed otherwise (a refused bind).
 */
export type PodScheduledReason = 'Unschedulable' | 'SchedulerError';

/**
 * The message of a bind the API server refused, as kube-scheduler 1.37 words it (its
 * framework wraps the DefaultBinder's error: `running Bind plugin "DefaultBinder": <error>`).
 */
export function bindErrorMessage(apiMessage: string): string {
  return `running Bind plugin "DefaultBinder": ${apiMessage}`;
}

/** The phases of a scheduler-plugins PodGroup's `status.phase` that berth writes. */
export type GroupPhase = 'Pending' | 'Scheduling' | 'Scheduled' | 'Running' | 'Finished' | 'Failed';

/** A pod group's status as berth reports it on its PodGroup object. */
export interface GroupReport {
  /** The PodGroup's `namespace/name`. */
  key: string;
  /**
   * Pending: too few members, or not placed yet. Scheduling: placed (reserved), binds in
   * flight. Scheduled: `minMember` members bound. Running: `minMember` members running.
   * Finished: `minMember` members succeeded. Failed: a member failed.
   */
  phase: GroupPhase;
  /** Members bound to a node. */
  scheduled: number;
  /** Members in phase Running / Succeeded / Failed. */
  running: number;
  succeeded: number;
  failed: number;
  /** When the group's scheduling began (its first gang step), epoch ms; absent before. */
  scheduleStartMs?: number;
  /** An Event to emit about the PodGroup (e.g. reason `GangTimeout`, type Warning). */
  event?: { type: 'Normal' | 'Warning'; reason: string; message: string };
}
