// The Scheduler: the core's one loop. Inputs and cycles go in; decisions (applied) and commands (to execute) come out.
import { reduce } from '../cluster/reducer.ts';
import type { ClusterState } from '../cluster/types.ts';
import type { Envelope, InputEvent } from '../events/types.ts';
import type { Profile } from '../framework/types.ts';
import { claimGate, noteClaimWaiter } from './claim-gate.ts';
import type { Command } from './commands.ts';
import type { BerthConfig } from './config.ts';
import { CoreState, type EnvelopeInspector, type Step } from './core-state.ts';
import { explainGroup } from './gang-explain.ts';
import type { GroupExplanation } from './gang-explain-types.ts';
import { decideGroup } from './gang-plan.ts';
import { followNominationsByRelease } from './nominations.ts';
import { decideCycle } from './plan-cycle.ts';
import { queueGroupReports } from './reports.ts';
import { requeueHelped } from './requeue.ts';
import { routeInput } from './route-input.ts';
import { type CoreSnapshot, SnapshotError } from './snapshot.ts';
import { restoreSnapshot, takeSnapshot } from './snapshot-state.ts';

export type { EnvelopeInspector, Step } from './core-state.ts';

/** What a Scheduler is built with. */
export interface SchedulerOptions {
  config: BerthConfig;
  seed: number;
  /** Observes each envelope before and after it is applied (tests); never an effect. */
  inspect?: EnvelopeInspector;
  /**
   * The one profile to schedule `config.schedulerName`'s pods with (tests), instead of the
   * profiles `config` names (`profilesOf`).
   */
  profile?: Profile;
}

/**
 * A step that failed part way (a bug in the core: the reducer is total). `step` holds what
 * it had done: the input applied and the decisions made before the failure, which the
 * runtime records so the log stays whole, and the commands they queued.
 */
