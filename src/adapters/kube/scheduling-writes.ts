// The scheduling writes in flight (binds, preemptions, nominations), shared by the binder and the reports.
import type { Logger } from 'pino';
import { describeApiError } from './api-error.ts';
import { WriteGate } from './write-gate.ts';

/**
 * Tracks every scheduling write from when it is issued until it settles: `idle()` waits for
 * them (a drain never waits for reports), and `gate` holds reports back while `yieldAt` or
 * more are in flight or waiting for a token (never by default: reports go beside binds).
 */
export class SchedulingWrites {
  /** Reports wait here; every tracked write holds it until it settles. */
  readonly gate: WriteGate;
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly log: Logger,
    yieldAt = Number.POSITIVE_INFINITY,
  ) {
    this.gate = new WriteGate(yieldAt);
  }

  /** Writes in flight or waiting for a token. */
  get size(): number {
    return this.writes.size;
  }

  /** Keeps `work` until it settles (a rejection is logged as unexpected, never rethrown). */
  track(what: string, work: Promise<void>): void {
    const settled = work.catch((err) => {
      this.log.error({ err: describeApiError(err).message }, `unexpected failure in a ${what}`);
    });
    this.writes.add(settled);
    this.gate.hold(settled);
    void settled.finally(() => this.writes.delete(settled));
  }

  /** Resolves when every write tracked so far, and any tracked meanwhile, has settled. */
  async idle(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }
}
