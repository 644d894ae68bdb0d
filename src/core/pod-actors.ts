// The live pod machines, keyed by uid, with their queue, pool and log-driven timers (and their snapshot).

import type { BackoffConfig } from '../../machines/backoff.ts';
import type { PodContext, PodEvent, PodStateName, podEffects } from '../../machines/pod.machine.ts';
import type { PodInfo } from '../cluster/types.ts';
import type { PodRef } from '../events/types.ts';
import { ActiveQueue } from '../queue/active-queue.ts';
import { UnschedulablePool } from '../queue/unschedulable-pool.ts';
import { type PodRunner, podRunner } from './core-machines.ts';
import type { MachineActor, MachineHooks } from './machine-runner.ts';
import type { TimerPort } from './ports.ts';
import { type MachineData, type PodActorsData, SnapshotError, type TimerData } from './snapshot.ts';

type PodActor = MachineActor<PodContext, PodEvent, PodStateName>;

/** What the actors need from the core around them. */
export interface PodActorsOptions {
  backoff: BackoffConfig;
  timers: TimerPort;
  /** The logical time of the event being applied. */
  now: () => number;
  /** The pod's current info, for queue order (priority). */
  podInfo: (uid: string) => PodInfo | undefined;
  /**
   * The queue time of a pod that belongs to a group (the group's first step), which its
   * members are queued by instead of their own: a group keeps its place in the queue.
   */
  groupQueueTime?: (uid: string) => number | undefined;
}

/**
 * Owns every in-flight pod's machine (the XState pod machine, run compiled by FlatMachine
 * or by XState's `transition()`, see machine-runner.ts; created when a pod needs scheduling, dropped when it is seen bound or deleted), the activeQ and the unschedulable pool the machines
 * drive through their named actions, and the backoff timers, which go out through the
 * TimerPort and come back as TimerFired events in the log.
 */
export class PodActors {
  readonly queue = new ActiveQueue();
  readonly parked = new UnschedulablePool();
  private readonly actors = new Map<string, PodActor>();
  /** Armed backoff timers' deadlines, by uid (the machine's `after` delay, on the log clock). */
  private readonly backoffTimers = new Map<string, number>();
  /** Armed permit timers' deadlines, by uid (the core arms them; kept here for the snapshot). */
  private readonly permitDeadlines = new Map<string, number>();
  private enqueued = 0;
  /** What runs the machines: chosen once, when these actors are made. */
  private readonly runner: PodRunner = podRunner();

  constructor(private readonly opts: PodActorsOptions) {}

  /** Runs the machine's effect action `name` for the pod of `context`. */
  private effect(name: string, context: PodContext, params: unknown): void {
    switch (name as (typeof podEffects)[number]) {
      case 'enqueue':
        // kube's QueuedPodInfo.Timestamp: when the pod entered the scheduling queue, which
        // for a pod that failed is the time of its last failure (it never left the queue).
        this.enqueue(
          context.uid,
          this.opts.groupQueueTime?.(context.uid) ??
            (context.attempts > 0 ? context.lastFailureAt : undefined),
        );
        break;
      case 'dequeue':
        this.queue.remove(context.uid);
        break;
      case 'park': {
        const plugins = (params as { plugins: readonly string[] }).plugins;
        this.parked.park(context.uid, this.opts.now(), plugins);
        break;
      }
      case 'unpark':
        this.parked.remove(context.uid);
        break;
    }
  }

  /** Number of pods with a live machine. */
  get size(): number {
    return this.actors.size;
  }

  /** True when pod `uid` has a live machine. */
  has(uid: string): boolean {
    return this.actors.has(uid);
  }

  /** The machine's state name and context of pod `uid`, if it has one. */
  inspect(
    uid: string,
  ): { state: PodStateName; attempt: number; reason: string | undefined; key: string } | undefined {
    const actor = this.actors.get(uid);
    if (actor === undefined) return undefined;
    const c = actor.context;
    return { state: actor.state, attempt: c.attempts, reason: c.reason, key: c.key };
  }

  /** Pod `uid`'s attempt number (0 before its first), if it has a machine. */
  attemptOf(uid: string): number | undefined {
    return this.actors.get(uid)?.context.attempts;
  }

  /** The machine state of pod `uid`, if it has a machine. */
  stateOf(uid: string): PodStateName | undefined {
    const actor = this.actors.get(uid);
    return actor?.state;
  }

