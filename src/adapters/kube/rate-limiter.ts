// A token bucket for API writes (client-go's QPS/burst): callers wait their turn in FIFO order.

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
