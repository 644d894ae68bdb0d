// The Scheduler: folds inputs into cluster state, drives pod machines, and makes decisions.

import { podGroupKeyOf } from '../cluster/pod-groups.ts';
import { initialState, NO_CHANGE, reduce } from '../cluster/reducer.ts';
import {
  restoreClusterState,
  SnapshotDataError,
  serializeClusterState,
} from '../cluster/serialize.ts';
import type { ClusterChange, ClusterState, PodInfo } from '../cluster/types.ts';
import type { AttemptRef, DecisionEvent, Envelope, InputEvent, PodRef } from '../events/types.ts';
import { type CycleResult, type SchedulingContext, scheduleOne } from '../framework/cycle.ts';
import type { Nomination, Profile } from '../framework/types.ts';
import { changeCouldHelp, pluginsHelpedBy } from '../queue/requeue.ts';
import { type BerthConfig, type ProfileInUse, profilesOf } from './config.ts';
import {
  blockedMessage,
  byGangOrder,
  type GangPlacement,
  missingMinResources,
  tryGroup,
} from './gang-step.ts';
import { Gangs, type HeldMember, ranksBefore } from './gangs.ts';
import { PodActors } from './pod-actors.ts';
import {
  bindErrorMessage,
  type EffectPort,
  type GroupReport,
  type PodScheduledReason,
  type TimerPort,
} from './ports.ts';
import { Preemptions } from './preemptions.ts';
import {
  type CoreSnapshot,
  SnapshotError,
  snapshotVersion,
  type TrackedRng,
  trackedRng,
} from './snapshot.ts';

/** What a Scheduler is built with. */
export interface SchedulerOptions {
  config: BerthConfig;
  seed: number;
  timers: TimerPort;
  effects: EffectPort;
  /** Called with every envelope (inputs and decisions), in log order, before it is applied. */
  onEnvelope?: (env: Envelope) => void;
  /** Called after an envelope has been fully applied (tests check invariants here). */
  onApplied?: (env: Envelope, state: ClusterState) => void;
  /**
   * The one profile to schedule `config.schedulerName`'s pods with (tests), instead of the
   * profiles `config` names (`profilesOf`).
   */
  profile?: Profile;
}

/** A command for the effect adapter, queued while an envelope is applied and sent after. */
type Command =
  | { kind: 'bind'; attempt: AttemptRef; node: string }
  | {
      kind: 'unschedulable';
      uid: string;
      key: string;
      message: string;
      generation: number;
      reason: PodScheduledReason;
    }
  | { kind: 'scheduled'; uid: string; key: string; node: string }
  | {
      kind: 'preempt';
      preemptor: AttemptRef;
      schedulerName: string;
      victim: PodRef;
      node: string;
      generation: number;
    }
  | { kind: 'nominate'; pod: PodRef; node: string | undefined }
  | { kind: 'group'; report: GroupReport }
  | { kind: 'forget'; uid: string; key: string };

/** Pending pods per queue, as kube-scheduler's `scheduler_pending_pods{queue}` reports them. */
export interface PendingCounts {
  active: number;
  backoff: number;
  unschedulable: number;
  gated: number;
}

/**
 * The event-sourced core of berth. Inputs enter through `ingest` (stamped here) or
 * `applyInput` (already stamped, in replay); cycles run through `runCycle`. Each returns
 * the decisions it produced, in order, already stamped and applied; nothing else changes
 * state, so a recorded log replays to the same decisions.
 */
export class Scheduler {
  private cluster: ClusterState = initialState();
  private readonly pods: PodActors;
  /** Preemptors waiting for their victims to go. */
  private preemptions = new Preemptions();
  /** Pod groups: members, machines, status reports (gang scheduling on when configured). */
  private readonly gangs = new Gangs();
  /** Events to add to groups' next status reports, by group. */
  private readonly groupEvents = new Map<string, NonNullable<GroupReport['event']>>();
  private readonly outbox: Command[] = [];
  private readonly ctx: SchedulingContext;
  /** The profile of each scheduler name berth answers to; pods naming another are not berth's. */
  private readonly profiles: ReadonlyMap<string, ProfileInUse>;
  private rng: TrackedRng;
  private produced: Envelope<DecisionEvent>[] = [];
  private seq = 0;
  /** The logical time of the input or cycle being applied. */
  private now = 0;
  /** The logical time of the last envelope (a cycle that decided nothing leaves no trace). */
  private lastTime = 0;
  private flushDeadline: number | undefined;
  /** True while an input or cycle is being applied (no snapshot then). */
  private busy = false;

  constructor(private readonly opts: SchedulerOptions) {
    this.rng = trackedRng(opts.seed);
    const { config } = opts;
    const inUse: ProfileInUse[] =
      opts.profile === undefined
        ? profilesOf(config)
        : [
            {
              schedulerName: config.schedulerName,
              profile: opts.profile,
              percentageOfNodesToScore: config.percentageOfNodesToScore,
            },
          ];
    // Members waiting for their group (quorum, PodGroup) are parked under 'Coscheduling'.
    for (const p of inUse)
      p.profile = {
        ...p.profile,
        queueingHints: new Map([...p.profile.queueingHints, ['Coscheduling', groupCouldMove]]),
      };
    this.profiles = new Map(inUse.map((p) => [p.schedulerName, p]));
    const first = inUse[0] as ProfileInUse;
    // One walk cursor and one generator for every profile, as kube's scheduler has.
    this.ctx = {
      profile: first.profile,
      rng: this.rng,
      cursor: { next: 0 },
      percentageOfNodesToScore: first.percentageOfNodesToScore,
    };
    this.pods = new PodActors({
      backoff: opts.config.backoff,
      timers: opts.timers,
      now: () => this.now,
      podInfo: (uid) => this.cluster.pods.get(uid)?.info,
      groupQueueTime: (uid) => this.groupQueueTime(uid),
    });
  }

