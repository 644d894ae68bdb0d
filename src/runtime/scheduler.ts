// The Scheduler: folds the log into cluster state, drives pod machines and the queue, decides.
import { type Actor, type ActorOptions, createActor } from 'xstate';
import type { PodEvent, PodMachine } from '../../machines/pod.machine.ts';
import { podMachine } from '../../machines/pod.machine.ts';
import { podKeyOfObject } from '../cluster/pod-info.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import type { Charge, ClusterState, PodInfo } from '../cluster/types.ts';
import { decisionText } from '../events/digest.ts';
import type { BerthEvent, DecisionEvent, Envelope, InputEvent } from '../events/types.ts';
import { type SchedulingContext, scheduleOne } from '../framework/cycle.ts';
import { seededRng } from '../framework/rng.ts';
import type { Profile } from '../framework/types.ts';
import { defaultProfile } from '../plugins/registry.ts';
import { ActiveQueue } from '../queue/active-queue.ts';
import { couldHelpParkedPods, nodeFacts, nodeUpdateCouldHelp } from '../queue/requeue.ts';
import { UnschedulablePool } from '../queue/unschedulable-pool.ts';
import type { BerthConfig } from './config.ts';

/** Arms timers on whatever clock drives this run; a fired timer comes back as TimerFired. */
export interface TimerPort {
  /** Arms the backoff timer of pod `key` (or the flush timer when `key` is undefined). */
  arm(timer: 'backoff' | 'flush', key: string | undefined, deadline: number): void;
  /** Disarms the backoff timer of pod `key`. */
  disarm(key: string): void;
}

/**
 * Where commands go. A bind's result must come back through `Scheduler.ingest` as
 * BindSucceeded/BindFailed. The reports are fire-and-forget: they inform people and
 * other controllers (pod condition, Events) and never influence a decision.
 */
export interface EffectPort {
  bind(key: string, node: string): void;
  /** No node fits `key`: set PodScheduled=False/Unschedulable and emit FailedScheduling. */
  reportUnschedulable?(key: string, message: string): void;
  /** `key` was bound to `node`: emit the Scheduled event. */
  reportScheduled?(key: string, node: string): void;
}

/** A command for the effect adapter, queued during a dispatch and sent after it. */
type Command =
  | { kind: 'bind'; key: string; node: string }
  | { kind: 'unschedulable'; key: string; message: string }
  | { kind: 'scheduled'; key: string; node: string };

/** What a Scheduler is built with. */
export interface SchedulerOptions {
  config: BerthConfig;
  seed: number;
  timers: TimerPort;
  effects: EffectPort;
  /** Called with every envelope, in log order, before it is applied (recorder, summaries). */
  onEnvelope?: (env: Envelope) => void;
  /** Called after an envelope has been fully applied (tests check invariants here). */
  onApplied?: (env: Envelope, state: ClusterState) => void;
  profile?: Profile;
}

type PodActor = Actor<PodMachine>;
type Clock = NonNullable<ActorOptions<PodMachine>['clock']>;

interface PendingTimer {
  fire: () => void;
}

/** A decision made during replay that differs from the recorded one. */
export interface Divergence {
  seq: number;
  expected: string;
  actual: string;
}

/**
 * The event-sourced core of berth. Every input goes through `ingest` (live) or
 * `applyInput` (replay); every decision is made by `runCycle` (live) or
 * `replayDecision` (replay). Nothing else changes state, so a recorded log replays
 * to the same decisions.
 */
export class Scheduler {
  readonly state: ClusterState = initialState();
  private readonly queue = new ActiveQueue();
  private readonly parked = new UnschedulablePool();
  private readonly actors = new Map<string, PodActor>();
  private readonly timers = new Map<string, PendingTimer>();
  private readonly outbox: Command[] = [];
  private readonly ctx: SchedulingContext;
  private readonly machine: PodMachine;
  private seq = 0;
  private now = 0;

  constructor(private readonly opts: SchedulerOptions) {
    this.ctx = {
      profile: opts.profile ?? defaultProfile(),
      rng: seededRng(opts.seed),
      cursor: { next: 0 },
      percentageOfNodesToScore: opts.config.percentageOfNodesToScore,
    };
    this.machine = this.provideEffects();
  }

  /** Number of pods waiting in the activeQ. */
  get activeCount(): number {
    return this.queue.size;
  }

  /** Number of pods with a live machine (in flight). */
  get inFlightCount(): number {
    return this.actors.size;
  }

  /** Arms the periodic flush of the unschedulable pool, starting from logical time `now`. */
  startFlushTimer(now: number): void {
    this.opts.timers.arm('flush', undefined, now + this.opts.config.flushIntervalMs);
  }

  /** Live input: stamps the event with the next seq and logical time `time`, then applies it. */
  ingest(event: InputEvent, time: number): void {
    this.applyInput({ seq: this.seq + 1, time, event });
  }

