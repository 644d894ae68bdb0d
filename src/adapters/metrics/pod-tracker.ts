// Follows berth's own unbound pods through the log to derive kube's queue and attempt metrics.

import { isRecord, nonEmptyString } from '../../cluster/fields.ts';
import { parseSchedulingGates } from '../../cluster/pod-fields.ts';
import { DEFAULT_SCHEDULER_NAME } from '../../cluster/pod-info.ts';
import type { DecisionEvent, Envelope } from '../../events/types.ts';
import { podKey } from '../../model/keys.ts';
import { isTerminal } from '../../model/phase.ts';
import type { AttemptResult, QueueName } from './kube-instruments.ts';

/** kube-scheduler's event labels for `scheduler_queue_incoming_pods_total{event}`. */
export const incomingEvents = Object.freeze({
  /** A new unscheduled pod (kube's EventUnscheduledPodAdd label). */
  podAdd: 'UnschedulablePodAdd',
  /** Its last scheduling gate was removed. */
  gatesEliminated: 'UnschedulablePodUpdatePodSchedulingGatesEliminated',
  /** An attempt failed (unschedulable, error, bind failure, released reservation). */
  attemptFailure: 'ScheduleAttemptFailure',
  /** Its backoff ran out. */
  backoffComplete: 'BackoffComplete',
});

/** Where the tracker reports what it derived. */
export interface PodTrackerSink {
  /** A pod entered `queue` because of `event`. */
  incoming(queue: QueueName, event: string): void;
  /** A scheduling attempt ended with `result` after `seconds` (cycle plus binding). */
  attempt(result: AttemptResult, seconds: number): void;
  /** A pod was bound on attempt `attempts`, `sliSeconds` after it first entered the activeQ. */
  scheduled(attempts: number, sliSeconds: number | undefined): void;
}

/** The binding cycle of a reserved attempt, until its bind result. */
interface Binding {
  attempt: number;
  /** Log time of the reservation (ms). */
  reservedAt: number;
  /** How long the scheduling cycle that reserved it took. */
  cycleSeconds: number;
}

interface TrackedPod {
  key: string;
  /** Unbound, alive and not finished: the core still has to schedule it. */
  unbound: boolean;
  gated: boolean;
  /** Log time it first entered the activeQ (kube's InitialAttemptTimestamp), ms. */
  firstQueuedAt: number | undefined;
  binding: Binding | undefined;
}

interface PodFacts {
  uid: string;
  key: string;
  schedulerName: string;
  /** No node yet, not terminating, not finished: the core keeps it in its queues. */
  unbound: boolean;
  gated: boolean;
}

/** The few fields the queue rules read, parsed with the core's defaults. Never throws. */
function podFacts(obj: unknown): PodFacts | undefined {
  if (!isRecord(obj) || !isRecord(obj.metadata)) return undefined;
  const meta = obj.metadata;
  const name = nonEmptyString(meta.name);
  if (name === undefined) return undefined;
  const key = podKey(nonEmptyString(meta.namespace) ?? 'default', name);
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const phase = isRecord(obj.status) ? obj.status.phase : undefined;
  const deletion = meta.deletionTimestamp;
  const terminating = deletion !== undefined && deletion !== null && deletion !== '';
  return {
    uid: nonEmptyString(meta.uid) ?? key,
    key,
    schedulerName: nonEmptyString(spec.schedulerName) ?? DEFAULT_SCHEDULER_NAME,
    unbound: nonEmptyString(spec.nodeName) === undefined && !terminating && !isTerminal(phase),
    gated: parseSchedulingGates(spec.schedulingGates).length > 0,
  };
}

/**
 * Tracks the pods of one scheduler name from the moment they are seen unbound until they are
 * bound by berth, bound elsewhere, finished or deleted; a pod whose bind is in flight stays
 * until the bind result. Memory is bounded by the pods in flight, never by all pods seen.
 *
 * What it derives (and only that: moves the core makes on cluster events via queueing hints,
 * and flushes of the unschedulable pool, are not in the log and are not counted):
 * - a new unbound pod → `active` (or `unschedulable` when gated, as kube), UnschedulablePodAdd;
 * - its last gate removed → `active`; PodUnschedulable → `unschedulable`, and so does
 *   PodNominated (kube's preemptor is an unschedulable attempt, parked like one); CycleFailed,
 *   BindFailed and PodUnreserved → `backoff` (berth's machine goes there); a backoff timer
 *   firing → `active`, BackoffComplete;
 * - an attempt's result: unschedulable or error at the end of its cycle; a reserved attempt
 *   when its binding ends (BindSucceeded → scheduled, BindFailed → error, PodUnreserved →
 *   unschedulable), as kube records it after the binding cycle.
 */
export class PodTracker {
  private readonly pods = new Map<string, TrackedPod>();
  private readonly uidByKey = new Map<string, string>();
  private relisted: Set<string> | undefined;

  constructor(
    private readonly schedulerName: string,
    private readonly sink: PodTrackerSink,
  ) {}

  /** How many pods (and keys) are tracked. */
  get size(): { pods: number; keys: number } {
    return { pods: this.pods.size, keys: this.uidByKey.size };
  }

