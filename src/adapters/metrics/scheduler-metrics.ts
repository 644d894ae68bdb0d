// Prometheus metrics of a live run, with kube-scheduler's names: a LiveObserver over berth's log.
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { PendingCounts } from '../../core/scheduler.ts';
import type { LiveObserver } from '../../events/observer.ts';
import { type DecisionEvent, type Envelope, isDecision } from '../../events/types.ts';
import { type BerthInstruments, registerBerthMetrics } from './berth-instruments.ts';
import {
  attemptsLabel,
  type KubeSchedulerInstruments,
  registerKubeSchedulerMetrics,
} from './kube-instruments.ts';
import { PodTracker } from './pod-tracker.ts';
import { preemptionCounts } from './preemption-counts.ts';

/** What the metrics are built from. */
export interface SchedulerMetricsOptions {
  /** The scheduler name: kube's `profile` label. */
  profile: string;
  /** Pending pods per queue, read at every scrape. */
  pending: () => PendingCounts;
  /** Where to register (a fresh registry by default). */
  registry?: Registry;
  /** Also collect prom-client's process_* and nodejs_* metrics (default true). */
  processMetrics?: boolean;
}

const succeeded = { result: 'succeeded', reason: '' } as const;

/**
 * kube-scheduler's metrics plus berth's own, fed by a live run's envelopes, cycles and
 * leadership changes. `scheduler_pending_pods` is read from `pending()` at scrape time.
 */
export class SchedulerMetrics implements LiveObserver {
  readonly registry: Registry;
  private readonly kube: KubeSchedulerInstruments;
  private readonly berth: BerthInstruments;
  private readonly pods: PodTracker;

  constructor(opts: SchedulerMetricsOptions) {
    this.registry = opts.registry ?? new Registry();
    if (opts.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.kube = registerKubeSchedulerMetrics(this.registry, opts.pending);
    this.berth = registerBerthMetrics(this.registry);
    this.berth.leader.set(0);
    const { kube } = this;
    const profile = opts.profile;
    this.pods = new PodTracker(profile, {
      incoming: (queue, event) => kube.queueIncoming.add(`${queue}/${event}`, { queue, event }),
      attempt: (result, seconds) => {
        const labels = { result, profile };
        kube.scheduleAttempts.add(result, labels);
        kube.attemptDuration.observe(labels, seconds);
      },
      scheduled: (attempts, sliSeconds) => {
        kube.podAttempts.observe(attempts);
        if (sliSeconds !== undefined)
          kube.sliDuration.observe({ attempts: attemptsLabel(attempts) }, sliSeconds);
      },
    });
  }

  /** Pods followed for the queue and SLI metrics (0 when none is in flight). */
  get trackedPods(): { pods: number; keys: number } {
    return this.pods.size;
  }

  // The three observer callbacks are bound: a caller may keep one and call it detached.

  /** Every input and decision, as it enters the log. */
  readonly envelope = (env: Envelope): void => {
    const { event } = env;
    this.berth.logEvents.addValue(event.type);
    if (isDecision(event)) this.berth.decisions.addValue(event.type);
    else if (event.type === 'BindSucceeded') this.berth.bindResults.add('succeeded', succeeded);
    else if (event.type === 'BindFailed') {
      this.berth.bindResults.add(`failed/${event.reason}`, {
        result: 'failed',
        reason: event.reason,
      });
      this.berth.bindFailures.addValue(event.code === undefined ? 'none' : String(event.code));
    }
    this.pods.envelope(env);
  };

  /**
   * A scheduling cycle ran: its decisions and how long it took. Preemption is counted here,
   * where a nomination and its victims arrive together.
   */
  readonly cycle = (decisions: Envelope<DecisionEvent>[], seconds: number): void => {
    this.pods.cycle(decisions, seconds);
    const preemption = preemptionCounts(decisions);
    if (preemption.attempts > 0) this.kube.preemptionAttempts.inc(preemption.attempts);
    for (const victims of preemption.victims) this.kube.preemptionVictims.observe(victims);
  };

  /** Leadership changed. */
  readonly leading = (leading: boolean): void => {
    this.berth.leader.set(leading ? 1 : 0);
  };
}