  /**
   * A core that continues from `snapshot` (taken by `snapshot()`, possibly through JSON),
   * built with `opts` as a fresh one would be. The seed is not used: the generator
   * continues from the snapshot's state. The timers that were armed are armed again through
   * `opts.timers` at their deadlines, so a live run can go on. Throws SnapshotError (or
   * SnapshotDataError for the cluster part) for another snapshot version, malformed data
   * or data that does not hang together, with a one-line message naming what.
   */
  static restore(snapshot: CoreSnapshot, opts: SchedulerOptions): Scheduler {
    if (snapshot?.snapshotVersion !== snapshotVersion)
      throw new SnapshotError(
        `version ${String(snapshot?.snapshotVersion)} is not supported (this berth reads ${snapshotVersion})`,
      );
    const core = new Scheduler(opts);
    try {
      core.cluster = restoreClusterState(snapshot.cluster);
      core.seq = snapshot.seq;
      core.now = snapshot.time;
      core.lastTime = snapshot.time;
      core.ctx.cursor.next = snapshot.nextStartNodeIndex;
      core.rng = trackedRng(snapshot.rng.state);
      core.ctx.rng = core.rng;
      core.pods.load(snapshot);
      core.preemptions = Preemptions.load(snapshot.preemptions ?? []);
      core.gangs.rebuild(core.cluster, (info) => core.isGangMember(info));
      core.gangs.load(snapshot.groups ?? []);
      core.gangs.loadHold(snapshot.groupHold);
    } catch (err) {
      if (err instanceof SnapshotError || err instanceof SnapshotDataError) throw err;
      // A field of the wrong shape (hand-edited or truncated data): one line, not a trace.
      const why = err instanceof Error ? err.message : String(err);
      throw new SnapshotError(`malformed data (${why})`);
    }
    if (snapshot.flushDeadline !== null) {
      core.flushDeadline = snapshot.flushDeadline;
      opts.timers.armFlush(snapshot.flushDeadline);
    }
    return core;
  }

  /** The cluster state folded so far (read-only by contract: only the core writes it). */
  get state(): ClusterState {
    return this.cluster;
  }

  /**
   * Everything later decisions depend on, as plain JSON data (see CoreSnapshot). Only
   * between envelopes: throws when called while an input or cycle is being applied (from
   * `onEnvelope` or `onApplied`). O(nodes + pods); PodInfo objects are shared, not copied.
   */
  snapshot(): CoreSnapshot {
    if (this.busy) throw new SnapshotError('taken while an envelope is being applied');
    return {
      snapshotVersion,
      seq: this.seq,
      time: this.lastTime,
      nextStartNodeIndex: this.ctx.cursor.next,
      rng: { state: this.rng.state() },
      flushDeadline: this.flushDeadline ?? null,
      ...this.pods.snapshot(),
      preemptions: this.preemptions.snapshot(),
      groups: this.gangs.snapshot(),
      groupHold: this.gangs.holdSnapshot(),
      cluster: serializeClusterState(this.cluster),
    };
  }

  /** Number of pods waiting in the activeQ. */
  get activeCount(): number {
    return this.pods.queue.size;
  }

  /**
   * Pending pods by kube-scheduler's queue names: `active` (activeQ), `backoff`,
   * `unschedulable` (parked) and `gated` (held by scheduling gates).
   */
  pendingCounts(): PendingCounts {
    const states = this.pods.stateCounts();
    return {
      active: this.pods.queue.size,
      backoff: states.get('backoff') ?? 0,
      unschedulable: states.get('unschedulable') ?? 0,
      gated: states.get('gated') ?? 0,
    };
  }

  /** Number of pods with a live machine (in flight). */
  get inFlightCount(): number {
    return this.pods.size;
  }

  /** The last sequence number used. */
  get lastSeq(): number {
    return this.seq;
  }

  /** Arms the periodic flush of the unschedulable pool, starting from logical time `now`. */
  startFlushTimer(now: number): void {
    this.flushDeadline = now + this.opts.config.flushIntervalMs;
    this.opts.timers.armFlush(this.flushDeadline);
  }

  /** Live input: stamps it with the next seq and logical time `time`, then applies it. */
  ingest(event: InputEvent, time: number): Envelope<DecisionEvent>[] {
    return this.applyInput({ seq: this.seq + 1, time, event });
  }

  /** Applies a stamped input (live or replayed); returns the decisions it led to. */
  applyInput(env: Envelope<InputEvent>): Envelope<DecisionEvent>[] {
    this.busy = true;
    try {
      this.seq = env.seq;
      this.now = env.time;
      this.lastTime = env.time;
      this.opts.onEnvelope?.(env);
      const change = reduce(this.cluster, env);
      this.route(env.event, change);
      this.requeueHelped(change);
      this.opts.onApplied?.(env, this.cluster);
    } finally {
      this.busy = false;
    }
    this.flushOutbox();
    return this.takeProduced();
  }

