// Rate limits for API writes: a token bucket (client-go's QPS/burst) and a bounded queue paced by one.

/** How fast the bucket refills and how many tokens it holds. */
export interface TokenBucketOptions {
  /** Tokens added per second. */
  qps: number;
  /** Capacity; the bucket starts full. */
  burst: number;
  /** Monotonic time in ms (default `performance.now`). */
  now?: () => number;
  /** Timer used to wait for the next token (default the global `setTimeout`). */
  setTimeout?: (fire: () => void, ms: number) => unknown;
}

/**
 * A token bucket: `burst` tokens at start, refilled at `qps` per second. `take()` resolves
 * when a token is available, in the order the calls were made.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly waiting: (() => void)[] = [];
  private timerArmed = false;
  private readonly now: () => number;
  private readonly setTimer: (fire: () => void, ms: number) => unknown;

  constructor(private readonly opts: TokenBucketOptions) {
    if (!(opts.qps > 0)) throw new RangeError(`qps must be > 0 (got ${opts.qps})`);
    if (!(opts.burst >= 1)) throw new RangeError(`burst must be >= 1 (got ${opts.burst})`);
    this.now = opts.now ?? (() => performance.now());
    this.setTimer = opts.setTimeout ?? ((fire, ms) => setTimeout(fire, ms));
    this.tokens = opts.burst;
    this.last = this.now();
  }

  /** Number of callers waiting for a token. */
  get pending(): number {
    return this.waiting.length;
  }

  /** Resolves once a token has been taken for this caller (FIFO among callers). */
  take(): Promise<void> {
    this.refill();
    if (this.waiting.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.arm();
    });
  }

  private refill(): void {
    const now = this.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.opts.burst, this.tokens + (elapsed * this.opts.qps) / 1000);
  }

  private arm(): void {
    if (this.timerArmed || this.waiting.length === 0) return;
    this.timerArmed = true;
    const wait = Math.max(0, Math.ceil(((1 - this.tokens) * 1000) / this.opts.qps));
    this.setTimer(() => this.drain(), wait);
  }

  private drain(): void {
    this.timerArmed = false;
    this.refill();
    while (this.waiting.length > 0 && this.tokens >= 1) {
      this.tokens -= 1;
      this.waiting.shift()?.();
    }
    // Rounding can leave the bucket a hair short of a token: arm() then waits ≥ 1 ms more.
    this.arm();
  }
}

/** What a PacedQueue is built with. */
export interface PacedQueueOptions<T> {
  /** One token per job; the queue is its only waiter, so the bucket's own queue stays short. */
  bucket: TokenBucket;
  /** Jobs that may wait for a token; a push beyond it drops the oldest waiting job. */
  capacity: number;
  /** Starts a job once its token is taken. Its promise is awaited only by `settled()`. */
  run: (job: T) => Promise<void>;
  /** Called with each job dropped because the queue was full. */
  onDrop?: (job: T) => void;
  /** Awaited before each token is taken: jobs wait while it is closed (see WriteGate). */
  gate?: { whenOpen(): Promise<void> };
  /** Each job starts no sooner than this many ms after its push (default 0). */
  delayMs?: number;
  /** Monotonic time in ms for `delayMs` (default `performance.now`). */
  now?: () => number;
  /** Timer used to wait out `delayMs` (default the global `setTimeout`). */
  setTimeout?: (fire: () => void, ms: number) => unknown;
}

/** A waiting job and the time (queue clock) before which it may not start. */
interface Queued<T> {
  job: T;
  due: number;
}

/**
 * A bounded FIFO of fire-and-forget jobs, started one per token of `bucket`, each no sooner
 * than `delayMs` after its push. Memory is bounded by `capacity`: when full, the oldest
 * waiting job is dropped (newer work is the more current). Jobs already started are not
 * waited for by anything but `settled()`.
 */
export class PacedQueue<T> {
  private readonly jobs: Queued<T>[] = [];
  private readonly running = new Set<Promise<void>>();
  private pumping: Promise<void> | undefined;
  private closed = false;
  private readonly delayMs: number;
  private readonly now: () => number;
  private readonly setTimer: (fire: () => void, ms: number) => unknown;

  constructor(private readonly opts: PacedQueueOptions<T>) {
    if (!(opts.capacity >= 1)) throw new RangeError(`capacity must be >= 1 (got ${opts.capacity})`);
    this.delayMs = opts.delayMs ?? 0;
    if (!(this.delayMs >= 0)) throw new RangeError(`delayMs must be >= 0 (got ${opts.delayMs})`);
    this.now = opts.now ?? (() => performance.now());
    this.setTimer = opts.setTimeout ?? ((fire, ms) => setTimeout(fire, ms));
  }

  /** Jobs waiting for their time or a token. */
  get size(): number {
    return this.jobs.length;
  }

  /** Queues `job` (a no-op after `close()`); drops the oldest waiting job when full. */
  push(job: T): void {
    if (this.closed) return;
    this.jobs.push({ job, due: this.delayMs > 0 ? this.now() + this.delayMs : 0 });
    if (this.jobs.length > this.opts.capacity) {
      const oldest = this.jobs.shift() as Queued<T>;
      this.opts.onDrop?.(oldest.job);
    }
    this.pumping ??= this.pump();
  }

  /** Removes the waiting jobs that match `which` (started jobs are not touched); returns how many. */
  remove(which: (job: T) => boolean): number {
    let kept = 0;
    for (const queued of this.jobs) if (!which(queued.job)) this.jobs[kept++] = queued;
    const removed = this.jobs.length - kept;
    this.jobs.length = kept;
    return removed;
  }

  /** Drops every waiting job and ignores later pushes; returns how many were dropped. */
  close(): number {
    this.closed = true;
    const dropped = this.jobs.length;
    this.jobs.length = 0;
    return dropped;
  }

  /** Resolves when no job is waiting and every started job has settled. */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [...this.running];
      if (this.pumping !== undefined) pending.push(this.pumping);
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  /** Resolves once the first waiting job's time has come (at once when none is waiting). */
  private async untilDue(): Promise<void> {
    for (;;) {
      const head = this.jobs[0];
      const wait = head === undefined ? 0 : head.due - this.now();
      if (wait <= 0) return;
      await new Promise<void>((resolve) => this.setTimer(resolve, wait));
    }
  }

  private async pump(): Promise<void> {
    try {
      while (!this.closed && this.jobs.length > 0) {
        await this.untilDue();
        if (this.opts.gate !== undefined) await this.opts.gate.whenOpen();
        await this.opts.bucket.take();
        // While the queue waited at the gate or for the token, the job it waited for may have
        // been dropped or removed, and the next one may not be due yet.
        await this.untilDue();
        // Taken off only now: while a job waits for the token it can still be dropped or removed.
        const queued = this.jobs.shift();
        if (queued === undefined) break;
        const run = this.opts.run(queued.job).catch(() => {});
        this.running.add(run);
        void run.finally(() => this.running.delete(run));
      }
    } finally {
      this.pumping = undefined;
    }
  }
}
