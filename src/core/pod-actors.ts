// The live pod machines, keyed by uid, with their queue, pool and log-driven clocks (and their snapshot).
import { type Actor, type ActorOptions, createActor } from 'xstate';
import type { PodEvent, PodMachine } from '../../machines/pod.machine.ts';
import { podMachine } from '../../machines/pod.machine.ts';
import type { PodInfo } from '../cluster/types.ts';
import type { PodRef } from '../events/types.ts';
import { ActiveQueue } from '../queue/active-queue.ts';
import type { BackoffConfig } from '../queue/backoff.ts';
import { UnschedulablePool } from '../queue/unschedulable-pool.ts';
import type { TimerPort } from './ports.ts';
import { type MachineData, type PodActorsData, SnapshotError, type TimerData } from './snapshot.ts';

type PodActor = Actor<PodMachine>;
type Clock = NonNullable<ActorOptions<PodMachine>['clock']>;

/** An armed backoff timer: what its firing runs (XState's delayed transition) and when it is due. */
interface BackoffTimer {
  fire: () => void;
  deadline: number;
}

/** The state a restored machine may be in: every non-final state of the pod machine. */
const restorableStates: ReadonlySet<string> = new Set(
  Object.entries(podMachine.states)
    .filter(([, node]) => node.type !== 'final')
    .map(([name]) => name),
);

/** The event XState raises when the backoff delay ends (`after: { backoff }` of `pod.backoff`). */
const backoffDoneEvent = (() => {
  const after = podMachine.getStateNodeById('pod.backoff').after;
  if (after.length !== 1) throw new Error('the backoff state must have exactly one delay');
  return { type: after[0]?.eventType } as unknown as PodEvent;
})();

/** What the actors need from the core around them. */
export interface PodActorsOptions {
  backoff: BackoffConfig;
  timers: TimerPort;
  /** The logical time of the event being applied. */
  now: () => number;
  /** The pod's current info, for queue order (priority). */
  podInfo: (uid: string) => PodInfo | undefined;
}

/**
 * Owns every in-flight pod's XState actor (created when a pod needs scheduling, stopped
 * when it is seen bound or deleted), the activeQ and the unschedulable pool the machines
 * drive through their named actions, and the backoff timers, which go out through the
 * TimerPort and come back as TimerFired events in the log.
 */
export class PodActors {
  readonly queue = new ActiveQueue();
  readonly parked = new UnschedulablePool();
  private readonly actors = new Map<string, PodActor>();
  private readonly backoffTimers = new Map<string, BackoffTimer>();
  /** Armed permit timers' deadlines, by uid (the core arms them; kept here for the snapshot). */
  private readonly permitDeadlines = new Map<string, number>();
  private readonly machine: PodMachine;
  private enqueued = 0;

  constructor(private readonly opts: PodActorsOptions) {
    this.machine = podMachine.provide({
      actions: {
        // kube's QueuedPodInfo.Timestamp: when the pod entered the scheduling queue, which
        // for a pod that failed is the time of its last failure (it never left the queue).
        enqueue: ({ context }) =>
          this.enqueue(context.uid, context.attempts > 0 ? context.lastFailureAt : undefined),
        dequeue: ({ context }) => void this.queue.remove(context.uid),
        park: ({ context }, params) => this.parked.park(context.uid, opts.now(), params.plugins),
        unpark: ({ context }) => void this.parked.remove(context.uid),
      },
    });
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
  ): { state: string; attempt: number; reason: string | undefined; key: string } | undefined {
    const actor = this.actors.get(uid);
    if (actor === undefined) return undefined;
    const snap = actor.getSnapshot();
    return {
      state: String(snap.value),
      attempt: snap.context.attempts,
      reason: snap.context.reason,
      key: snap.context.key,
    };
  }

  /** The machine state of pod `uid`, if it has a machine. */
  stateOf(uid: string): string | undefined {
    const actor = this.actors.get(uid);
    return actor === undefined ? undefined : String(actor.getSnapshot().value);
  }

