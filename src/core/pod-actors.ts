// The live pod machines, keyed by uid, with their queue, pool and log-driven clocks.
import { type Actor, type ActorOptions, createActor } from 'xstate';
import type { PodEvent, PodMachine } from '../../machines/pod.machine.ts';
import { podMachine } from '../../machines/pod.machine.ts';
import type { PodInfo } from '../cluster/types.ts';
import type { PodRef } from '../events/types.ts';
import { ActiveQueue } from '../queue/active-queue.ts';
import type { BackoffConfig } from '../queue/backoff.ts';
import { UnschedulablePool } from '../queue/unschedulable-pool.ts';
import type { TimerPort } from './ports.ts';

type PodActor = Actor<PodMachine>;
type Clock = NonNullable<ActorOptions<PodMachine>['clock']>;

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
  private readonly backoffTimers = new Map<string, () => void>();
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
      this.opts.timers.disarmPod(uid, 'permit');
    }
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
    const fire = this.backoffTimers.get(uid);
    if (fire === undefined) return;
    this.backoffTimers.delete(uid);
    fire();
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
        this.backoffTimers.set(ref.uid, fire);
        this.opts.timers.armPod(ref, 'backoff', this.opts.now() + ms);
        return current;
      },
      clearTimeout: (id: unknown) => {
        if (id !== current) return;
        if (this.backoffTimers.delete(ref.uid)) this.opts.timers.disarmPod(ref.uid, 'backoff');
      },
    };
  }
}
