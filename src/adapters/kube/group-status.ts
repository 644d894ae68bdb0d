// Writes pod groups' standing to their PodGroups: the status subresource and Events, on the report budget.
import type { EventsV1Event } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { corePodGroupApiVersion, corePodGroupKeyOfGroup } from '../../cluster/core-pod-groups.ts';
import { podGroupApiVersion } from '../../cluster/pod-groups.ts';
import type { GroupCondition, GroupReport } from '../../core/ports.ts';
import { type ApiFailure, describeApiError } from './api-error.ts';
import type { KubeClients } from './config.ts';
import { type EventNamer, eventNote } from './event-names.ts';
import { MicroTime } from './lease-record.ts';
import { corePodGroupResource, podGroupResource } from './list-watch.ts';
import { splitKey } from './preemption-effects.ts';
import { PacedQueue, type TokenBucket } from './rate-limiter.ts';
import {
  type ReportRetryPolicy,
  type RetryClock,
  RetryTimers,
  retryAfter,
} from './report-retry.ts';
import { PatchType, timeoutOptions } from './request-options.ts';
import type { WriteGate } from './write-gate.ts';

/** What a GroupReports is built with. */
export interface GroupReportsOptions {
  clients: KubeClients;
  /** The report budget (shared with pod conditions and Events); binds never take from it. */
  bucket: TokenBucket;
  /** Writes wait while scheduling writes are busy (shared with the pod reports). */
  gate?: WriteGate;
  log: Logger;
  timeoutMs: number;
  /** Writes that may wait for a token; beyond it the oldest is dropped. */
  capacity: number;
  /** How many groups' last written status to remember (for the dedupe). */
  maxRemembered: number;
  reportingController: string;
  reportingInstance: string;
  /** Names the Events (shared with the pod Events, so names stay unique). */
  namer: EventNamer;
  now: () => Date;
  /** Called with each write dropped because the queue was full. */
  onDrop: () => void;
  /** How a write that failed with a 5xx, a 429 or no answer is tried again. */
  retry: ReportRetryPolicy;
  /** Timers the retries wait on (default the global ones). */
  retryClock?: RetryClock;
}

/** The PodGroup `status` berth writes (scheduler-plugins' PodGroupStatus fields). */
export interface PodGroupStatus {
  phase: GroupReport['phase'];
  scheduled: number;
  running: number;
  succeeded: number;
  failed: number;
  scheduleStartTime?: string;
}

/**
 * The status berth writes to a core PodGroup (scheduling.k8s.io/v1beta1): its
 * PodGroupInitiallyScheduled condition, as a strategic merge patch of `status.conditions`
 * (merged by `type`, so other conditions stay).
 */
export interface CorePodGroupStatus {
  conditions: [GroupCondition & { type: 'PodGroupInitiallyScheduled'; lastTransitionTime: string }];
}

/** What a status write sends: scheduler-plugins' status fields, or a core PodGroup's condition. */
type StatusBody = PodGroupStatus | CorePodGroupStatus;

/**
 * A core PodGroup's status for `condition`; `since` is the condition's lastTransitionTime
 * (kube keeps it while the status stays the same).
 */
export function corePodGroupStatus(condition: GroupCondition, since: string): CorePodGroupStatus {
  return {
    conditions: [{ type: 'PodGroupInitiallyScheduled', ...condition, lastTransitionTime: since }],
  };
}

/** One write waiting for a token: a group's status (its latest report), or one Event. */
type GroupWrite =
  | { kind: 'status'; key: string }
  | { kind: 'event'; key: string; reason: string; body: EventsV1Event; tries?: number };

/** An API timestamp (RFC 3339, whole seconds, as metav1.Time writes it). */
function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The status a report writes; `scheduleStartTime` only once scheduling began. */
export function podGroupStatus(report: GroupReport): PodGroupStatus {
  const { phase, scheduled, running, succeeded, failed, scheduleStartMs } = report;
  return {
    phase,
    scheduled,
    running,
    succeeded,
    failed,
    ...(scheduleStartMs === undefined ? {} : { scheduleStartTime: rfc3339(scheduleStartMs) }),
  };
}

