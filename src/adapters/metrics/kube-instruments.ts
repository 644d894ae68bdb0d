// kube-scheduler 1.34's metrics (pkg/scheduler/metrics): the names, label names and buckets berth exposes.
import { Counter, exponentialBuckets, Gauge, Histogram, type Registry } from 'prom-client';
import type { PendingCounts } from '../../core/scheduler.ts';
import { TalliedCounter } from './tallied-counter.ts';

/** Histogram buckets exactly as kube-scheduler declares them (start, factor, count). */
export const kubeBuckets = Object.freeze({
  /** `scheduling_attempt_duration_seconds`: 1 ms doubling, 15 buckets. */
  attemptDurationSeconds: exponentialBuckets(0.001, 2, 15),
  /** `pod_scheduling_sli_duration_seconds`: 10 ms doubling, 20 buckets (last ~88 min). */
  sliDurationSeconds: exponentialBuckets(0.01, 2, 20),
  /** `pod_scheduling_attempts`: 1, 2, 4, 8, 16. */
  podAttempts: exponentialBuckets(1, 2, 5),
  /** `preemption_victims`: 1 … 64. */
  preemptionVictims: exponentialBuckets(1, 2, 7),
});

/** The `result` label of the attempt metrics. */
export type AttemptResult = 'scheduled' | 'unschedulable' | 'error';

/** The queues kube-scheduler names in `pending_pods{queue}` and `queue_incoming_pods_total{queue}`. */
export type QueueName = keyof PendingCounts;

/** kube-scheduler's instruments, registered on one registry. */
export interface KubeSchedulerInstruments {
  scheduleAttempts: TalliedCounter<'result' | 'profile'>;
  attemptDuration: Histogram<'result' | 'profile'>;
  pendingPods: Gauge<'queue'>;
  sliDuration: Histogram<'attempts'>;
  podAttempts: Histogram;
  queueIncoming: TalliedCounter<'queue' | 'event'>;
  preemptionAttempts: Counter;
  preemptionVictims: Histogram;
}

const queues: readonly QueueName[] = ['active', 'backoff', 'unschedulable', 'gated'];

/**
 * Registers kube-scheduler's metrics on `registry`. `scheduler_pending_pods` is read from
 * `pending` at every scrape, as kube's queue keeps its gauges current.
 */
export function registerKubeSchedulerMetrics(
  registry: Registry,
  pending: () => PendingCounts,
): KubeSchedulerInstruments {
  const registers = [registry];
  const pendingPods: Gauge<'queue'> = new Gauge({
    name: 'scheduler_pending_pods',
    help: "Pending pods by queue: 'active' (activeQ), 'backoff' (backoffQ), 'unschedulable' (attempted and parked), 'gated' (held by scheduling gates, never attempted).",
    labelNames: ['queue'],
    registers,
    collect: () => {
      const counts = pending();
      for (const queue of queues) pendingPods.set({ queue }, counts[queue]);
    },
  });
  return {
    scheduleAttempts: new TalliedCounter({
      name: 'scheduler_schedule_attempts_total',
      help: "Scheduling attempts by result: 'unschedulable' means no node fits the pod, 'error' an internal problem.",
      labelNames: ['result', 'profile'],
      registers,
    }),
    attemptDuration: new Histogram({
      name: 'scheduler_scheduling_attempt_duration_seconds',
      help: 'Latency of a scheduling attempt in seconds (scheduling algorithm plus binding).',
      labelNames: ['result', 'profile'],
      buckets: [...kubeBuckets.attemptDurationSeconds],
      registers,
    }),
    pendingPods,
    sliDuration: new Histogram({
      name: 'scheduler_pod_scheduling_sli_duration_seconds',
      help: 'End-to-end latency of scheduling a pod, from when it enters the scheduling queue, possibly over several attempts.',
      labelNames: ['attempts'],
      buckets: [...kubeBuckets.sliDurationSeconds],
      registers,
    }),
    podAttempts: new Histogram({
      name: 'scheduler_pod_scheduling_attempts',
      help: 'Number of attempts it took to schedule a pod.',
      buckets: [...kubeBuckets.podAttempts],
      registers,
    }),
    queueIncoming: new TalliedCounter({
      name: 'scheduler_queue_incoming_pods_total',
      help: 'Pods added to the scheduling queues, by event and queue.',
      labelNames: ['queue', 'event'],
      registers,
    }),
    preemptionAttempts: new Counter({
      name: 'scheduler_preemption_attempts_total',
      help: 'Preemption attempts so far.',
      registers,
    }),
    preemptionVictims: new Histogram({
      name: 'scheduler_preemption_victims',
      help: 'Number of victims selected by a preemption.',
      buckets: [...kubeBuckets.preemptionVictims],
      registers,
    }),
  };
}

/** kube-scheduler's `attempts` label: the attempt count, capped at "15+" to bound cardinality. */
export function attemptsLabel(attempts: number): string {
  return attempts >= 15 ? '15+' : String(attempts);
}
