// Follows the log to report a run: which pods berth placed, which are not bound, in what state and why.

import { DecisionDigest } from '../events/digest.ts';
import type { Envelope, ReservedClaim } from '../events/types.ts';
import { isDecision } from '../events/types.ts';
import { podKey } from '../model/keys.ts';

/**
 * Where a pod berth has not bound stands: `unschedulable` (its last attempt found no node;
 * parked until the cluster changes), `backingOff` (waiting out a backoff before its next
 * attempt: after a failed bind, an error, or a requeue of an unschedulable pod), `binding`
 * (reserved on a node, its bind in flight), `gated` (held by scheduling gates) and `queued`
 * (waiting in the active queue for an attempt).
 */
export type PendingState = 'unschedulable' | 'backingOff' | 'binding' | 'gated' | 'queued';

/** The result of a run, as `simulate --json` and `replay --json` print it. */
export interface RunSummary {
  nodes: number;
  /**
   * Pods berth had to schedule (for its scheduler name when seen):
   * `scheduled + unschedulable + backingOff + binding + gated + queued`.
   */
  pods: number;
  /** Pods bound (the bind succeeded). */
  scheduled: number;
  /** Pods whose last attempt found no feasible node (the reason is in `pending`). */
  unschedulable: number;
  /** Pods waiting out a backoff before another attempt. */
  backingOff: number;
  /** Pods reserved on a node whose bind has not completed. */
  binding: number;
  /** Pods held by scheduling gates. */
  gated: number;
  /** Pods waiting in the active queue for an attempt. */
  queued: number;
  /** `namespace/name` → node, for every pod berth bound. */
  placements: Record<string, string>;
  /**
   * `namespace/name` → the DRA devices berth allocated to the bound pod's claims
   * (`driver/pool/device`), for bound pods whose cycle allocated any.
   */
  devices: Record<string, string[]>;
  /** `namespace/name` → why it is not bound (the last attempt's reason), for every pod not bound. */
  pending: Record<string, string>;
  /** `namespace/name` → its state, for every pod in `pending`. */
  pendingStates: Record<string, PendingState>;
  decisionDigest: string;
  /** Scheduling attempts: cycles, each ending in a reservation, "unschedulable" or an error. */
  attempts: number;
  /** Pods bound per wall-clock second of the run (`scheduled / elapsedMs`). */
  podsPerSecond: number;
  /** Scheduling attempts per wall-clock second of the run (`attempts / elapsedMs`). */
  attemptsPerSecond: number;
  /** Wall-clock duration of the run. */
  elapsedMs: number;
  /** Simulations only: the virtual time the run reached, in ms. */
  virtualMs?: number;
  /** Simulations only: the virtual time after which the simulation stops. */
  horizonMs?: number;
  /**
   * Simulations only: true when the run stopped at the horizon with work still due (pods
   * backing off or binding); false when it ran to quiescence.
   */
  horizonReached?: boolean;
}

/** Options for `SummaryTracker.summarize`. */
export interface SummarizeOptions {
  /** The core's machine state of pod `uid` (Scheduler.machineState); without it, states are read from the reasons. */
  stateOf?: (uid: string) => string | undefined;
}

const gatedReason = 'Scheduling is blocked due to non-empty scheduling gates';

/** The pod machine's states, as summary states. */
const byMachineState: Readonly<Record<string, PendingState>> = {
  unschedulable: 'unschedulable',
  backoff: 'backingOff',
  filtering: 'binding',
  waiting: 'binding',
  binding: 'binding',
  boundUnconfirmed: 'binding',
  gated: 'gated',
  pending: 'queued',
};

/** A pod's state from its machine's, or else from its reason (as `pendingReasons` writes it). */
function stateFrom(machineState: string | undefined, reason: string): PendingState {
  const known = machineState === undefined ? undefined : byMachineState[machineState];
  if (known !== undefined) return known;
  if (reason === gatedReason) return 'gated';
  const waiting = /^waiting to be scheduled \((\w+)\)$/.exec(reason)?.[1];
  return (waiting === undefined ? undefined : byMachineState[waiting]) ?? 'unschedulable';
}

function perSecond(count: number, elapsedMs: number): number {
  return elapsedMs > 0 ? Math.round((count / elapsedMs) * 1000) : 0;
}