  /** Applies one log entry. Never throws on a malformed object. */
  envelope(env: Envelope): void {
    const { event, time } = env;
    switch (event.type) {
      case 'PodUpserted':
        this.upsert(event.pod, time);
        return;
      case 'PodDeleted':
        this.forget(event.uid);
        return;
      case 'ResyncStarted':
        if (event.kind === 'Pod') this.relisted = new Set();
        return;
      case 'ResyncDone':
        if (event.kind === 'Pod') this.endRelist();
        return;
      case 'BindSucceeded':
      case 'BindFailed':
      case 'PodUnreserved':
        this.endBinding(event, time);
        return;
      case 'TimerFired':
        if (event.timer === 'backoff' && this.pods.get(event.uid)?.unbound === true)
          this.sink.incoming('active', incomingEvents.backoffComplete);
        return;
      case 'PodReserved':
        this.reserve(event, time, undefined);
        return;
      case 'PodUnschedulable':
      case 'PodNominated':
        this.attempted(event, time);
        this.sink.incoming('unschedulable', incomingEvents.attemptFailure);
        return;
      case 'CycleFailed':
        this.attempted(event, time);
        this.sink.incoming('backoff', incomingEvents.attemptFailure);
        return;
      default:
        return;
    }
  }

  /** A scheduling cycle ended: counts its result unless it reserved (then binding decides). */
  cycle(decisions: readonly Envelope<DecisionEvent>[], seconds: number): void {
    const outcome = decisions.find(({ event: e }) =>
      ['PodUnschedulable', 'PodNominated', 'CycleFailed', 'PodReserved'].includes(e.type),
    );
    if (outcome === undefined) return;
    const { event, time } = outcome;
    if (event.type === 'PodUnschedulable' || event.type === 'PodNominated')
      this.sink.attempt('unschedulable', seconds);
    else if (event.type === 'CycleFailed') this.sink.attempt('error', seconds);
    else this.reserve(event, time, seconds);
  }

  private upsert(obj: unknown, time: number): void {
    const facts = podFacts(obj);
    if (facts === undefined || facts.schedulerName !== this.schedulerName) return;
    this.relisted?.add(facts.uid);
    const previous = this.uidByKey.get(facts.key);
    if (previous !== undefined && previous !== facts.uid) this.forget(previous); // recreated
    const pod = this.pods.get(facts.uid);
    if (!facts.unbound) {
      if (pod !== undefined) {
        pod.unbound = false;
        this.collect(facts.uid, pod);
      }
      return;
    }
    if (pod === undefined) {
      this.track(facts.uid, facts.key, facts.gated ? undefined : time).gated = facts.gated;
      this.sink.incoming(facts.gated ? 'unschedulable' : 'active', incomingEvents.podAdd);
    } else if (pod.gated && !facts.gated && pod.unbound) {
      pod.gated = false;
      pod.firstQueuedAt ??= time;
      this.sink.incoming('active', incomingEvents.gatesEliminated);
    }
  }

  /** Any cycle decision: the pod was attempted, so it was queued by then at the latest. */
  private attempted(ref: { uid: string; key: string }, time: number): TrackedPod {
    const pod = this.pods.get(ref.uid) ?? this.track(ref.uid, ref.key, time);
    pod.firstQueuedAt ??= time;
    return pod;
  }

  private reserve(d: DecisionEvent, time: number, cycleSeconds: number | undefined): void {
    const pod = this.attempted(d, time);
    if (pod.binding?.attempt !== d.attempt)
      pod.binding = { attempt: d.attempt, reservedAt: time, cycleSeconds: cycleSeconds ?? 0 };
    else if (cycleSeconds !== undefined) pod.binding.cycleSeconds = cycleSeconds;
  }

  private endBinding(
    event: { type: 'BindSucceeded' | 'BindFailed' | 'PodUnreserved'; uid: string; attempt: number },
    time: number,
  ): void {
    const pod = this.pods.get(event.uid);
    const binding = pod?.binding;
    if (pod === undefined || binding === undefined || binding.attempt !== event.attempt) return;
    const seconds = binding.cycleSeconds + Math.max(0, time - binding.reservedAt) / 1000;
    pod.binding = undefined;
    if (event.type === 'BindSucceeded') {
      this.sink.attempt('scheduled', seconds);
      const sli = pod.firstQueuedAt === undefined ? undefined : (time - pod.firstQueuedAt) / 1000;
      this.sink.scheduled(event.attempt, sli === undefined ? undefined : Math.max(0, sli));
      this.forget(event.uid);
      return;
    }
    this.sink.attempt(event.type === 'BindFailed' ? 'error' : 'unschedulable', seconds);
    if (pod.unbound) this.sink.incoming('backoff', incomingEvents.attemptFailure);
    this.collect(event.uid, pod);
  }

  private endRelist(): void {
    const seen = this.relisted;
    this.relisted = undefined;
    if (seen === undefined) return;
    for (const uid of [...this.pods.keys()]) if (!seen.has(uid)) this.forget(uid);
  }

  private track(uid: string, key: string, firstQueuedAt: number | undefined): TrackedPod {
    const pod: TrackedPod = { key, unbound: true, gated: false, firstQueuedAt, binding: undefined };
    this.pods.set(uid, pod);
    this.uidByKey.set(key, uid);
    return pod;
  }

  /** Drops a pod nothing more can happen to (bound or gone, no bind in flight). */
  private collect(uid: string, pod: TrackedPod): void {
    if (!pod.unbound && pod.binding === undefined) this.forget(uid);
  }

  private forget(uid: string): void {
    const pod = this.pods.get(uid);
    if (pod === undefined) return;
    this.pods.delete(uid);
    if (this.uidByKey.get(pod.key) === uid) this.uidByKey.delete(pod.key);
  }
}