/**
 * Sends groups' reports. Status writes are coalesced per group: while one waits for a token
 * (or the group's previous write is still in flight, so writes never overtake each other)
 * a newer report replaces it, and a status identical to the last one written is not sent.
 * Events are sent one by one. A write that failed with a 5xx, a 429 or no answer is tried
 * again after a backoff (`retry`; a status retry sends the group's latest status); a 404 (the
 * PodGroup or its CRD is gone) is logged at debug, any other failure at warn, and dropped.
 * Never throws.
 */
export class GroupReports {
  private readonly queue: PacedQueue<GroupWrite>;
  /** The latest unsent status per group (its write is queued, or waits for one in flight). */
  private readonly pending = new Map<string, StatusBody>();
  /** Each core PodGroup's condition status last queued and when it became that (lastTransitionTime). */
  private readonly transitions = new Map<string, { status: string; since: string }>();
  /** Groups whose status write is in flight. */
  private readonly inFlight = new Set<string>();
  /** The last status written per group, as JSON, oldest first. */
  private readonly written = new Map<string, string>();
  /** Failed tries of each group's status write being retried. */
  private readonly statusTries = new Map<string, number>();
  /** Writes waiting to be tried again. */
  private readonly retries: RetryTimers<GroupWrite>;
  private closed = false;

  constructor(private readonly opts: GroupReportsOptions) {
    this.queue = new PacedQueue<GroupWrite>({
      bucket: opts.bucket,
      ...(opts.gate === undefined ? {} : { gate: opts.gate }),
      capacity: opts.capacity,
      run: (write) => this.send(write),
      onDrop: (write) => {
        // A dropped status write takes its pending report with it, so the next one queues.
        if (write.kind === 'status') this.pending.delete(write.key);
        opts.onDrop();
      },
    });
    this.retries = new RetryTimers((write) => this.queue.push(write), opts.retryClock);
  }

  /** Writes waiting for a token or a retry. */
  get size(): number {
    return this.queue.size + this.retries.size;
  }

  /** Queues the report's status write (coalesced) and its Event, if any. */
  report(report: GroupReport): void {
    if (this.closed) return;
    const key = report.key;
    const status = this.statusOf(report);
    if (status === undefined) {
      this.queueEvent(report);
      return;
    }
    const json = JSON.stringify(status);
    // A newer status starts its own count of tries.
    this.statusTries.delete(key);
    if (this.inFlight.has(key)) {
      // Sent when the write in flight settles (unless it is what that write wrote).
      this.pending.set(key, status);
    } else if (this.written.get(key) === json) {
      // Back to what is written: a queued write of something else would be a step back.
      if (this.pending.delete(key)) this.queue.remove((w) => w.kind === 'status' && w.key === key);
    } else {
      if (!this.pending.has(key)) this.queue.push({ kind: 'status', key });
      this.pending.set(key, status);
    }
    this.queueEvent(report);
  }

  /**
   * The status a report writes: scheduler-plugins' fields, or a core PodGroup's condition
   * (none before its first step).
   */
  private statusOf(report: GroupReport): StatusBody | undefined {
    if (corePodGroupKeyOfGroup(report.key) === undefined) return podGroupStatus(report);
    const condition = report.initiallyScheduled;
    if (condition === undefined) return undefined;
    const last = this.transitions.get(report.key);
    const since =
      last !== undefined && last.status === condition.status
        ? last.since
        : rfc3339(this.opts.now().getTime());
    this.transitions.set(report.key, { status: condition.status, since });
    return corePodGroupStatus(condition, since);
  }

  private queueEvent(report: GroupReport): void {
    const event = report.event;
    if (event !== undefined) {
      const body = this.event(report.key, event);
      this.queue.push({ kind: 'event', key: report.key, reason: event.reason, body });
    }
  }

  /** Drops every queued write and ignores later reports; returns how many were dropped. */
  close(): number {
    this.closed = true;
    this.pending.clear();
    return this.queue.close() + this.retries.close();
  }

  /** Resolves when no write is queued or waiting to be retried and every write sent has settled. */
  async settled(): Promise<void> {
    do {
      await this.queue.settled();
      await this.retries.settled();
    } while (this.size > 0);
  }