  /**
   * Runs one scheduling cycle at logical time `time` for the next pod in the activeQ and
   * applies its decisions. Returns them; empty when the queue is empty.
   */
  runCycle(time: number): Envelope<DecisionEvent>[] {
    this.now = time;
    for (let next = this.pods.queue.pop(); next !== undefined; next = this.pods.queue.pop()) {
      const uid = next.key;
      const record = this.cluster.pods.get(uid);
      if (record === undefined || !this.pods.has(uid)) continue;
      this.busy = true;
      try {
        const group = this.groupOf(record.info);
        if (group === undefined) {
          this.pods.send(uid, { type: 'SCHEDULE' });
          this.decideCycle(record.info);
        } else {
          this.decideGroup(group, record.info);
        }
      } finally {
        this.busy = false;
      }
      this.flushOutbox();
      return this.takeProduced();
    }
    return [];
  }

  /** Why each in-flight pod is not bound yet, by `namespace/name`. */
  pendingReasons(): Map<string, string> {
    const reasons = new Map<string, string>();
    for (const uid of this.pods.uids()) {
      const m = this.pods.inspect(uid);
      if (m === undefined) continue;
      // kube's SchedulingGated condition message, for pods held in PreEnqueue.
      const gated =
        m.state === 'gated' ? 'Scheduling is blocked due to non-empty scheduling gates' : undefined;
      reasons.set(m.key, gated ?? m.reason ?? `waiting to be scheduled (${m.state})`);
    }
    return reasons;
  }

  /** The state name of pod `uid`'s machine, or undefined when it has none. */
  machineState(uid: string): string | undefined {
    return this.pods.inspect(uid)?.state;
  }

  /** One cycle for `pod` with its profile, against the current state. */
  private cycleFor(pod: PodInfo, withPostFilters = true): CycleResult {
    const inUse = this.profiles.get(pod.schedulerName);
    if (inUse !== undefined) {
      this.ctx.profile = withPostFilters ? inUse.profile : this.withoutPostFilters(inUse.profile);
      this.ctx.percentageOfNodesToScore = inUse.percentageOfNodesToScore;
    }
    this.ctx.now = this.now;
    return scheduleOne(pod, this.cluster, this.ctx);
  }

  /** Each profile without its PostFilters, made once: a gang step never preempts. */
  private readonly gangProfiles = new WeakMap<Profile, Profile>();

  private withoutPostFilters(profile: Profile): Profile {
    let plain = this.gangProfiles.get(profile);
    if (plain === undefined) {
      plain = { ...profile, postFilter: [] };
      this.gangProfiles.set(profile, plain);
    }
    return plain;
  }

  /** The attempt of pod `pod` its machine is on now. */
  private refOf(pod: PodInfo): AttemptRef {
    return { uid: pod.uid, key: pod.key, attempt: this.pods.attemptOf(pod.uid) ?? 0 };
  }

  private decideCycle(pod: PodInfo): void {
    const ref = this.refOf(pod);
    const result = this.cycleFor(pod);
    if (result.kind === 'Unschedulable' && result.nomination !== undefined) {
      this.decidePreemption(ref, result.message, result.nomination);
    } else if (result.kind === 'Scheduled') {
      this.decide({ type: 'PodReserved', ...ref, node: result.node });
      // Permit: no plugin of the profile waits yet, so every reservation is allowed at once.
      this.decide({ type: 'BindRequested', ...ref, node: result.node });
    } else if (result.kind === 'Unschedulable') {
      this.decide({ type: 'PodUnschedulable', ...ref, message: result.message }, [
        ...result.diagnosis.unschedulablePlugins,
      ]);
    } else {
      this.decide({ type: 'CycleFailed', ...ref, plugin: result.plugin, message: result.message });
    }
  }

  /** The group pod `info` joins when gang scheduling is on and it is one of berth's, else undefined. */
  private groupOf(info: PodInfo): string | undefined {
    return this.opts.config.gangs === undefined ? undefined : podGroupKeyOf(info);
  }

  /** True when pod `info` is a member of a group berth schedules (one of its profiles' pods). */
  private isGangMember(info: PodInfo): boolean {
    return this.profiles.has(info.schedulerName) && this.groupOf(info) !== undefined;
  }

  /** Group `key`'s minMember and timeout, or why the group cannot be read. */
  private groupSpec(key: string): { minMember: number; timeoutMs: number } | { missing: string } {
    const unavailable = this.cluster.unavailable.PodGroup;
    if (unavailable !== undefined)
      return {
        missing: `the PodGroup API (scheduling.x-k8s.io/v1alpha1) is not served: ${unavailable}`,
      };
    const pg = this.cluster.objects.PodGroup.get(key);
    if (pg === undefined) return { missing: `PodGroup ${key} not found` };
    const timeoutMs = pg.scheduleTimeoutMs ?? this.opts.config.gangs?.scheduleTimeoutMs ?? 60_000;
    return { minMember: pg.minMember, timeoutMs };
  }

