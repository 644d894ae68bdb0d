// The reflector's timing: a jittered doubling backoff, and one-shot timer slots that replace their timer.
import type { Timers } from './reflector-options.ts';

/**
 * A reconnect backoff: each delay is the current base with ±25 % jitter (so that many
 * reflectors, or berths, do not reconnect in lockstep); the base doubles from `initialMs`
 * up to `maxMs` and goes back to `initialMs` on `reset()`.
 */
export class Backoff {
  private baseMs: number;

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly random: () => number,
  ) {
    this.baseMs = initialMs;
  }

  /** The next delay (ms); doubles the base for the one after. */
  next(): number {
    const base = this.baseMs;
    this.baseMs = Math.min(this.maxMs, base * 2);
    return Math.round(base * (0.75 + 0.5 * this.random()));
  }

  /** Starts again from `initialMs` (the connection proved healthy). */
  reset(): void {
    this.baseMs = this.initialMs;
  }
}

/** At most one pending timer: setting it again replaces the pending one. */
export class TimerSlot {
  private handle: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly timers: Timers) {}

  /** Runs `fire` after `ms`, replacing whatever was pending. */
  set(ms: number, fire: () => void): void {
    this.clear();
    this.handle = this.timers.setTimeout(() => {
      this.handle = undefined;
      fire();
    }, ms);
  }

  /** Cancels the pending timer, if any. */
  clear(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }
}
