// The Kubernetes reports: PodScheduled conditions, Events, nominations and PodGroup status, on their own budget.
import type { Logger } from 'pino';
import type {
  CommandHandler,
  ReportCommand,
  ReportUnschedulableCommand,
} from '../../core/commands.ts';
import type { PodRef } from '../../events/types.ts';
import type { KubeClients } from './config.ts';
import { generationField } from './disruption-target.ts';
import { EventNamer } from './event-names.ts';
import { GroupReports } from './group-status.ts';
import { type PodEvent, podEventBody } from './pod-events.ts';
import { runNominate, splitKey } from './preemption-effects.ts';
import type { TokenBucket } from './rate-limiter.ts';
import { PodReportQueue } from './report-queue.ts';
import { defaultReportRetry, type ReportRetryPolicy, type RetryClock } from './report-retry.ts';
import { ReportedMessages } from './reported-messages.ts';
import { PatchType, timeoutOptions } from './request-options.ts';
import type { SchedulingWrites } from './scheduling-writes.ts';

/** What a KubeReports is built with (see `kubeEffects`, which builds it beside KubeBinder). */
export interface KubeReportsOptions {
  clients: KubeClients;
  /** Reports wait for a token here, so that a backlog of them never delays a bind. */
  reportLimiter: TokenBucket;
  /** Nominations are scheduling writes: they take a token of the bind limiter. */
  limiter: TokenBucket;
  /** Scheduling writes in flight: nominations join them; reports wait on their gate. */
  writes: SchedulingWrites;
  log: Logger;
  reportingController: string;
  reportingInstance: string;
  /** Timeout of each API write. */
  timeoutMs: number;
  /** How many pods' last message, and groups' last status, to remember. */
  maxRemembered: number;
  /** How long each report waits after it is queued before it is sent. */
  reportDelayMs: number;
  /** How many report writes may wait; beyond it the oldest is dropped. */
  maxQueuedReports: number;
  /** Wall clock for condition and event timestamps. */
  now: () => Date;
  /** How a report that failed with a 5xx, a 429 or no answer is tried again. */
  reportRetry?: ReportRetryPolicy;
  /** Timers the retries wait on (default the global ones, unref'd). */
  retryClock?: RetryClock;
}

/**
 * Carries out berth's reports. Conditions, Events and PodGroup status are fire-and-forget on
 * their own token bucket and bounded queue, held back while scheduling writes are busy, and
 * only logged on failure (a failure that may pass is retried); neither binds nor shutdown
 * ever wait for them. Nominations are scheduling writes (bind limiter, drained on stop).
 * `execute` never throws or leaves a rejected promise behind.
 */
export class KubeReports implements CommandHandler<ReportCommand> {
  /** Pod conditions and Events. */
  private readonly reports: PodReportQueue;
  /** PodGroup status writes and Events: their own queue, on the same report budget. */
  private readonly groups: GroupReports;
  private readonly reported: ReportedMessages;
  private readonly namer = new EventNamer();
  private stopped = false;

  constructor(private readonly opts: KubeReportsOptions) {
    const { gate } = opts.writes;
    this.reported = new ReportedMessages(opts.maxRemembered);
    this.reports = new PodReportQueue({
      bucket: opts.reportLimiter,
      gate,
      capacity: opts.maxQueuedReports,
      delayMs: opts.reportDelayMs,
      log: opts.log,
      reported: this.reported,
      retry: opts.reportRetry ?? defaultReportRetry,
      ...(opts.retryClock === undefined ? {} : { retryClock: opts.retryClock }),
      queued: () => this.queuedReports,
    });
    this.groups = new GroupReports({
      clients: opts.clients,
      bucket: opts.reportLimiter,
      gate,
      log: opts.log,
      timeoutMs: opts.timeoutMs,
      capacity: opts.maxQueuedReports,
      maxRemembered: opts.maxRemembered,
      reportingController: opts.reportingController,
      reportingInstance: opts.reportingInstance,
      namer: this.namer,
      now: opts.now,
      onDrop: () => this.reports.countDrop(),
      retry: opts.reportRetry ?? defaultReportRetry,
      ...(opts.retryClock === undefined ? {} : { retryClock: opts.retryClock }),
    });
  }

  /** Report writes waiting for a token or a retry (PodGroup writes included). */
  get queuedReports(): number {
    return this.reports.size + this.groups.size;
  }

  /** Report writes dropped so far because the report queue was full. */
  get droppedReports(): number {
    return this.reports.droppedReports;
  }

  /**
   * `nominate`: sets (or clears) the pod's nominatedNodeName, failures logged.
   * `reportUnschedulable`: PodScheduled=False and a Warning FailedScheduling, once per reason
   * and message. `reportScheduled`: the `Scheduled` Event. `reportBindingWait`: kube's
   * Normal `BindingConditionsPending` Event. `reportGroup`: the PodGroup's
   * status (a newer report replaces one still waiting; an unchanged status is not sent again)
   * and its Event. `forgetPod`: the pod's next report is written even if it repeats, and its
   * queued status patches are dropped (they would land on whatever pod holds the name now).
   */
  execute(command: ReportCommand): void {
    if (command.kind === 'nominate') this.nominate(command.pod, command.node);
    else if (command.kind === 'reportUnschedulable') this.reportUnschedulable(command);
    else if (command.kind === 'reportScheduled') this.reportScheduled(command.pod, command.node);
    else if (command.kind === 'reportBindingWait')
      this.reportBindingWait(command.pod, command.node);
    else if (command.kind === 'reportGroup') {
      if (!this.stopped) this.groups.report(command.report);
    } else this.forgetPod(command.pod);
  }