export class StepError extends Error {
  override name = 'StepError';
  constructor(
    override readonly cause: unknown,
    readonly step: Step,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Pending pods per queue, as kube-scheduler's `scheduler_pending_pods{queue}` reports them. */
export interface PendingCounts {
  active: number;
  backoff: number;
  unschedulable: number;
  gated: number;
}

/**
 * The event-sourced core of berth. Inputs enter through `ingest` (stamped here) or
 * `applyInput` (already stamped, in replay); cycles run through `cycle`. Each returns a
 * Step: the decisions it made, in order, already stamped and applied, and the commands
 * to carry out once they are recorded. Nothing else changes state and the core calls
 * nothing outside itself, so a recorded log replays to the same decisions.
 */
export class Scheduler {
  private core: CoreState;
  /** True while an input or cycle is being applied (no snapshot then). */
  private busy = false;

  constructor(opts: SchedulerOptions) {
    this.core = new CoreState(opts.config, opts.seed, opts.profile, opts.inspect);
    followNominationsByRelease(this.core);
  }

  /**
   * A core that continues from `snapshot` (taken by `snapshot()`, possibly through JSON),
   * built with `opts` as a fresh one would be. The seed is not used: the generator
   * continues from the snapshot's state. `commands` arm again the timers that were armed,
   * at their deadlines, so a live run can go on. Throws SnapshotError (or
   * SnapshotDataError for the cluster part) for another snapshot version, malformed data
   * or data that does not hang together, with a one-line message naming what.
   */
  static restore(
    snapshot: CoreSnapshot,
    opts: SchedulerOptions,
  ): { core: Scheduler; commands: Command[] } {
    const scheduler = new Scheduler(opts);
    restoreSnapshot(scheduler.core, snapshot);
    followNominationsByRelease(scheduler.core);
    const core = scheduler.core;
    return { core: scheduler, commands: core.takeStep().commands };
  }

  /** The cluster state folded so far (read-only by contract: only the core writes it). */
  get state(): ClusterState {
    return this.core.cluster;
  }

  /**
   * Everything later decisions depend on, as plain JSON data (see CoreSnapshot). Only
   * between envelopes: throws when called while an input or cycle is being applied (from
   * an inspector). O(nodes + pods); PodInfo objects are shared, not copied.
   */
  snapshot(): CoreSnapshot {
    if (this.busy) throw new SnapshotError('taken while an envelope is being applied');
    return takeSnapshot(this.core);
  }

  /** Number of pods waiting in the activeQ. */
  get activeCount(): number {
    return this.core.pods.queue.size;
  }

  /**
   * Pending pods by kube-scheduler's queue names: `active` (activeQ), `backoff`,
   * `unschedulable` (parked) and `gated` (held by scheduling gates).
   */
  pendingCounts(): PendingCounts {
    const states = this.core.pods.stateCounts();
    return {
      active: this.core.pods.queue.size,
      backoff: states.get('backoff') ?? 0,
      unschedulable: states.get('unschedulable') ?? 0,
      gated: states.get('gated') ?? 0,
    };
  }

  /** Number of pods with a live machine (in flight). */
  get inFlightCount(): number {
    return this.core.pods.size;
  }

  /** The last sequence number used. */
  get lastSeq(): number {
    return this.core.seq;
  }

  /** Starts a fresh run at logical time `now`: the command arming the pool's periodic flush. */
  start(now: number): Command[] {
    this.core.armFlush(now);
    return this.core.takeStep().commands;
  }

  /** Live input: stamps it with the next seq and logical time `time`, then applies it. */
  ingest(event: InputEvent, time: number): Step {
    return this.applyInput({ seq: this.core.seq + 1, time, event });
  }

  /** Applies a stamped input (live or replayed): its decisions and commands. */
  applyInput(env: Envelope<InputEvent>): Step {
    const core = this.core;
    this.busy = true;
    try {
      core.seq = env.seq;
      core.now = env.time;
      core.lastTime = env.time;
      core.inspect?.('before', env, core.cluster);
      const change = reduce(core.cluster, env);
      routeInput(core, env.event, change);
      requeueHelped(core, change);
      core.inspect?.('after', env, core.cluster);
    } catch (error) {
      throw new StepError(error, core.takeStep(env));
    } finally {
      this.busy = false;
    }
    queueGroupReports(core);
    return core.takeStep(env);
  }

  /**
   * Runs one scheduling cycle at logical time `time` for the next pod in the activeQ (or
   * its group's gang step). Its decisions are empty when the queue is.
   */
  cycle(time: number): Step {
    const core = this.core;
    core.now = time;
    for (let next = core.pods.queue.pop(); next !== undefined; next = core.pods.queue.pop()) {
      const uid = next.key;
      const record = core.cluster.pods.get(uid);
      if (record === undefined || !core.pods.has(uid)) continue;
      // PreEnqueue (DynamicResources): a pod whose claims are not all there waits, gated.
      if (claimGate(core, record.info) !== undefined) {
        core.pods.send(uid, { type: 'GATED' });
        noteClaimWaiter(core, record.info);
        continue;
      }
      this.busy = true;
      try {
        const group = core.groupOf(record.info);
        if (group === undefined) {
          core.pods.send(uid, { type: 'SCHEDULE' });
          decideCycle(core, record.info);
        } else {
          decideGroup(core, group, record.info);
        }
      } catch (error) {
        throw new StepError(error, core.takeStep());
      } finally {
        this.busy = false;
      }
      queueGroupReports(core);
      return core.takeStep();
    }
    return core.takeStep();
  }

  /** Why each in-flight pod is not bound yet, by `namespace/name`. */
  pendingReasons(): Map<string, string> {
    const reasons = new Map<string, string>();
    const pods = this.core.pods;
    for (const uid of pods.uids()) {
      const m = pods.inspect(uid);
      if (m === undefined) continue;
      // kube's SchedulingGated condition message, or DynamicResources' PreEnqueue reason.
      const gated = m.state === 'gated' ? this.gatedReason(uid) : undefined;
      reasons.set(m.key, gated ?? m.reason ?? `waiting to be scheduled (${m.state})`);
    }
    return reasons;
  }

  /** Why gated pod `uid` waits: its scheduling gates, else a claim it waits for. */
  private gatedReason(uid: string): string {
    const info = this.core.cluster.pods.get(uid)?.info;
    const claims = info === undefined ? undefined : claimGate(this.core, info);
    if (claims !== undefined && info?.schedulingGates.length === 0) return claims;
    return 'Scheduling is blocked due to non-empty scheduling gates';
  }

  /** The state name of pod `uid`'s machine, or undefined when it has none. */
  machineState(uid: string): string | undefined {
    return this.core.pods.inspect(uid)?.state;
  }

  /** Group `key`'s machine state and reason, or undefined when it has no machine. */
  groupMachine(
    key: string,
  ): { state: string; steps: number; reason: string | undefined } | undefined {
    const state = this.core.gangs.stateOf(key);
    const ctx = this.core.gangs.contextOf(key);
    return state === undefined || ctx === undefined
      ? undefined
      : { state, steps: ctx.steps, reason: ctx.reason };
  }

  /**
   * `berth explain group`: group `key` as of now (see explainGroup). Only between
   * envelopes; the state is left as it was.
   */
  explainGroup(key: string): GroupExplanation {
    if (this.busy) throw new SnapshotError('explained while an envelope is being applied');
    return explainGroup(this.core, key);
  }
}
