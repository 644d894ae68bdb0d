// A discrete-event clock: timers fire in deadline order when the driver advances time.
import type { CommandHandler, TimerCommand } from '../core/commands.ts';
import type { InputEvent, PodRef, PodTimerId } from '../events/types.ts';

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
 * Carries out timer commands on `clock`: a pod timer fires as TimerFired (keyed by pod and
 * timer; arming again replaces it), the flush as a background timer (it does not keep a
 * simulation alive). Each firing goes to `fired`.
 */
export class VirtualTimers implements CommandHandler<TimerCommand> {
  /** The clock's id of each armed pod timer, by `<timer> <uid>`. */
  private readonly timerIds = new Map<string, number>();

  constructor(
    private readonly clock: VirtualClock,
    private readonly fired: (event: InputEvent) => void,
  ) {}

  /** Arms or disarms the timer the command names. */
  execute(command: TimerCommand): void {
    if (command.kind === 'armPodTimer') this.armPod(command.pod, command.timer, command.deadline);
    else if (command.kind === 'disarmPodTimer') this.disarmPod(command.uid, command.timer);
    else
      this.clock.schedule(
        command.deadline,
        () => this.fired({ type: 'TimerFired', timer: 'flush' }),
        true,
      );
  }

  private armPod(pod: PodRef, timer: PodTimerId, deadline: number): void {
    const k = timerKey(pod.uid, timer);
    const previous = this.timerIds.get(k);
    if (previous !== undefined) this.clock.cancel(previous);
    const ref = { uid: pod.uid, key: pod.key };
    const id = this.clock.schedule(deadline, () => {
      this.timerIds.delete(k);
      this.fired({ type: 'TimerFired', timer, ...ref });
    });
    this.timerIds.set(k, id);
  }

  private disarmPod(uid: string, timer: PodTimerId): void {
    const k = timerKey(uid, timer);
    const id = this.timerIds.get(k);
    if (id !== undefined) this.clock.cancel(id);
    this.timerIds.delete(k);
  }
}

function timerKey(uid: string, timer: PodTimerId): string {
  return `${timer} ${uid}`;
}