  /** Applies a stamped input event (live or replayed). */
  applyInput(env: Envelope<InputEvent>): void {
    this.seq = env.seq;
    this.now = env.time;
    this.opts.onEnvelope?.(env);
    const nodeName = env.event.type === 'NodeUpserted' ? nodeNameOf(env.event.node) : undefined;
    const before = nodeName === undefined ? undefined : nodeFacts(this.state.nodes.get(nodeName));
    const change = this.chargeChange(env.event, () => evolve(this.state, env));
    const nodeChanged =
      nodeName !== undefined && nodeUpdateCouldHelp(before, this.state.nodes.get(nodeName));
    this.route(env.event);
    if (this.parked.size > 0 && couldHelpParkedPods(env.event, change, nodeChanged)) {
      this.requeueParked(this.parked.keys());
    }
    this.opts.onApplied?.(env, this.state);
    this.flushOutbox();
  }

  /**
   * Live decision: runs one scheduling cycle for the next pod in the activeQ at logical
   * time `time`, records and applies the decision. Returns undefined when the queue is empty.
   */
  runCycle(time: number): DecisionEvent | undefined {
    const decision = this.decide();
    if (decision === undefined) return undefined;
    this.applyDecision({ seq: this.seq + 1, time, event: decision });
    return decision;
  }

  /**
   * Replay: runs the cycle the log says happened at `env` and compares the outcome with
   * the recorded decision. Returns the divergence, or undefined when they agree.
   */
  replayDecision(env: Envelope<DecisionEvent>): Divergence | undefined {
    this.now = env.time;
    const decision = this.decide();
    const expected = decisionText(env.event);
    const actual = decision === undefined ? '(no pod to schedule)' : decisionText(decision);
    if (decision === undefined || actual !== expected) return { seq: env.seq, expected, actual };
    this.applyDecision(env);
    return undefined;
  }

  /** Why each in-flight pod is not bound yet (pods that are pending, parked or backing off). */
  pendingReasons(): Map<string, string> {
    const reasons = new Map<string, string>();
    for (const [key, actor] of this.actors) {
      const snapshot = actor.getSnapshot();
      const reason =
        snapshot.context.reason ?? `waiting to be scheduled (${String(snapshot.value)})`;
      reasons.set(key, reason);
    }
    return reasons;
  }

  /** The state name of pod `key`'s machine, or undefined when it has none. */
  machineState(key: string): string | undefined {
    const actor = this.actors.get(key);
    return actor === undefined ? undefined : String(actor.getSnapshot().value);
  }

  private decide(): DecisionEvent | undefined {
    for (let next = this.queue.pop(); next !== undefined; next = this.queue.pop()) {
      const actor = this.actors.get(next.key);
      const record = this.state.pods.get(next.key);
      if (actor === undefined || record === undefined) continue;
      actor.send({ type: 'SCHEDULE' });
      const result = scheduleOne(record.info, this.state, this.ctx);
      return result.kind === 'Scheduled'
        ? { type: 'PodAssumed', key: next.key, node: result.node }
        : { type: 'PodUnschedulable', key: next.key, message: result.message };
    }
    return undefined;
  }

  private applyDecision(env: Envelope<DecisionEvent>): void {
    this.seq = env.seq;
    this.now = env.time;
    this.opts.onEnvelope?.(env);
    evolve(this.state, env);
    const event = env.event;
    if (event.type === 'PodAssumed') {
      this.send(event.key, { type: 'ASSUMED', node: event.node });
    } else {
      this.send(event.key, { type: 'UNSCHEDULABLE', message: event.message, now: this.now });
      this.outbox.push({ kind: 'unschedulable', key: event.key, message: event.message });
    }
    this.opts.onApplied?.(env, this.state);
    this.flushOutbox();
  }

  private chargeChange(event: BerthEvent, apply: () => void) {
    const key = podKeyOf(event);
    const before = key === undefined ? undefined : this.state.pods.get(key)?.charge;
    apply();
    const after: Charge | undefined =
      key === undefined ? undefined : this.state.pods.get(key)?.charge;
    return { before, after };
  }