  private event(key: string, event: NonNullable<GroupReport['event']>): EventsV1Event {
    const core = corePodGroupKeyOfGroup(key);
    const { namespace, name } = splitKey(core ?? key);
    const time = this.opts.now().getTime();
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: this.opts.namer.name(name, time), namespace },
      eventTime: new MicroTime(time),
      reportingController: this.opts.reportingController,
      reportingInstance: this.opts.reportingInstance,
      action: 'Scheduling',
      reason: event.reason,
      type: event.type,
      note: eventNote(event.message),
      // No uid: the report names the group, not the PodGroup object it was read from.
      regarding: {
        apiVersion: core === undefined ? podGroupApiVersion : corePodGroupApiVersion,
        kind: 'PodGroup',
        name,
        namespace,
      },
    };
  }

  private async send(write: GroupWrite): Promise<void> {
    if (this.closed) return;
    if (write.kind === 'event') {
      const namespace = write.body.metadata?.namespace ?? splitKey(write.key).namespace;
      const body = write.body;
      const tries = (write.tries ?? 0) + 1;
      await this.attempt(
        write.key,
        `event ${write.reason}`,
        tries,
        (delay) => this.retries.schedule({ ...write, tries }, delay),
        () =>
          this.opts.clients.events.createNamespacedEvent(
            { namespace, body },
            timeoutOptions(this.opts.timeoutMs),
          ),
      );
      return;
    }
    const { key } = write;
    const status = this.pending.get(key);
    this.pending.delete(key);
    if (status === undefined) return;
    const json = JSON.stringify(status);
    this.inFlight.add(key);
    const core = corePodGroupKeyOfGroup(key);
    const { namespace, name } = splitKey(core ?? key);
    const { group, version, plural } = core === undefined ? podGroupResource : corePodGroupResource;
    const tries = (this.statusTries.get(key) ?? 0) + 1;
    let retrying = false;
    const retry = (delay: number) => {
      // A report that came meanwhile goes out below instead (it is newer).
      if (this.pending.has(key) || this.closed) return;
      retrying = true;
      this.pending.set(key, status);
      this.statusTries.set(key, tries);
      this.retries.schedule(write, delay);
    };
    // A built-in PodGroup takes a strategic merge (its conditions merge by type); a CRD does not.
    const patch = core === undefined ? PatchType.Merge : PatchType.StrategicMerge;
    const what = 'phase' in status ? status.phase : status.conditions[0].reason;
    const ok = await this.attempt(key, `patch status ${what}`, tries, retry, () =>
      this.opts.clients.custom.patchNamespacedCustomObjectStatus(
        { group, version, plural, namespace, name, body: { status } },
        timeoutOptions(this.opts.timeoutMs, patch),
      ),
    );
    this.inFlight.delete(key);
    if (ok) this.remember(key, json);
    if (retrying) return;
    this.statusTries.delete(key);
    // A report that came while this write was in flight goes out now.
    if (this.pending.has(key) && !this.closed) {
      if (this.written.get(key) === JSON.stringify(this.pending.get(key))) this.pending.delete(key);
      else this.queue.push({ kind: 'status', key });
    }
  }

  /**
   * Runs `call` (try number `tries`); true on success. A failure that may pass is handed to
   * `retry` with its delay while the policy allows; any other is logged (404 at debug) and
   * dropped.
   */
  private async attempt(
    key: string,
    what: string,
    tries: number,
    retry: (delayMs: number) => void,
    call: () => Promise<unknown>,
  ): Promise<boolean> {
    try {
      await call();
      return true;
    } catch (err) {
      this.failed(key, what, tries, retry, describeApiError(err));
      return false;
    }
  }

  private failed(
    key: string,
    what: string,
    tries: number,
    retry: (delayMs: number) => void,
    f: ApiFailure,
  ): void {
    const fields = { podGroup: key, write: what, code: f.code, err: f.message, tries };
    if (f.code === 404) {
      // Gone (or its CRD is): whatever was written there went with it.
      this.written.delete(key);
      this.opts.log.debug(fields, 'PodGroup report not written: not found');
      return;
    }
    const delay = retryAfter(this.opts.retry, f, tries);
    if (delay === undefined) {
      this.opts.log.warn(fields, 'PodGroup report failed');
      return;
    }
    this.opts.log.warn({ ...fields, retryInMs: delay }, 'PodGroup report failed; retrying');
    retry(delay);
  }

  private remember(key: string, json: string): void {
    this.written.delete(key);
    this.written.set(key, json);
    while (this.written.size > this.opts.maxRemembered) {
      const oldest = this.written.keys().next().value;
      if (oldest === undefined) break;
      this.written.delete(oldest);
      this.transitions.delete(oldest);
    }
  }
}