  /** How many live machines are in each state (O(machines); for metrics scrapes). */
  stateCounts(): Map<PodStateName, number> {
    const counts = new Map<PodStateName, number>();
    for (const actor of this.actors.values()) {
      const state = actor.state;
      counts.set(state, (counts.get(state) ?? 0) + 1);
    }
    return counts;
  }

  /** Every live machine's uid, in creation order. */
  uids(): string[] {
    return [...this.actors.keys()];
  }

  /** Creates and starts the machine of a pod that needs scheduling. */
  spawn(pod: PodInfo): void {
    const input = { uid: pod.uid, key: pod.key, backoff: this.opts.backoff };
    const actor = this.runner.spawn(input, this.hooks);
    this.actors.set(pod.uid, actor);
    if (pod.schedulingGates.length > 0) actor.send({ type: 'GATED' });
  }

  /**
   * Sends `event` to pod `uid`'s machine (if any); stops and forgets it once it is done.
   * Returns true when the machine handled the event (took a transition), false when it
   * ignored it or the pod has no machine.
   */
  send(uid: string, event: PodEvent): boolean {
    const actor = this.actors.get(uid);
    if (actor === undefined) return false;
    const handled = actor.send(event);
    if (actor.done) {
      this.actors.delete(uid);
      this.queue.remove(uid);
      this.parked.remove(uid);
      if (this.backoffTimers.delete(uid)) this.opts.timers.disarmPod(uid, 'backoff');
      this.permitDeadlines.delete(uid);
      this.opts.timers.disarmPod(uid, 'permit');
    }
    return handled;
  }

  /** True when pod `uid` has a machine that would handle `event` now (XState's `can`). */
  can(uid: string, event: PodEvent): boolean {
    return this.actors.get(uid)?.can(event) ?? false;
  }

  /** Arms pod `pod.uid`'s permit timer at logical time `deadline` (it waits at Permit). */
  armPermit(pod: PodRef, deadline: number): void {
    this.permitDeadlines.set(pod.uid, deadline);
    this.opts.timers.armPod(pod, 'permit', deadline);
  }

  /** Disarms pod `uid`'s permit timer (Permit allowed it). */
  disarmPermit(uid: string): void {
    this.permitDeadlines.delete(uid);
    this.opts.timers.disarmPod(uid, 'permit');
  }

  /**
   * Pod `uid`'s permit timer fired at `now` (its TimerFired came through the log): it is no
   * longer armed, unless this firing is older than the timer armed now (due later).
   */
  permitFired(uid: string, now: number): void {
    const deadline = this.permitDeadlines.get(uid);
    if (deadline !== undefined && now >= deadline) this.permitDeadlines.delete(uid);
  }

  /** Re-orders a queued pod after its priority changed; keeps its queue time (as kube). */
  reorder(uid: string): void {
    const entry = this.queue.get(uid);
    const info = this.opts.podInfo(uid);
    if (entry === undefined || info === undefined) return;
    this.queue.push({ ...entry, priority: info.priority });
  }

  /** Fires pod `uid`'s backoff timer (its TimerFired came through the log). */
  fireBackoff(uid: string): void {
    const actor = this.actors.get(uid);
    if (actor === undefined || !this.backoffTimers.delete(uid)) return;
    actor.fireDelay();
  }

  /** Every machine, the activeQ, the pool and the armed pod timers, as plain data. */
  snapshot(): PodActorsData {
    const machines: MachineData[] = [];
    for (const actor of this.actors.values()) {
      const c = actor.context;
      machines.push({
        uid: c.uid,
        key: c.key,
        state: actor.state,
        attempts: c.attempts,
        lastFailureAt: c.lastFailureAt,
        node: c.node ?? null,
        reason: c.reason ?? null,
      });
    }
    const timers = (entries: Iterable<[string, number]>): TimerData[] =>
      Array.from(entries, ([uid, deadline]) => ({ uid, deadline }));
    return {
      machines,
      activeQ: this.queue.entries(),
      enqueued: this.enqueued,
      parked: Array.from(this.parked.entries(), ([uid, p]) => ({
        uid,
        at: p.at,
        plugins: [...p.plugins],
      })),
      backoffTimers: timers(this.backoffTimers),
      permitTimers: timers(this.permitDeadlines),
    };
  }