  /**
   * A member of group `key` reached the head of the queue: one gang step. Too few members
   * (or no PodGroup) → the waiting members are parked with the group's reason, taking no
   * capacity. Enough → the missing members (highest priority, then oldest) are tried
   * against one snapshot; all are reserved and bound together, or none is and each gets
   * the group's reason. A group already placed whole schedules further members one by one.
   */
  private decideGroup(key: string, popped: PodInfo): void {
    this.expireHold();
    const spec = this.groupSpec(key);
    if ('missing' in spec) {
      this.parkGroup(key, popped, `pod group ${key}: ${spec.missing}`);
      return;
    }
    const counts = this.gangs.counts(key, this.cluster);
    const need = spec.minMember - counts.placed;
    if (need <= 0) {
      this.pods.send(popped.uid, { type: 'SCHEDULE' });
      this.decideCycle(popped);
      return;
    }
    const waiting = this.waitingMembers(key, popped);
    if (counts.present - counts.gated < spec.minMember || waiting.length < need) {
      const gated = counts.gated > 0 ? ` (${counts.gated} more gated)` : '';
      const present = counts.present - counts.gated;
      this.parkGroup(
        key,
        popped,
        `pod group ${key} has ${present} of ${spec.minMember} members${gated}`,
      );
      return;
    }
    this.gangs.send(key, { type: 'STEP', now: this.now });
    for (const m of waiting) this.pods.send(m.uid, { type: 'SCHEDULE' });
    const min = this.cluster.objects.PodGroup.get(key)?.minResources;
    const short = min === undefined ? undefined : missingMinResources(this.cluster, min);
    if (short !== undefined) {
      this.groupBlocked(key, waiting, `pod group ${key}: ${short}`, ['NodeResourcesFit']);
      return;
    }
    const chosen = waiting.slice(0, need).map((info) => ({
      info,
      attempt: this.pods.attemptOf(info.uid) ?? 0,
    }));
    const trial = tryGroup(this.cluster, chosen, this.now, (pod) => this.cycleFor(pod, false));
    if (trial.kind === 'blocked') {
      const r = trial.result;
      const why = r.kind === 'Error' ? `${r.plugin}: ${r.message}` : r.message;
      const message = blockedMessage(
        key,
        counts.placed + trial.fitted,
        spec.minMember,
        trial.member.info.key,
        why,
      );
      const plugins = r.kind === 'Unschedulable' ? [...r.diagnosis.unschedulablePlugins] : [];
      if (r.kind === 'Unschedulable') this.holdFor(key, trial.placements, spec.timeoutMs);
      this.groupBlocked(key, waiting, message, plugins);
      return;
    }
    if (this.gangs.hold?.key === key) this.releaseHold();
    this.gangs.send(key, { type: 'PLACED', now: this.now });
    for (const p of trial.placements)
      this.decide({
        type: 'PodReserved',
        uid: p.info.uid,
        key: p.info.key,
        attempt: p.attempt,
        node: p.node,
      });
    for (const p of trial.placements)
      this.decide({
        type: 'BindRequested',
        uid: p.info.uid,
        key: p.info.key,
        attempt: p.attempt,
        node: p.node,
      });
    // Members beyond minMember, taken with the group, are scheduled one by one now.
    for (const info of waiting.slice(need)) this.decideCycle(info);
  }

  /**
   * Fairness: group `key` was blocked with `placed` members fitting. If no group ranks
   * before it in the queue (priority, then the time of its first step) and it did not time
   * out lately, it holds those members' nodes (PodHeld: nominated, so pods of lower or equal
   * priority cannot take them) until it is placed, overtaken, or `timeoutMs` has passed.
   * One group holds at a time, so holds never deadlock.
   */
  private holdFor(key: string, placed: readonly GangPlacement[], timeoutMs: number): void {
    if ((this.gangs.cooling.get(key) ?? Number.NEGATIVE_INFINITY) > this.now) return;
    const first = placed[0];
    const current = this.gangs.hold;
    if (first === undefined) {
      if (current?.key === key) this.releaseHold();
      return;
    }
    const rank = {
      key,
      priority: first.info.priority,
      startedAt: this.gangs.contextOf(key)?.startedAt ?? this.now,
    };
    if (current !== undefined && current.key !== key) {
      if (!ranksBefore(rank, current)) return;
      this.releaseHold();
    }
    const kept = new Map((this.gangs.hold?.members ?? []).map((m) => [m.uid, m.node]));
    const members: HeldMember[] = placed.map((p) => ({
      uid: p.info.uid,
      key: p.info.key,
      node: p.node,
    }));
    const now = new Set(members.map((m) => `${m.uid} ${m.node}`));
    for (const m of this.gangs.hold?.members ?? [])
      if (!now.has(`${m.uid} ${m.node}`)) this.clearHeld(m);
    for (const p of placed)
      if (kept.get(p.info.uid) !== p.node)
        this.decide({
          type: 'PodHeld',
          uid: p.info.uid,
          key: p.info.key,
          attempt: p.attempt,
          node: p.node,
          group: key,
        });
    this.gangs.hold = {
      ...rank,
      since: this.gangs.hold?.since ?? this.now,
      timeoutMs,
      members,
    };
  }

  /** Clears the nomination of held member `m`, if it still has it. */
  private clearHeld(m: HeldMember): void {
    const record = this.cluster.pods.get(m.uid);
    if (record === undefined || record.info.nominatedNodeName !== m.node) return;
    this.decide({
      type: 'NominationCleared',
      uid: m.uid,
      key: m.key,
      attempt: this.pods.attemptOf(m.uid) ?? 0,
      node: m.node,
      pod: { uid: m.uid, key: m.key },
    });
  }

  /** Ends the fairness hold, clearing its members' nominations. */
  private releaseHold(): void {
    const hold = this.gangs.hold;
    if (hold === undefined) return;
    this.gangs.hold = undefined;
    for (const m of hold.members) this.clearHeld(m);
  }

  /**
   * Ends the fairness hold; the places held are free again for whoever they turned away,
   * the group's own members too.
   */
  private releaseHoldAndRequeue(): void {
    this.releaseHold();
    const parked = Array.from(this.pods.parked.entries(), ([uid]) => uid).filter(
      (uid) => this.pods.stateOf(uid) === 'unschedulable',
    );
    for (const uid of parked) this.pods.send(uid, { type: 'REQUEUE', now: this.now });
  }