  /** How many live machines are in each state (O(machines); for metrics scrapes). */
  stateCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const actor of this.actors.values()) {
      const state = String(actor.getSnapshot().value);
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
    const actor = createActor(this.machine, {
      input: { uid: pod.uid, key: pod.key, backoff: this.opts.backoff },
      clock: this.clockFor(pod),
    });
    this.actors.set(pod.uid, actor);
    actor.start();
    if (pod.schedulingGates.length > 0) actor.send({ type: 'GATED' });
  }

  /** Sends `event` to pod `uid`'s machine (if any); stops and forgets it once it is done. */
  send(uid: string, event: PodEvent): void {
    const actor = this.actors.get(uid);
    if (actor === undefined) return;
    actor.send(event);
    if (actor.getSnapshot().status !== 'active') {
      actor.stop();
      this.actors.delete(uid);
      this.queue.remove(uid);
      this.parked.remove(uid);
      if (this.backoffTimers.delete(uid)) this.opts.timers.disarmPod(uid, 'backoff');
      this.permitDeadlines.delete(uid);
      this.opts.timers.disarmPod(uid, 'permit');
    }
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
    const timer = this.backoffTimers.get(uid);
    if (timer === undefined) return;
    this.backoffTimers.delete(uid);
    timer.fire();
  }

  /** Every machine, the activeQ, the pool and the armed pod timers, as plain data. */
  snapshot(): PodActorsData {
    const machines: MachineData[] = [];
    for (const actor of this.actors.values()) {
      const snap = actor.getSnapshot();
      const c = snap.context;
      machines.push({
        uid: c.uid,
        key: c.key,
        state: String(snap.value),
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
      backoffTimers: timers(Array.from(this.backoffTimers, ([uid, t]) => [uid, t.deadline])),
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
    for (const p of data.parked) expect(p.uid, 'unschedulable', 'parked pod');
    this.parked.load(data.parked.map((p) => [p.uid, { at: p.at, plugins: p.plugins }] as const));
    for (const t of data.backoffTimers) {
      expect(t.uid, 'backoff', 'backoff timer of');
      const actor = this.actors.get(t.uid) as PodActor;
      this.backoffTimers.set(t.uid, {
        fire: () => actor.send(backoffDoneEvent),
        deadline: t.deadline,
      });
    }
    for (const [uid, actor] of this.actors)
      if (actor.getSnapshot().value === 'backoff' && !this.backoffTimers.has(uid))
        throw new SnapshotError(`pod ${uid} is in backoff without a backoff timer`);
    for (const t of data.permitTimers) {
      if (!this.actors.has(t.uid))
        throw new SnapshotError(`permit timer of ${t.uid}, which has no machine`);
      this.permitDeadlines.set(t.uid, t.deadline);
    }
    for (const [uid, t] of this.backoffTimers)
      this.opts.timers.armPod(this.refOf(uid), 'backoff', t.deadline);
    for (const [uid, deadline] of this.permitDeadlines)
      this.opts.timers.armPod(this.refOf(uid), 'permit', deadline);
  }

  private refOf(uid: string): PodRef {
    const key = this.actors.get(uid)?.getSnapshot().context.key ?? uid;
    return { uid, key };
  }

  private restoreMachine(m: MachineData): void {
    if (!restorableStates.has(m.state))
      throw new SnapshotError(
        `machine ${m.uid} is in ${JSON.stringify(m.state)}, not a live state`,
      );
    if (this.actors.has(m.uid)) throw new SnapshotError(`machine ${m.uid} appears twice`);
    if (this.opts.podInfo(m.uid) === undefined)
      throw new SnapshotError(`machine ${m.uid} has no pod in the cluster state`);
    const snapshot = this.machine.resolveState({
      value: m.state,
      context: {
        uid: m.uid,
        key: m.key,
        attempts: m.attempts,
        lastFailureAt: m.lastFailureAt,
        node: m.node ?? undefined,
        reason: m.reason ?? undefined,
        backoff: this.opts.backoff,
      },
    });
    // A restored actor starts in its state without running entry actions (no re-enqueue, no timer).
    const actor = createActor(this.machine, {
      snapshot,
      input: { uid: m.uid, key: m.key, backoff: this.opts.backoff },
      clock: this.clockFor(m),
    });
    this.actors.set(m.uid, actor);
    actor.start();
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

  /** A per-pod XState clock whose timeouts are log events, so replay fires them in place. */
  private clockFor(pod: PodRef): Clock {
    const ref: PodRef = { uid: pod.uid, key: pod.key };
    let nextId = 0;
    let current = -1;
    return {
      setTimeout: (fire: () => void, ms: number) => {
        current = ++nextId;
        const deadline = this.opts.now() + ms;
        this.backoffTimers.set(ref.uid, { fire, deadline });
        this.opts.timers.armPod(ref, 'backoff', deadline);
        return current;
      },
      clearTimeout: (id: unknown) => {
        if (id !== current) return;
        if (this.backoffTimers.delete(ref.uid)) this.opts.timers.disarmPod(ref.uid, 'backoff');
      },
    };
  }
}