  /**
   * Takes back `snapshot()` output into these (empty) actors: machines are recreated in
   * their states without running entry actions, the queue and pool are refilled, and the
   * armed timers are armed again through the TimerPort at their deadlines. Throws
   * SnapshotError when the parts disagree (a queued pod whose machine is not pending, a
   * pod in backoff without its timer, ...), which would otherwise strand a pod.
   */
  load(data: PodActorsData): void {
    if (this.actors.size > 0) throw new SnapshotError('restore into pod actors already in use');
    for (const m of data.machines) this.restoreMachine(m);
    const stateOf = (uid: string) => this.stateOf(uid) ?? 'no machine';
    const expect = (uid: string, state: string, what: string) => {
      if (stateOf(uid) !== state)
        throw new SnapshotError(`${what} ${uid} has a machine in ${stateOf(uid)}, not ${state}`);
    };
    for (const e of data.activeQ) expect(e.key, 'pending', 'queued pod');
    this.queue.load(data.activeQ);
    this.enqueued = data.enqueued;
    for (const p of data.parked) {
      // Preempting pods are parked too (waiting for their victims).
      if (stateOf(p.uid) !== 'preempting') expect(p.uid, 'unschedulable', 'parked pod');
    }
    this.parked.load(data.parked.map((p) => [p.uid, { at: p.at, plugins: p.plugins }] as const));
    for (const t of data.backoffTimers) {
      expect(t.uid, 'backoff', 'backoff timer of');
      this.backoffTimers.set(t.uid, t.deadline);
    }
    for (const [uid, actor] of this.actors)
      if (actor.state === 'backoff' && !this.backoffTimers.has(uid))
        throw new SnapshotError(`pod ${uid} is in backoff without a backoff timer`);
    for (const t of data.permitTimers) {
      if (!this.actors.has(t.uid))
        throw new SnapshotError(`permit timer of ${t.uid}, which has no machine`);
      this.permitDeadlines.set(t.uid, t.deadline);
    }
    for (const [uid, deadline] of this.backoffTimers)
      this.opts.timers.armPod(this.refOf(uid), 'backoff', deadline);
    for (const [uid, deadline] of this.permitDeadlines)
      this.opts.timers.armPod(this.refOf(uid), 'permit', deadline);
  }

  private refOf(uid: string): PodRef {
    const key = this.actors.get(uid)?.context.key ?? uid;
    return { uid, key };
  }

  private restoreMachine(m: MachineData): void {
    const state = m.state;
    if (!this.runner.isLiveState(state))
      throw new SnapshotError(
        `machine ${m.uid} is in ${JSON.stringify(m.state)}, not a live state`,
      );
    if (this.actors.has(m.uid)) throw new SnapshotError(`machine ${m.uid} appears twice`);
    if (this.opts.podInfo(m.uid) === undefined)
      throw new SnapshotError(`machine ${m.uid} has no pod in the cluster state`);
    const context = this.savedContext(m);
    // A restored machine starts in its state without running entry actions (no re-enqueue, no timer).
    this.actors.set(m.uid, this.runner.restore(state, context, this.hooks));
  }

  /** The machine context `saved` in a snapshot: its attempts, failure, node and reason. */
  private savedContext(saved: MachineData): PodContext {
    return {
      uid: saved.uid,
      key: saved.key,
      attempts: saved.attempts,
      lastFailureAt: saved.lastFailureAt,
      node: saved.node ?? undefined,
      reason: saved.reason ?? undefined,
      backoff: this.opts.backoff,
    };
  }

  private enqueue(uid: string, queuedSince: number | undefined): void {
    const info = this.opts.podInfo(uid);
    if (info === undefined) return;
    this.enqueued += 1;
    this.queue.push({
      key: uid,
      priority: info.priority,
      enqueuedAt: queuedSince ?? this.opts.now(),
      order: this.enqueued,
    });
  }

  /**
   * Where every pod machine's effects go (the pod is the context's); a backoff delay is a
   * timer on the log clock. One object for all machines: nothing is made per pod.
   */
  private readonly hooks: MachineHooks<PodContext, PodEvent> = {
    effect: (name, context, _event, params) => this.effect(name, context, params),
    armDelay: (ms, context) => {
      const deadline = this.opts.now() + ms;
      this.backoffTimers.set(context.uid, deadline);
      this.opts.timers.armPod({ uid: context.uid, key: context.key }, 'backoff', deadline);
    },
    cancelDelay: (context) => {
      if (this.backoffTimers.delete(context.uid))
        this.opts.timers.disarmPod(context.uid, 'backoff');
    },
  };
}