  /**
   * A hold older than its group's schedule timeout is released: an Event says so, the
   * group may not hold again for another timeout, and its parked members retry together.
   */
  private expireHold(): void {
    const hold = this.gangs.hold;
    if (hold === undefined || this.now < hold.since + hold.timeoutMs) return;
    this.releaseHoldAndRequeue();
    const seconds = Math.round(hold.timeoutMs / 1000);
    const reason = `pod group ${hold.key}: not placed within its schedule timeout (${seconds}s); released the ${hold.members.length} node place(s) held for it`;
    this.gangs.cooling.set(hold.key, this.now + hold.timeoutMs);
    this.gangs.send(hold.key, { type: 'TIMED_OUT', reason });
    this.groupEvents.set(hold.key, { type: 'Warning', reason: 'GangTimeout', message: reason });
  }

  /**
   * Group `key`'s members that wait to be placed (queued, parked or backing off), the
   * popped one among them, in the order a gang step takes them.
   */
  private waitingMembers(key: string, popped: PodInfo): PodInfo[] {
    const out: PodInfo[] = [];
    for (const uid of this.gangs.memberUids(key)) {
      const state = uid === popped.uid ? 'pending' : this.pods.stateOf(uid);
      if (state !== 'pending' && state !== 'unschedulable' && state !== 'backoff') continue;
      const record = this.cluster.pods.get(uid);
      if (record === undefined || record.charge.kind !== 'none') continue;
      if (record.info.schedulingGates.length > 0) continue;
      out.push(record.info);
    }
    return out.sort(byGangOrder);
  }

  /**
   * Group `key` cannot take its step (too few members, no PodGroup): the popped member, and
   * the members queued behind it, are parked with `message` until a member or the PodGroup
   * changes.
   */
  private parkGroup(key: string, popped: PodInfo, message: string): void {
    if (this.gangs.hold?.key === key) this.releaseHoldAndRequeue();
    this.gangs.send(key, { type: 'QUORUM_MISSING', reason: message });
    const queued = this.gangs
      .memberUids(key)
      .filter((uid) => uid === popped.uid || this.pods.stateOf(uid) === 'pending');
    for (const uid of queued) {
      const info = this.cluster.pods.get(uid)?.info;
      if (info === undefined || info.schedulingGates.length > 0) continue;
      this.pods.send(uid, { type: 'SCHEDULE' });
      this.decide({ type: 'PodUnschedulable', ...this.refOf(info), message }, ['Coscheduling']);
    }
  }

  /** Group `key`'s step placed nothing: every member it took gets `message`. */
  private groupBlocked(
    key: string,
    members: readonly PodInfo[],
    message: string,
    plugins: readonly string[],
  ): void {
    this.gangs.send(key, { type: 'NOT_PLACED', reason: message });
    for (const info of members)
      this.decide({ type: 'PodUnschedulable', ...this.refOf(info), message }, plugins);
  }

  /**
   * A preemption made room: the preemptor is nominated, each victim evicted (one waiting at
   * Permit is rejected instead, as kube does), lower nominations to the node cleared. When
   * no victim is left to wait for, the preemptor is retried at once.
   */
  private decidePreemption(ref: AttemptRef, message: string, n: Nomination): void {
    this.decide({ type: 'PodNominated', ...ref, node: n.node, message });
    for (const victim of n.victims) {
      const waiting = this.pods.inspect(victim.uid);
      const charge = this.cluster.pods.get(victim.uid)?.charge;
      if (waiting?.state === 'waiting' && charge?.kind === 'assumed') {
        this.decide({
          type: 'PodUnreserved',
          uid: victim.uid,
          key: victim.key,
          attempt: waiting.attempt,
          node: charge.node,
          reason: `preempted by ${ref.key} (${ref.uid})`,
        });
        continue;
      }
      this.decide({
        type: 'VictimPreempted',
        ...ref,
        node: n.node,
        victim: { uid: victim.uid, key: victim.key },
      });
    }
    for (const p of n.clearNominated)
      this.decide({
        type: 'NominationCleared',
        ...ref,
        node: n.node,
        pod: { uid: p.uid, key: p.key },
      });
    if (this.preemptions.victimsLeft(ref.uid) === 0) this.victimsGone(ref.uid);
  }

  /** Every victim of preemptor `uid` is gone: it is scheduled again (after its backoff). */
  private victimsGone(uid: string): void {
    this.preemptions.forget(uid);
    if (this.pods.stateOf(uid) === 'preempting')
      this.pods.send(uid, { type: 'REQUEUE', now: this.now });
  }

  /** Pod `uid` left its node or the cluster: if it was a victim, its preemptors may go on. */
  private noteVictimGone(uid: string): void {
    for (const preemptor of this.preemptions.victimGone(uid))
      if (this.preemptions.victimsLeft(preemptor) === 0) this.victimsGone(preemptor);
  }

  /** Queues the PodScheduled=False report (and FailedScheduling Event) of pod `uid`. */
  private reportUnschedulable(
    uid: string,
    key: string,
    message: string,
    reason: PodScheduledReason = 'Unschedulable',
  ): void {
    this.outbox.push({
      kind: 'unschedulable',
      uid,
      key,
      message,
      generation: this.generationOf(uid),
      reason,
    });
  }

  /** Pod `uid`'s metadata.generation as last seen (0 when unknown). */
  private generationOf(uid: string): number {
    return this.cluster.pods.get(uid)?.info.generation ?? 0;
  }

