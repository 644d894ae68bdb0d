// Lets reports wait while scheduling writes are busy, so that under a burst binds go first.

/**
 * Counts scheduling writes (binds, preemptions, nominations) in flight or waiting for a
 * token, and opens for reports only while fewer than `threshold` are. Under a burst of binds
 * the API server's time goes to binds and the Events and condition patches follow once the
 * burst thins out; with a few binds at a time (a steady arrival) reports are not held.
 */
export class WriteGate {
  private busy = 0;
  private waiters: (() => void)[] = [];

  constructor(private readonly threshold: number) {
    if (!(threshold >= 1)) throw new RangeError(`threshold must be >= 1 (got ${threshold})`);
  }

  /** Scheduling writes counted now. */
  get writes(): number {
    return this.busy;
  }

  /** Counts one scheduling write until `work` settles. */
  hold(work: Promise<unknown>): void {
    this.busy++;
    const release = () => {
      this.busy--;
      if (this.busy < this.threshold) this.open();
    };
    work.then(release, release);
  }

  /** Resolves at once when fewer than `threshold` writes are counted, else when that is so. */
  whenOpen(): Promise<void> {
    if (this.busy < this.threshold) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Lets every waiting report go (e.g. at stop, so nothing waits forever). */
  open(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve();
  }
}
