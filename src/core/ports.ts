// The machines' timer port inside the core, and the report shapes its commands carry (reasons, group status).
import type { PodRef, PodTimerId } from '../events/types.ts';

/**
 * Where the pod machines arm their timers: the core turns each call into a timer command of
 * the step being built (see CoreState). Pod timers are keyed by (uid, timer id).
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
 * The reasons of PodScheduled=False that berth writes, as kube-scheduler's
 * handleSchedulingFailure does: Unschedulable when no node fits (or Permit rejected the pod),
 * SchedulerError when the attempt failed otherwise (a refused bind).
 */
export type PodScheduledReason = 'Unschedulable' | 'SchedulerError';

/**
 * The message of a bind the API server refused, as kube-scheduler 1.37 words it (its
 * framework wraps the DefaultBinder's error: `running Bind plugin "DefaultBinder": <error>`),
 * or of a PreBind that failed in `preBindPlugin` (`running PreBind plugin "P": <error>`).
 */
export function bindErrorMessage(apiMessage: string, preBindPlugin?: string): string {
  if (preBindPlugin !== undefined)
    return `running PreBind plugin "${preBindPlugin}": ${apiMessage}`;
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
  /**
   * A core PodGroup's (scheduling.k8s.io/v1beta1) `PodGroupInitiallyScheduled` condition
   * after its last gang step, as kube-scheduler 1.37 writes it; absent for scheduler-plugins
   * PodGroups and before a core group's first step. Such a report writes only this.
   */
  initiallyScheduled?: GroupCondition;
}

/** A `PodGroupInitiallyScheduled` condition (kube's reasons: Scheduled, Unschedulable, SchedulerError). */
export interface GroupCondition {
  status: 'True' | 'False';
  reason: 'Scheduled' | 'Unschedulable' | 'SchedulerError';
  message: string;
  /** The PodGroup's `metadata.generation` the step read. */
  observedGeneration: number;
}
