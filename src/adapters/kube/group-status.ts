// Writes pod groups' standing to their PodGroups: the status subresource and Events, on the report budget.
import type { EventsV1Event } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { podGroupApiVersion } from '../../cluster/pod-groups.ts';
import type { GroupReport } from '../../core/ports.ts';
import { describeApiError } from './api-error.ts';
import type { KubeClients } from './config.ts';
import { type EventNamer, eventNote } from './event-names.ts';
import { MicroTime } from './lease-record.ts';
import { podGroupResource } from './list-watch.ts';
import { splitKey } from './preemption-effects.ts';
import { PacedQueue, type TokenBucket } from './rate-limiter.ts';
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

/** One write waiting for a token: a group's status (its latest report), or one Event. */
type GroupWrite =
  | { kind: 'status'; key: string }
  | { kind: 'event'; key: string; reason: string; body: EventsV1Event };

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
 * Events are sent one by one. A 404 (the PodGroup or its CRD is gone) is logged at debug,
 * any other failure at warn; either way the write is dropped. Never throws.
 */
export class GroupReports {
  private readonly queue: PacedQueue<GroupWrite>;
  /** The latest unsent status per group (its write is queued, or waits for one in flight). */
  private readonly pending = new Map<string, PodGroupStatus>();
  /** Groups whose status write is in flight. */
  private readonly inFlight = new Set<string>();
  /** The last status written per group, as JSON, oldest first. */
  private readonly written = new Map<string, string>();
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
  }

  /** Writes waiting for a token. */
  get size(): number {
    return this.queue.size;
  }

  /** Queues the report's status write (coalesced) and its Event, if any. */
  report(report: GroupReport): void {
    if (this.closed) return;
    const key = report.key;
    const status = podGroupStatus(report);
    const json = JSON.stringify(status);
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
    const event = report.event;
    if (event !== undefined)
      this.queue.push({ kind: 'event', key, reason: event.reason, body: this.event(key, event) });
  }

  /** Drops every queued write and ignores later reports; returns how many were dropped. */
  close(): number {
    this.closed = true;
    this.pending.clear();
    return this.queue.close();
  }

  /** Resolves when no write is queued and every write sent has settled. */
  settled(): Promise<void> {
    return this.queue.settled();
  }

  private event(key: string, event: NonNullable<GroupReport['event']>): EventsV1Event {
    const { namespace, name } = splitKey(key);
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
      regarding: { apiVersion: podGroupApiVersion, kind: 'PodGroup', name, namespace },
    };
  }

  private async send(write: GroupWrite): Promise<void> {
    if (this.closed) return;
    if (write.kind === 'event') {
      const { namespace } = splitKey(write.key);
      const body = write.body;
      await this.attempt(write.key, `event ${write.reason}`, () =>
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
    const { namespace, name } = splitKey(key);
    const { group, version, plural } = podGroupResource;
    const ok = await this.attempt(key, `patch status ${status.phase}`, () =>
      this.opts.clients.custom.patchNamespacedCustomObjectStatus(
        { group, version, plural, namespace, name, body: { status } },
        timeoutOptions(this.opts.timeoutMs, PatchType.Merge),
      ),
    );
    this.inFlight.delete(key);
    if (ok) this.remember(key, json);
    // A report that came while this write was in flight goes out now.
    if (this.pending.has(key) && !this.closed) {
      if (this.written.get(key) === JSON.stringify(this.pending.get(key))) this.pending.delete(key);
      else this.queue.push({ kind: 'status', key });
    }
  }

  /** Runs `call`; true on success. A failure is logged (404 at debug) and dropped. */
  private async attempt(key: string, what: string, call: () => Promise<unknown>): Promise<boolean> {
    try {
      await call();
      return true;
    } catch (err) {
      const f = describeApiError(err);
      const fields = { podGroup: key, write: what, code: f.code, err: f.message };
      if (f.code === 404) {
        // Gone (or its CRD is): whatever was written there went with it.
        this.written.delete(key);
        this.opts.log.debug(fields, 'PodGroup report not written: not found');
      } else this.opts.log.warn(fields, 'PodGroup report failed');
      return false;
    }
  }

  private remember(key: string, json: string): void {
    this.written.delete(key);
    this.written.set(key, json);
    while (this.written.size > this.opts.maxRemembered) {
      const oldest = this.written.keys().next().value;
      if (oldest === undefined) break;
      this.written.delete(oldest);
    }
  }
}
