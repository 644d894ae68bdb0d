// The timers of a live run on the wall clock: pod timers and the periodic flush, each firing back as TimerFired.
import type { CommandHandler, TimerCommand } from '../core/commands.ts';
import type { InputEvent, PodTimerId } from '../events/types.ts';

/**
 * Carries out timer commands with real timers: a logical deadline becomes a delay from
 * `now()`; a fired timer goes to `fired` as TimerFired (unless `stopping()`). Pod timers
 * are keyed by (uid, timer): arming again replaces. `clear()` cancels every timer.
 */
export class WallTimers implements CommandHandler<TimerCommand> {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly now: () => number,
    private readonly fired: (event: InputEvent) => void,
    private readonly stopping: () => boolean,
  ) {}

  execute(c: TimerCommand): void {
    if (c.kind === 'armPodTimer') this.armPod(c.pod, c.timer, c.deadline);
    else if (c.kind === 'disarmPodTimer') this.disarmPod(c.uid, c.timer);
    else this.armFlush(c.deadline);
  }

  /** Cancels every armed timer (shutdown). */
  clear(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
  }

  private armPod(pod: { uid: string; key: string }, timer: PodTimerId, deadline: number): void {
    this.disarmPod(pod.uid, timer);
    const k = `${timer} ${pod.uid}`;
    const ref = { uid: pod.uid, key: pod.key };
    const delay = Math.max(0, deadline - this.now());
    const handle = setTimeout(() => {
      this.timers.delete(k);
      if (!this.stopping()) this.fired({ type: 'TimerFired', timer, ...ref });
    }, delay);
    this.timers.set(k, handle);
  }

  private disarmPod(uid: string, timer: PodTimerId): void {
    const k = `${timer} ${uid}`;
    const handle = this.timers.get(k);
    if (handle !== undefined) clearTimeout(handle);
    this.timers.delete(k);
  }

  private armFlush(deadline: number): void {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = setTimeout(
      () => {
        if (!this.stopping()) this.fired({ type: 'TimerFired', timer: 'flush' });
      },
      Math.max(0, deadline - this.now()),
    );
    this.flushTimer.unref();
  }
}