  private route(event: InputEvent): void {
    switch (event.type) {
      case 'PodUpserted': {
        const key = podKeyOf(event);
        const record = key === undefined ? undefined : this.state.pods.get(key);
        if (record !== undefined) this.onPodChanged(record.info);
        return;
      }
      case 'PodDeleted':
        this.send(event.key, { type: 'DELETED' });
        return;
      case 'ResyncDone':
        if (event.kind === 'Pod') {
          for (const key of [...this.actors.keys()]) {
            if (!this.state.pods.has(key)) this.send(key, { type: 'DELETED' });
          }
        }
        return;
      case 'BindSucceeded':
        // Reported even when the watch already showed the pod bound and its machine ended.
        this.outbox.push({ kind: 'scheduled', key: event.key, node: event.node });
        this.send(event.key, { type: 'BIND_SUCCEEDED' });
        return;
      case 'BindFailed':
        this.send(event.key, { type: 'BIND_FAILED', message: event.message, now: this.now });
        return;
      case 'TimerFired':
        this.onTimer(event.timer, event.key);
        return;
      case 'NodeUpserted':
      case 'NodeDeleted':
      case 'ResyncStarted':
        return;
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private onPodChanged(pod: PodInfo): void {
    if (pod.schedulerName !== this.opts.config.schedulerName) return;
    const actor = this.actors.get(pod.key);
    if (pod.nodeName !== undefined) {
      this.send(pod.key, { type: 'BOUND', node: pod.nodeName });
      return;
    }
    if (pod.terminating || pod.phase === 'Succeeded' || pod.phase === 'Failed') {
      this.send(pod.key, { type: 'DELETED' });
      return;
    }
    if (actor === undefined) {
      this.spawn(pod.key);
      return;
    }
    // The pod's own spec changed: re-order it if queued, retry it if parked (kube does both).
    if (this.queue.has(pod.key)) this.enqueue(pod.key);
    else if (this.parked.has(pod.key)) this.send(pod.key, { type: 'REQUEUE', now: this.now });
  }

  private onTimer(timer: 'backoff' | 'flush', key: string | undefined): void {
    if (timer === 'flush') {
      this.requeueParked(this.parked.parkedLongerThan(this.now, this.opts.config.maxParkedMs));
      this.startFlushTimer(this.now);
      return;
    }
    if (key === undefined) return;
    const pending = this.timers.get(key);
    if (pending === undefined) return;
    this.timers.delete(key);
    pending.fire();
  }

  private requeueParked(keys: string[]): void {
    for (const key of keys) this.send(key, { type: 'REQUEUE', now: this.now });
  }

  private send(key: string, event: PodEvent): void {
    const actor = this.actors.get(key);
    if (actor === undefined) return;
    actor.send(event);
    if (actor.getSnapshot().status !== 'active') {
      actor.stop();
      this.actors.delete(key);
      this.queue.remove(key);
      this.parked.remove(key);
      if (this.timers.delete(key)) this.opts.timers.disarm(key);
    }
  }

  private spawn(key: string): void {
    const actor = createActor(this.machine, {
      input: { key, backoff: this.opts.config.backoff },
      clock: this.clockFor(key),
    });
    this.actors.set(key, actor);
    actor.start();
  }

  private enqueue(key: string): void {
    const record = this.state.pods.get(key);
    if (record === undefined) return;
    const { priority, creationMs } = record.info;
    this.queue.push({ key, priority, creationMs });
  }

  /** A per-pod XState clock whose timeouts are log events, so replay fires them in place. */
  private clockFor(key: string): Clock {
    let nextId = 0;
    let current = -1;
    return {
      setTimeout: (fire: () => void, ms: number) => {
        current = ++nextId;
        this.timers.set(key, { fire });
        this.opts.timers.arm('backoff', key, this.now + ms);
        return current;
      },
      clearTimeout: (id: unknown) => {
        if (id !== current) return;
        if (this.timers.delete(key)) this.opts.timers.disarm(key);
      },
    };
  }

  private provideEffects(): PodMachine {
    return podMachine.provide({
      actions: {
        enqueue: ({ context }) => this.enqueue(context.key),
        dequeue: ({ context }) => void this.queue.remove(context.key),
        park: ({ context }) => this.parked.park(context.key, this.now),
        unpark: ({ context }) => void this.parked.remove(context.key),
        requestBind: ({ context }) => {
          if (context.node !== undefined)
            this.outbox.push({ kind: 'bind', key: context.key, node: context.node });
        },
      },
    });
  }

  private flushOutbox(): void {
    if (this.outbox.length === 0) return;
    const commands = this.outbox.splice(0);
    const effects = this.opts.effects;
    for (const c of commands) {
      if (c.kind === 'bind') effects.bind(c.key, c.node);
      else if (c.kind === 'unschedulable') effects.reportUnschedulable?.(c.key, c.message);
      else effects.reportScheduled?.(c.key, c.node);
    }
  }
}

function podKeyOf(event: BerthEvent): string | undefined {
  switch (event.type) {
    case 'PodUpserted':
      return podKeyOfObject(event.pod);
    case 'PodDeleted':
    case 'BindSucceeded':
    case 'BindFailed':
    case 'PodAssumed':
    case 'PodUnschedulable':
      return event.key;
    default:
      return undefined;
  }
}

function nodeNameOf(node: unknown): string | undefined {
  const meta = (node as { metadata?: { name?: unknown } } | undefined)?.metadata;
  return typeof meta?.name === 'string' ? meta.name : undefined;
}
