// A discrete-event clock: timers fire in deadline order when the driver advances time.
import type { TimerPort } from '../core/ports.ts';
import type { InputEvent, PodTimerId } from '../events/types.ts';

interface Timer {
  id: number;
  deadline: number;
  fire: () => void;
  /** Background timers (periodic flush) do not keep a simulation alive. */
  background: boolean;
}

/** Virtual time in ms. Deterministic: equal deadlines fire in scheduling order. */
export class VirtualClock {
  private current = 0;
  private nextId = 1;
  private readonly heap: Timer[] = [];
  private readonly pending = new Map<number, Timer>();
  private foreground = 0;

  /** Current virtual time. */
  now(): number {
    return this.current;
  }

  /** Schedules `fire` at absolute time `deadline` (not before now). Returns a timer id. */
  schedule(deadline: number, fire: () => void, background = false): number {
    const timer = {
      id: this.nextId++,
      deadline: Math.max(deadline, this.current),
      fire,
      background,
    };
    this.heap.push(timer);
    this.pending.set(timer.id, timer);
    this.siftUp(this.heap.length - 1);
    if (!background) this.foreground++;
    return timer.id;
  }

  /** Cancels a timer that has not fired. */
  cancel(id: number): void {
    const timer = this.pending.get(id);
    if (timer === undefined) return;
    this.pending.delete(id);
    if (!timer.background) this.foreground--;
  }

  /** True while a non-background timer is pending. */
  hasForegroundTimers(): boolean {
    return this.foreground > 0;
  }

  /**
   * Moves time to the earliest pending timer and fires it. Returns false, firing nothing,
   * when no foreground timer is pending or the next one lies beyond `horizon`.
   */
  advance(horizon = Number.POSITIVE_INFINITY): boolean {
    while (this.foreground > 0) {
      const top = this.heap[0] as Timer;
      if (top.deadline > horizon) return false;
      this.pop();
      if (!this.pending.delete(top.id)) continue;
      if (!top.background) this.foreground--;
      this.current = top.deadline;
      top.fire();
      return true;
    }
    return false;
  }

  private before(a: Timer, b: Timer): boolean {
    return a.deadline !== b.deadline ? a.deadline < b.deadline : a.id < b.id;
  }

  private pop(): void {
    const last = this.heap.pop() as Timer;
    if (this.heap.length === 0) return;
    this.heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.heap.length && this.before(this.heap[l] as Timer, this.heap[m] as Timer)) m = l;
      if (r < this.heap.length && this.before(this.heap[r] as Timer, this.heap[m] as Timer)) m = r;
      if (m === i) return;
      [this.heap[i], this.heap[m]] = [this.heap[m] as Timer, this.heap[i] as Timer];
      i = m;
    }
  }

  private siftUp(start: number): void {
    let i = start;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(this.heap[i] as Timer, this.heap[p] as Timer)) return;
      [this.heap[i], this.heap[p]] = [this.heap[p] as Timer, this.heap[i] as Timer];
      i = p;
    }
  }
}

/**
 * The core's TimerPort on `clock`: a pod timer fires as TimerFired (keyed by pod and timer;
 * arming again replaces it), the flush as a background timer. Each firing goes to `fired`.
 */
export function virtualTimerPort(
  clock: VirtualClock,
  fired: (event: InputEvent) => void,
): TimerPort {
  const timerIds = new Map<string, number>();
  const timerKey = (uid: string, timer: PodTimerId) => `${timer} ${uid}`;
  return {
    armPod: (pod, timer, deadline) => {
      const k = timerKey(pod.uid, timer);
      const previous = timerIds.get(k);
      if (previous !== undefined) clock.cancel(previous);
      const ref = { uid: pod.uid, key: pod.key };
      const id = clock.schedule(deadline, () => {
        timerIds.delete(k);
        fired({ type: 'TimerFired', timer, ...ref });
      });
      timerIds.set(k, id);
    },
    disarmPod: (uid, timer) => {
      const k = timerKey(uid, timer);
      const id = timerIds.get(k);
      if (id !== undefined) clock.cancel(id);
      timerIds.delete(k);
    },
    armFlush: (deadline) => {
      clock.schedule(deadline, () => fired({ type: 'TimerFired', timer: 'flush' }), true);
    },
  };
}