function sortedEntries<V>(entries: Iterable<[string, V]>): [string, V][] {
  return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Tracks berth's pods and placements from envelopes, and digests the decisions. */
export class SummaryTracker {
  readonly digest = new DecisionDigest();
  /** `namespace/name` → the uid berth bound under that name and its node. */
  private readonly placements = new Map<string, { uid: string; node: string }>();
  /** uid → the devices its last PodReserved allocated (DRA), while it has any. */
  private readonly reservedDevices = new Map<string, string[]>();
  /** `namespace/name` → the devices of the pod bound under that name. */
  private readonly boundDevices = new Map<string, string[]>();
  /** `namespace/name` → uid, for pods seen without a node and not bound since. */
  private readonly unboundUids = new Map<string, string>();
  private readonly nodeNames = new Set<string>();
  private attempts = 0;

  /** Observes one envelope (call with every envelope, in order). */
  observe(env: Envelope): void {
    const event = env.event;
    if (isDecision(event)) {
      this.digest.add(event);
      const type = event.type;
      if (type === 'PodReserved' || type === 'PodUnschedulable' || type === 'CycleFailed')
        this.attempts += 1;
      if (type === 'PodReserved') this.noteDevices(event.uid, event.claims);
      return;
    }
    switch (event.type) {
      case 'BindSucceeded':
        this.placements.set(event.key, { uid: event.uid, node: event.node });
        this.boundDevices.delete(event.key);
        if (this.reservedDevices.has(event.uid))
          this.boundDevices.set(event.key, this.reservedDevices.get(event.uid) as string[]);
        this.reservedDevices.delete(event.uid);
        if (this.unboundUids.get(event.key) === event.uid) this.unboundUids.delete(event.key);
        return;
      case 'PodUpserted': {
        const meta = event.pod?.metadata;
        if (typeof meta?.name !== 'string' || typeof meta.uid !== 'string') return;
        const key = podKey(meta.namespace, meta.name);
        const nodeName = event.pod.spec?.nodeName;
        if (typeof nodeName === 'string' && nodeName !== '') {
          if (this.unboundUids.get(key) === meta.uid) this.unboundUids.delete(key);
        } else if (this.placements.get(key)?.uid !== meta.uid) {
          this.unboundUids.set(key, meta.uid);
        }
        return;
      }
      case 'PodDeleted':
        this.reservedDevices.delete(event.uid);
        if (this.placements.get(event.key)?.uid === event.uid) {
          this.placements.delete(event.key);
          this.boundDevices.delete(event.key);
        }
        if (this.unboundUids.get(event.key) === event.uid) this.unboundUids.delete(event.key);
        return;
      case 'NodeUpserted':
        if (typeof event.node?.metadata?.name === 'string')
          this.nodeNames.add(event.node.metadata.name);
        return;
      case 'NodeDeleted':
        this.nodeNames.delete(event.name);
        return;
      default:
        return;
    }
  }

  /** Remembers the devices pod `uid`'s reservation allocated (none: forgets older ones). */
  private noteDevices(uid: string, claims: readonly ReservedClaim[] | undefined): void {
    const devices = (claims ?? []).flatMap((c) =>
      (c.allocation?.devices.results ?? []).map((r) => `${r.driver}/${r.pool}/${r.device}`),
    );
    if (devices.length > 0) this.reservedDevices.set(uid, devices);
    else this.reservedDevices.delete(uid);
  }

  /**
   * Builds the summary. `pending` is the scheduler's `pendingReasons()` (every pod with a
   * live machine); a pod whose bind already succeeded counts as scheduled, not pending.
   */
  summarize(
    pending: Map<string, string>,
    elapsedMs: number,
    options: SummarizeOptions = {},
  ): RunSummary {
    const placements: Record<string, string> = {};
    for (const [key, placed] of sortedEntries(this.placements)) placements[key] = placed.node;
    const devices: Record<string, string[]> = {};
    for (const [key, list] of sortedEntries(this.boundDevices)) devices[key] = list;
    const counts: Record<PendingState, number> = {
      unschedulable: 0,
      backingOff: 0,
      binding: 0,
      gated: 0,
      queued: 0,
    };
    const pendingObj: Record<string, string> = {};
    const pendingStates: Record<string, PendingState> = {};
    for (const [key, reason] of sortedEntries(pending)) {
      const uid = this.unboundUids.get(key);
      if (uid === undefined && this.placements.has(key)) continue;
      const machineState = uid === undefined ? undefined : options.stateOf?.(uid);
      const state = stateFrom(machineState, reason);
      counts[state] += 1;
      pendingObj[key] = reason;
      pendingStates[key] = state;
    }
    const scheduled = this.placements.size;
    const notBound = Object.values(counts).reduce((a, b) => a + b, 0);
    return {
      nodes: this.nodeNames.size,
      pods: scheduled + notBound,
      scheduled,
      ...counts,
      placements,
      devices,
      pending: pendingObj,
      pendingStates,
      decisionDigest: this.digest.hex(),
      attempts: this.attempts,
      podsPerSecond: perSecond(scheduled, elapsedMs),
      attemptsPerSecond: perSecond(this.attempts, elapsedMs),
      elapsedMs: Math.round(elapsedMs),
    };
  }
}