  /**
   * Records the `Preempted` Event on `victim` for `preemptor` (the binder's last step), with
   * the preemptor as its `related` object unless `namePreemptor` is false (kube 1.37's Event).
   * For core PodGroup `group`'s preemption kube 1.37.2 names the group and its domain:
   * "Preempted by podgroup <uid> on node cluster", with the PodGroup as `related`.
   */
  recordPreempted(
    victim: PodRef,
    preemptor: PodRef,
    node: string,
    namePreemptor = true,
    group?: PodRef,
  ): void {
    const note =
      group === undefined
        ? `Preempted by pod ${preemptor.uid} on node ${node}`
        : `Preempted by podgroup ${group.uid} on node cluster`;
    const event = { pod: victim, type: 'Normal', reason: 'Preempted', action: 'Preempting', note };
    if (group !== undefined) this.recordEvent({ ...event, relatedGroup: group });
    else this.recordEvent(event, namePreemptor ? { related: preemptor } : {});
  }

  /** Resolves when every write and report, queued or in flight, has settled (for tests). */
  async settled(): Promise<void> {
    for (;;) {
      await this.opts.writes.idle();
      await this.reports.settled();
      await this.groups.settled();
      await this.reports.retriesSettled();
      if (this.opts.writes.size === 0 && this.queuedReports === 0) return;
    }
  }

  /**
   * Makes later commands no-ops (but `forgetPod`); queued reports are dropped (logged with
   * their count) and nothing waits on the gate any more.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const dropped = this.reports.close() + this.groups.close() + this.reports.closeRetries();
    this.opts.writes.gate.open();
    this.opts.log.info({ dropped }, 'stopped; queued reports dropped');
  }

  private nominate(pod: PodRef, node: string | undefined): void {
    if (this.stopped) return;
    const ref = { uid: pod.uid, key: pod.key };
    const { clients, limiter, log, timeoutMs } = this.opts;
    const writer = { clients, limiter, log, timeoutMs, stopped: () => this.stopped };
    this.opts.writes.track('nomination', runNominate(writer, ref, node));
  }

  private reportUnschedulable(command: ReportUnschedulableCommand): void {
    const { pod, message, observedGeneration, reason } = command;
    const reported = `${reason}: ${message}`;
    if (this.stopped || this.reported.isLast(pod.uid, reported)) return;
    this.reported.remember(pod.uid, reported);
    const { namespace, name } = splitKey(pod.key);
    const condition = {
      type: 'PodScheduled',
      ...generationField(observedGeneration),
      status: 'False',
      reason,
      message,
      lastTransitionTime: this.opts.now().toISOString(),
    };
    this.reports.push({
      pod,
      kind: 'status',
      what: 'patch PodScheduled',
      message: reported,
      call: () =>
        this.opts.clients.core.patchNamespacedPodStatus(
          { name, namespace, body: { status: { conditions: [condition] } } },
          timeoutOptions(this.opts.timeoutMs, PatchType.StrategicMerge),
        ),
    });
    this.recordEvent(
      { pod, type: 'Warning', reason: 'FailedScheduling', action: 'Scheduling', note: message },
      { unschedulable: reported },
    );
  }

  private reportScheduled(pod: PodRef, node: string): void {
    this.reported.forget(pod.uid);
    if (this.stopped) return;
    const note = `Successfully assigned ${pod.key} to ${node}`;
    this.recordEvent({ pod, type: 'Normal', reason: 'Scheduled', action: 'Binding', note });
  }

  private reportBindingWait(pod: PodRef, node: string): void {
    if (this.stopped) return;
    const note = `waiting for binding conditions for device on node ${node}`;
    const reason = 'BindingConditionsPending';
    this.recordEvent({ pod, type: 'Normal', reason, action: 'Scheduling', note });
  }

  private forgetPod(pod: PodRef): void {
    this.reported.forget(pod.uid);
    this.reports.removeStatus(pod.uid);
  }

  /** Queues the Event; `unschedulable` is the `<reason>: <message>` it reports (for the dedupe). */
  private recordEvent(
    event: Omit<PodEvent, 'related'>,
    extras: { unschedulable?: string; related?: PodRef } = {},
  ): void {
    const { pod, reason } = event;
    const { namespace } = splitKey(pod.key);
    const body = podEventBody(
      extras.related === undefined ? event : { ...event, related: extras.related },
      {
        namer: this.namer,
        reportingController: this.opts.reportingController,
        reportingInstance: this.opts.reportingInstance,
        timeMs: this.opts.now().getTime(),
      },
    );
    const unschedulable = extras.unschedulable;
    this.reports.push({
      pod,
      kind: 'event',
      what: `event ${reason}`,
      ...(unschedulable === undefined ? {} : { message: unschedulable }),
      call: () =>
        this.opts.clients.http.request(
          'POST',
          `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`,
          JSON.stringify(body),
          { timeoutMs: this.opts.timeoutMs },
        ),
    });
  }
}
