// The queue pod reports (PodScheduled patches, Events) wait in for a report token, with retries and drops.
import type { Logger } from 'pino';
import type { PodRef } from '../../events/types.ts';
import { describeApiError } from './api-error.ts';
import { PacedQueue, type TokenBucket } from './rate-limiter.ts';
import {
  type ReportRetryPolicy,
  type RetryClock,
  RetryTimers,
  retryAfter,
} from './report-retry.ts';
import type { ReportedMessages } from './reported-messages.ts';
import type { WriteGate } from './write-gate.ts';

/** One report write waiting for a token. */
export interface PodReport {
  pod: PodRef;
  /** `status` writes go to the pod by name; they are dropped when the pod is forgotten. */
  kind: 'status' | 'event';
  what: string;
  call: () => Promise<unknown>;
  /** The `<reason>: <message>` this write reports, if any (for the dedupe). */
  message?: string;
  /** Tries that failed so far (absent: none). */
  tries?: number;
}

/** What a PodReportQueue is built with. */
export interface PodReportQueueOptions {
  bucket: TokenBucket;
  /** Reports wait here while scheduling writes are busy. */
  gate: WriteGate;
  capacity: number;
  delayMs: number;
  log: Logger;
  /** The last message reported per pod: a status write that no longer matches is stale. */
  reported: ReportedMessages;
  retry: ReportRetryPolicy;
  retryClock?: RetryClock;
  /** All report writes waiting (this queue's and others'), for the drop log. */
  queued: () => number;
}

/** Drops are logged at the first one and then every this many, with the running count. */
const dropLogEvery = 1000;

/**
 * Sends pod reports on the report budget, oldest first, dropping the oldest beyond
 * `capacity`. A failure that may pass is tried again after a backoff unless it became stale;
 * any other is logged and dropped. A report not written is unremembered, so that the next
 * identical one is sent. Never rejects.
 */
export class PodReportQueue {
  private readonly queue: PacedQueue<PodReport>;
  /** Reports waiting to be tried again after a failure that may pass. */
  private readonly retries: RetryTimers<PodReport>;
  /** Each pod's status write in flight (or waiting on the one before it), by uid. */
  private readonly statusInFlight = new Map<string, Promise<void>>();
  private closed = false;
  private dropped = 0;
  private droppedSinceLog = 0;

  constructor(private readonly opts: PodReportQueueOptions) {
    this.queue = new PacedQueue<PodReport>({
      bucket: opts.bucket,
      gate: opts.gate,
      capacity: opts.capacity,
      delayMs: opts.delayMs,
      run: (report) => this.send(report),
      onDrop: (report) => this.onDrop(report),
    });
    this.retries = new RetryTimers<PodReport>((report) => {
      if (this.stillCurrent(report)) this.queue.push(report);
    }, opts.retryClock);
  }

  /** Reports waiting for a token or a retry. */
  get size(): number {
    return this.queue.size + this.retries.size;
  }

  /** Reports dropped so far because a queue was full (see `countDrop`). */
  get droppedReports(): number {
    return this.dropped;
  }

  /** Queues `report`. */
  push(report: PodReport): void {
    this.queue.push(report);
  }

  /** Drops the queued and retrying status writes of pod `uid`. */
  removeStatus(uid: string): void {
    const its = (r: PodReport) => r.kind === 'status' && r.pod.uid === uid;
    this.queue.remove(its);
    this.retries.cancel(its);
  }

  /** Resolves when every report queued or retrying now has settled. */
  async settled(): Promise<void> {
    await this.queue.settled();
  }

  /** Resolves when every retry waiting now has settled. */
  async retriesSettled(): Promise<void> {
    await this.retries.settled();
  }

  /** Sends nothing more; returns how many queued or retrying reports were dropped. */
  close(): number {
    this.closed = true;
    return this.queue.close();
  }

  /** Drops every retry waiting; returns how many. */
  closeRetries(): number {
    return this.retries.close();
  }

  /** Counts one dropped report (a PodGroup report's drop counts here too). */
  countDrop(): void {
    this.dropped += 1;
    this.droppedSinceLog += 1;
    if (this.droppedSinceLog === 1 || this.droppedSinceLog % dropLogEvery === 0)
      this.opts.log.warn(
        { dropped: this.droppedSinceLog, queued: this.opts.queued() },
        'report backlog full; dropping the oldest reports',
      );
  }

  /**
   * Sends one report; a pod's status writes one at a time, in order. Writes run concurrently,
   * so two patches of one pod's PodScheduled could otherwise reach the API server in the
   * other order and leave the older message on the pod (seen on a real API server): a status
   * write waits for the pod's write before it, and is not sent at all if a newer report
   * replaced it meanwhile.
   */
  private send(report: PodReport): Promise<void> {
    if (report.kind !== 'status') return this.write(report);
    const uid = report.pod.uid;
    const before = this.statusInFlight.get(uid);
    const mine =
      before === undefined
        ? this.write(report)
        : before.then(() => (this.stillCurrent(report) ? this.write(report) : undefined));
    this.statusInFlight.set(uid, mine);
    void mine.finally(() => {
      if (this.statusInFlight.get(uid) === mine) this.statusInFlight.delete(uid);
    });
    return mine;
  }

  /**
   * Writes one report. A failure that may pass (5xx, 429, no answer) is tried again after a
   * backoff, unless the policy's tries are spent or a status write was superseded (the pod was
   * forgotten, bound, or has a newer report); any other failure is logged and dropped.
   */
  private async write(report: PodReport): Promise<void> {
    if (this.closed) return;
    try {
      await report.call();
    } catch (err) {
      const f = describeApiError(err);
      const tries = (report.tries ?? 0) + 1;
      const delay = this.stillCurrent(report) ? retryAfter(this.opts.retry, f, tries) : undefined;
      this.opts.log.warn(
        {
          pod: report.pod.key,
          uid: report.pod.uid,
          write: report.what,
          code: f.code,
          err: f.message,
          tries,
          ...(delay === undefined ? {} : { retryInMs: delay }),
        },
        delay === undefined ? 'report failed' : 'report failed; retrying',
      );
      if (delay === undefined) this.unremember(report);
      else this.retries.schedule({ ...report, tries }, delay);
    }
    if (this.droppedSinceLog > 0 && this.queue.size === 0 && !this.closed) {
      this.opts.log.info({ dropped: this.droppedSinceLog }, 'report backlog drained');
      this.droppedSinceLog = 0;
    }
  }

  private onDrop(report: PodReport): void {
    this.unremember(report);
    this.countDrop();
  }

  /**
   * False for a status write that would now be a step back: its pod was forgotten or bound,
   * or a newer report replaced what it writes. Events stay current (they record a moment).
   */
  private stillCurrent(report: PodReport): boolean {
    if (report.kind !== 'status' || report.message === undefined) return true;
    return this.opts.reported.isLast(report.pod.uid, report.message);
  }

  /** A report that was not written is forgotten, so that the next identical one is sent. */
  private unremember(report: PodReport): void {
    if (report.message !== undefined) this.opts.reported.unremember(report.pod.uid, report.message);
  }
}
