// Retries of report writes (conditions, Events, PodGroup status) that failed for a reason that may pass: 5xx, 429, no answer.
import type { ApiFailure } from './api-error.ts';

/** How a failed report is tried again. */
export interface ReportRetryPolicy {
  /** Tries in all, the first included (default 4: retried after 100, 200 and 400 ms). */
  tries: number;
  /** The wait before the first retry; each next one waits twice as long (default 100 ms). */
  firstDelayMs: number;
}

/** The default: 4 tries, 100 ms doubling (at most 700 ms of waiting in all). */
export const defaultReportRetry: Readonly<ReportRetryPolicy> = Object.freeze({
  tries: 4,
  firstDelayMs: 100,
});

/** The timer functions retries wait on (the globals by default; tests inject their own). */
export interface RetryClock {
  setTimeout: (fire: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

const globalClock: RetryClock = {
  setTimeout: (fire, ms) => {
    const handle = setTimeout(fire, ms);
    // A retry waiting never keeps the process alive.
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * True for a failure that may pass if the same write is sent again: the API server was
 * overloaded or failing (429, 5xx) or never answered (timeout, refused, reset). A 4xx other
 * than 429 (403 forbidden, 404 gone, 409 conflict, 422 invalid) would fail the same way again.
 */
export function isRetriable(failure: ApiFailure): boolean {
  if (failure.network) return true;
  const code = failure.code;
  return code !== undefined && (code === 429 || (code >= 500 && code <= 599));
}

/**
 * The wait before try number `tries + 1` after `tries` tries failed, or undefined when the
 * policy allows no more tries.
 */
export function retryDelay(policy: ReportRetryPolicy, tries: number): number | undefined {
  if (tries >= policy.tries) return undefined;
  return policy.firstDelayMs * 2 ** Math.max(0, tries - 1);
}

/**
 * The wait before trying a write again after its try number `tries` failed with `failure`,
 * or undefined when it is not to be tried again (the failure would repeat, or the tries are
 * spent).
 */
export function retryAfter(
  policy: ReportRetryPolicy,
  failure: ApiFailure,
  tries: number,
): number | undefined {
  return isRetriable(failure) ? retryDelay(policy, tries) : undefined;
}

/** A job waiting for its retry time. */
interface Waiting<T> {
  job: T;
  handle: unknown;
  done: () => void;
}

/**
 * Jobs waiting out their retry delay before they go back to their queue (`requeue`), where
 * they wait for a token like any report: a retry spends the report budget, never the binds'.
 * Waiting here, not in the queue, so that a retry never holds up the reports queued behind it.
 */
export class RetryTimers<T> {
  private readonly waiting = new Set<Waiting<T>>();
  private readonly pending = new Set<Promise<void>>();
  private closed = false;
  private readonly clock: RetryClock;

  constructor(
    private readonly requeue: (job: T) => void,
    clock?: RetryClock,
  ) {
    this.clock = clock ?? globalClock;
  }

  /** Jobs waiting for their retry time. */
  get size(): number {
    return this.waiting.size;
  }

  /** Requeues `job` after `delayMs` (a no-op after `close()`). */
  schedule(job: T, delayMs: number): void {
    if (this.closed) return;
    let entry: Waiting<T> | undefined;
    const fired = new Promise<void>((resolve) => {
      entry = { job, handle: undefined, done: resolve };
    });
    const w = entry as Waiting<T>;
    this.waiting.add(w);
    this.pending.add(fired);
    void fired.finally(() => this.pending.delete(fired));
    w.handle = this.clock.setTimeout(() => {
      if (!this.waiting.delete(w)) return;
      try {
        if (!this.closed) this.requeue(w.job);
      } finally {
        w.done();
      }
    }, delayMs);
  }

  /** Cancels the waiting jobs that match `which`; returns how many. */
  cancel(which: (job: T) => boolean): number {
    let n = 0;
    for (const w of this.waiting)
      if (which(w.job)) {
        this.drop(w);
        n++;
      }
    return n;
  }

  /** Cancels every waiting job and ignores later ones; returns how many were cancelled. */
  close(): number {
    this.closed = true;
    return this.cancel(() => true);
  }

  /** Resolves when no job is waiting (each has been requeued or cancelled). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private drop(w: Waiting<T>): void {
    this.waiting.delete(w);
    this.clock.clearTimeout(w.handle);
    w.done();
  }
}