  /** Stamps, records and applies one decision. */
  private decide(decision: DecisionEvent, plugins: readonly string[] = []): void {
    const env: Envelope<DecisionEvent> = { seq: this.seq + 1, time: this.now, event: decision };
    this.seq = env.seq;
    this.lastTime = env.time;
    this.opts.onEnvelope?.(env);
    this.produced.push(env);
    const change = reduce(this.cluster, env);
    this.applyDecision(decision, plugins);
    this.requeueHelped(change);
    this.opts.onApplied?.(env, this.cluster);
  }

  private applyDecision(d: DecisionEvent, plugins: readonly string[]): void {
    switch (d.type) {
      case 'PodReserved':
        // The charge is assumed (reduced above); the machine moves with Permit's verdict.
        return;
      case 'PodWaiting':
        this.pods.send(d.uid, { type: 'RESERVED', node: d.node, permit: 'wait' });
        this.pods.armPermit(d, this.now + d.timeoutMs);
        return;
      case 'BindRequested':
        if (this.pods.stateOf(d.uid) === 'waiting') {
          this.pods.send(d.uid, { type: 'ALLOWED' });
          this.pods.disarmPermit(d.uid);
        } else {
          this.pods.send(d.uid, { type: 'RESERVED', node: d.node, permit: 'allow' });
        }
        this.outbox.push({
          kind: 'bind',
          attempt: { uid: d.uid, key: d.key, attempt: d.attempt },
          node: d.node,
        });
        return;
      case 'PodUnreserved':
        this.pods.send(d.uid, { type: 'UNRESERVED', reason: d.reason, now: this.now });
        return;
      case 'PodUnschedulable':
        this.pods.send(d.uid, {
          type: 'UNSCHEDULABLE',
          message: d.message,
          plugins,
          now: this.now,
        });
        this.reportUnschedulable(d.uid, d.key, d.message);
        return;
      case 'CycleFailed':
        this.pods.send(d.uid, {
          type: 'CYCLE_FAILED',
          message: `${d.plugin}: ${d.message}`,
          now: this.now,
        });
        return;
      case 'PodNominated':
        this.pods.send(d.uid, {
          type: 'PREEMPTING',
          node: d.node,
          message: d.message,
          now: this.now,
        });
        this.preemptions.start(d.uid, d.node);
        this.reportUnschedulable(d.uid, d.key, d.message);
        this.outbox.push({ kind: 'nominate', pod: { uid: d.uid, key: d.key }, node: d.node });
        return;
      case 'VictimPreempted': {
        const charge = this.cluster.pods.get(d.victim.uid)?.charge;
        if (charge !== undefined && charge.kind !== 'none' && charge.node === d.node)
          this.preemptions.addVictim(d.uid, d.victim.uid);
        this.outbox.push({
          kind: 'preempt',
          preemptor: { uid: d.uid, key: d.key, attempt: d.attempt },
          schedulerName: this.cluster.pods.get(d.uid)?.info.schedulerName ?? '',
          victim: d.victim,
          node: d.node,
          generation: this.generationOf(d.victim.uid),
        });
        return;
      }
      case 'NominationCleared':
        this.outbox.push({ kind: 'nominate', pod: d.pod, node: undefined });
        return;
      case 'PodHeld':
        this.outbox.push({ kind: 'nominate', pod: { uid: d.uid, key: d.key }, node: d.node });
        return;
      default: {
        const unreachable: never = d;
        throw new Error(`unhandled decision ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private route(event: InputEvent, change: ClusterChange): void {
    switch (event.type) {
      case 'PodUpserted':
      case 'PodDeleted':
        if (change.kind === 'pod') this.onPodChange(change);
        return;
      case 'ResyncDone':
        // PodGroups relisted (or found unserved): members waiting for their group look again.
        if (event.kind === 'PodGroup') this.requeueParked('Coscheduling');
        if (change.kind !== 'resync') return;
        for (const r of change.removedPods) {
          this.noteVictimGone(r.info.uid);
          this.gangs.notePod(r.info, undefined);
          this.podGone(r.info);
        }
        return;
      case 'BindSucceeded':
        this.onBindSucceeded(event.uid, event.key, event.attempt, event.node);
        return;
      case 'BindFailed':
        if (this.isCurrentAttempt(event.uid, event.attempt, 'binding')) {
          this.pods.send(event.uid, { type: 'BIND_FAILED', message: event.message, now: this.now });
          // Refused (403, 422, 5xx, no answer): kube's SchedulerError. A Conflict or NotFound
          // means the pod is gone, recreated or bound by someone else: the watch tells.
          if (event.reason === 'Error')
            this.reportUnschedulable(
              event.uid,
              event.key,
              bindErrorMessage(event.message),
              'SchedulerError',
            );
          this.memberLost(
            event.uid,
            `${event.key} lost its place: binding failed: ${event.message}`,
          );
        }
        return;
      case 'PreemptionFailed':
        if (this.isCurrentAttempt(event.uid, event.attempt, 'preempting')) {
          this.preemptions.forget(event.uid);
          const message = `evicting ${event.victim.key} from ${event.node}: ${event.message}`;
          this.pods.send(event.uid, { type: 'PREEMPTION_FAILED', message, now: this.now });
          // Its PodScheduled=False said it waits for the victims: say that this failed. An
          // eviction the API server refused is an error, not a lack of room (kube: Error status).
          this.reportUnschedulable(
            event.uid,
            event.key,
            `preemption failed: ${message}`,
            'SchedulerError',
          );
        }
        return;
      case 'TimerFired':
        this.onTimer(event);
        return;
      case 'NodeUpserted':
      case 'NodeDeleted':
      case 'ObjectUpserted':
      case 'ObjectDeleted':
      case 'ResyncStarted':
      case 'LeadershipChanged':
        return;
      default: {
        const unreachable: never = event;
        throw new Error(`unhandled event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private isCurrentAttempt(uid: string, attempt: number, state: string): boolean {
    const m = this.pods.inspect(uid);
    return m !== undefined && m.attempt === attempt && m.state === state;
  }

  private onBindSucceeded(uid: string, key: string, attempt: number, node: string): void {
    if (this.isCurrentAttempt(uid, attempt, 'binding')) {
      this.pods.send(uid, { type: 'BIND_SUCCEEDED' });
      this.outbox.push({ kind: 'scheduled', uid, key, node });
      return;
    }
    // The watch may have shown the pod bound first (its machine has ended): still report it.
    const record = this.cluster.pods.get(uid);
    if (!this.pods.has(uid) && record?.info.nodeName === node)
      this.outbox.push({ kind: 'scheduled', uid, key, node });
  }

  private onPodChange(change: Extract<ClusterChange, { kind: 'pod' }>): void {
    if (this.preemptions.hasVictims()) {
      // A victim is gone once it is deleted, replaced, finished or off its node.
      if (change.replaced !== undefined) this.noteVictimGone(change.replaced.info.uid);
      const node = this.preemptions.victimNode(change.uid);
      const after = change.after?.charge;
      if (
        node !== undefined &&
        (after === undefined || after.kind === 'none' || after.node !== node)
      )
        this.noteVictimGone(change.uid);
    }
    this.noteGroupMembers(change);
    if (change.replaced !== undefined) this.podGone(change.replaced.info);
    if (change.after === undefined) {
      if (change.before !== undefined) this.podGone(change.before.info);
      return;
    }
    const { info, charge } = change.after;
    if (!this.profiles.has(info.schedulerName)) return;
    const uid = info.uid;
    if (info.nodeName !== undefined) {
      this.preemptions.forget(uid);
      this.pods.send(uid, { type: 'BOUND', node: info.nodeName });
      this.memberBound(info);
      return;
    }
    if (info.terminating || info.phase === 'Succeeded' || info.phase === 'Failed') {
      this.pods.send(uid, { type: 'DELETED' });
      return;
    }
    const machine = this.pods.inspect(uid);
    if (machine === undefined) {
      this.pods.spawn(info);
      return;
    }
    // kube's IsAssumedPod rule: a reserved pod's own updates never re-queue it.
    if (charge.kind === 'assumed') return;
    if (machine.state === 'gated') {
      if (info.schedulingGates.length === 0) this.pods.send(uid, { type: 'UNGATED' });
      return;
    }
    // The pod's own spec changed: re-order it if queued, retry it if parked (kube does both).
    if (machine.state === 'pending') this.pods.reorder(uid);
    else if (machine.state === 'unschedulable')
      this.pods.send(uid, { type: 'REQUEUE', now: this.now });
  }

  /** Keeps the group member index current with a pod change (gang scheduling only). */
  /** The pod of a change's side if it is a gang member berth schedules (a method: no closure per change). */
  private gangMemberOf(r: { info: PodInfo } | undefined): PodInfo | undefined {
    return r !== undefined && this.isGangMember(r.info) ? r.info : undefined;
  }

  private noteGroupMembers(change: Extract<ClusterChange, { kind: 'pod' }>): void {
    if (this.opts.config.gangs === undefined) return;
    if (change.replaced !== undefined)
      this.gangs.notePod(this.gangMemberOf(change.replaced), undefined);
    const before = this.gangMemberOf(change.before);
    const after = this.gangMemberOf(change.after);
    if (before !== undefined || after !== undefined) this.gangs.notePod(before, after);
    // A member of the holding group left: the hold may be more than the group can use now.
    const hold = this.gangs.hold;
    const left = change.replaced?.info ?? (after === undefined ? before : undefined);
    if (hold !== undefined && left !== undefined && this.groupOf(left) === hold.key)
      this.releaseHoldAndRequeue();
  }

  /** Member `info` is bound: its group is running once minMember members are. */
  private memberBound(info: PodInfo): void {
    const key = this.groupOf(info);
    if (key === undefined || this.gangs.stateOf(key) !== 'binding') return;
    const spec = this.groupSpec(key);
    if ('missing' in spec) return;
    if (this.gangs.counts(key, this.cluster).scheduled >= spec.minMember)
      this.gangs.send(key, { type: 'ALL_BOUND' });
  }

  /** Member `uid` of a placed group lost its place: the group re-plans the missing members. */
  private memberLost(uid: string, reason: string): void {
    const info = this.cluster.pods.get(uid)?.info;
    const key = info === undefined ? undefined : this.groupOf(info);
    if (key === undefined) return;
    const state = this.gangs.stateOf(key);
    if (state === 'binding' || state === 'running')
      this.gangs.send(key, { type: 'MEMBER_LOST', reason: `pod group ${key}: ${reason}` });
  }

  /** Moves back every parked pod that `plugin` rejected. */
  private requeueParked(plugin: string): void {
    const moving: string[] = [];
    for (const [uid, entry] of this.pods.parked.entries())
      if (entry.plugins.includes(plugin)) moving.push(uid);
    for (const uid of moving) this.pods.send(uid, { type: 'REQUEUE', now: this.now });
  }

  private podGone(info: PodInfo): void {
    this.preemptions.forget(info.uid);
    this.pods.send(info.uid, { type: 'DELETED' });
    this.outbox.push({ kind: 'forget', uid: info.uid, key: info.key });
  }

  private onTimer(event: Extract<InputEvent, { type: 'TimerFired' }>): void {
    if (event.timer === 'flush') {
      this.expireHold();
      for (const [key, until] of this.gangs.cooling)
        if (until <= this.now) this.gangs.cooling.delete(key);
      const stale = this.pods.parked.parkedLongerThan(this.now, this.opts.config.maxParkedMs);
      for (const uid of stale) this.pods.send(uid, { type: 'REQUEUE', now: this.now });
      this.startFlushTimer(this.now);
      return;
    }
    if (typeof event.uid !== 'string') return;
    if (event.timer === 'backoff') {
      this.pods.fireBackoff(event.uid);
      return;
    }
    // The permit timer: a pod still waiting gives up its reservation.
    this.pods.permitFired(event.uid, this.now);
    const m = this.pods.inspect(event.uid);
    const node = this.cluster.pods.get(event.uid)?.charge;
    if (m?.state !== 'waiting' || node?.kind !== 'assumed') return;
    this.decide({
      type: 'PodUnreserved',
      uid: event.uid,
      key: m.key,
      attempt: m.attempt,
      node: node.node,
      reason: 'timed out waiting at permit',
    });
  }

  /** Moves back the parked pods that `change` could help, by the rejecting plugins' hints. */
  private requeueHelped(change: ClusterChange): void {
    const parked = this.pods.parked;
    if (parked.size === 0 || change === NO_CHANGE || change.kind === 'none') return;
    const moving: string[] = [];
    if (this.profiles.size === 1) {
      const hints = this.ctx.profile.queueingHints;
      const helped = pluginsHelpedBy(change, hints);
      for (const [uid, entry] of parked.entries())
        if (changeCouldHelp(entry, helped, hints)) moving.push(uid);
    } else {
      // Each parked pod is judged by its own profile's hints, computed once per profile.
      const helpedBy = new Map<string, Set<string>>();
      for (const [uid, entry] of parked.entries()) {
        const name = this.cluster.pods.get(uid)?.info.schedulerName ?? '';
        const hints = (this.profiles.get(name)?.profile ?? this.ctx.profile).queueingHints;
        let helped = helpedBy.get(name);
        if (helped === undefined) {
          helped = pluginsHelpedBy(change, hints);
          helpedBy.set(name, helped);
        }
        if (changeCouldHelp(entry, helped, hints)) moving.push(uid);
      }
    }
    const holder = this.gangs.hold?.key;
    for (const uid of moving) {
      const info = holder === undefined ? undefined : this.cluster.pods.get(uid)?.info;
      const retry = info !== undefined && this.groupOf(info) === holder;
      this.pods.send(uid, retry ? { type: 'RETRY' } : { type: 'REQUEUE', now: this.now });
    }
  }

  /** When the group of pod `uid` took its first step (its place in the queue), if it did. */
  private groupQueueTime(uid: string): number | undefined {
    const info = this.cluster.pods.get(uid)?.info;
    const key = info === undefined ? undefined : this.groupOf(info);
    const started = key === undefined ? undefined : this.gangs.contextOf(key)?.startedAt;
    return started === undefined || started === 0 ? undefined : started;
  }

  private takeProduced(): Envelope<DecisionEvent>[] {
    if (this.produced.length === 0) return [];
    const out = this.produced;
    this.produced = [];
    return out;
  }

  /** Queues the status reports of the groups that changed (gang scheduling only). */
  private queueGroupReports(): void {
    // Checked here, not only inside takeReports: this runs after every input, and most
    // change no group (no callbacks made for nothing).
    if (this.opts.config.gangs === undefined) return;
    if (!this.gangs.changed && this.groupEvents.size === 0) return;
    const reports = this.gangs.takeReports(
      this.cluster,
      (key) => {
        const spec = this.groupSpec(key);
        return 'missing' in spec ? undefined : spec.minMember;
      },
      (uid) => this.pods.has(uid),
      this.groupEvents,
    );
    this.groupEvents.clear();
    for (const report of reports) this.outbox.push({ kind: 'group', report });
  }

  private flushOutbox(): void {
    this.queueGroupReports();
    if (this.outbox.length === 0) return;
    const commands = this.outbox.splice(0);
    const effects = this.opts.effects;
    for (const c of commands) {
      if (c.kind === 'bind') effects.bind(c.attempt, c.node);
      else if (c.kind === 'unschedulable')
        effects.reportUnschedulable?.(
          { uid: c.uid, key: c.key },
          c.message,
          c.generation,
          c.reason,
        );
      else if (c.kind === 'scheduled')
        effects.reportScheduled?.({ uid: c.uid, key: c.key }, c.node);
      else if (c.kind === 'preempt')
        effects.preempt?.(c.preemptor, c.schedulerName, c.victim, c.node, c.generation);
      else if (c.kind === 'nominate') effects.nominate?.(c.pod, c.node);
      else if (c.kind === 'group') effects.reportGroup?.(c.report);
      else effects.forgetPod?.({ uid: c.uid, key: c.key });
    }
  }
}

/** The Coscheduling hint: a member or a PodGroup changed, or PodGroups were relisted. */
function groupCouldMove(change: ClusterChange): boolean {
  if (change.kind === 'object') return change.objectKind === 'PodGroup';
  if (change.kind === 'resync') return true;
  if (change.kind !== 'pod') return false;
  const info = change.after?.info ?? change.before?.info;
  return info !== undefined && podGroupKeyOf(info) !== undefined;
}
