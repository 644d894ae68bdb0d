// The core's state between envelopes and the step being built: what every planner reads and the loop writes.
import { corePodGroupKeyOfGroup, groupKeyOf } from '../cluster/core-pod-groups.ts';
import { podGroupClaimsRefusal } from '../cluster/pod-group-claims.ts';
import { initialState } from '../cluster/reducer.ts';
import type { ClusterChange, ClusterState, PodInfo } from '../cluster/types.ts';
import type {
  AttemptRef,
  DecisionEvent,
  Envelope,
  InputEvent,
  PodRef,
  PodTimerId,
} from '../events/types.ts';
import type { SchedulingContext } from '../framework/cycle.ts';
import type { Profile } from '../framework/types.ts';
import { BindingWaits } from './binding-waits.ts';
import type { BinderCommand, Command, ReportCommand, TimerCommand } from './commands.ts';
import { type BerthConfig, emulatedReleaseOf, type ProfileInUse, profilesOf } from './config.ts';
import { Gangs, type GroupSpec } from './gangs.ts';
import { PodActors } from './pod-actors.ts';
import type { GroupReport, TimerPort } from './ports.ts';
import { Preemptions } from './preemptions.ts';
import { type TrackedRng, trackedRng } from './snapshot.ts';

/**
 * Observes each envelope before and after it is applied, with the cluster state (tests
 * check invariants here). An observer only reads: it is never where an effect goes.
 */
export type EnvelopeInspector = (
  phase: 'before' | 'after',
  env: Envelope,
  state: ClusterState,
) => void;

/** What one call into the core produced, in order: the runtime records, then executes. */
export interface Step {
  /** The input this step applied, stamped (absent for a cycle). */
  input?: Envelope<InputEvent>;
  /** The decisions made, stamped and already applied to the core's state. */
  decisions: Envelope<DecisionEvent>[];
  /** The commands to carry out after the input and decisions are recorded. */
  commands: Command[];
}

/** Group `key`'s minMember and timeout, or why the group cannot be read. */
export type GroupSpecOrMissing =
  | Pick<GroupSpec, 'minMember' | 'timeoutMs' | 'topologyKeys'>
  | { missing: string };

/**
 * Everything the core knows, in one place: the cluster state, the pod and group machines,
 * preemptions in flight, the profiles, the generator and the logical clock, plus the step
 * being built (decisions made and commands queued). Only the core's own modules change it.
 */
export class CoreState {
  cluster: ClusterState;
  readonly pods: PodActors;
  /** Preemptors waiting for their victims to go. */
  preemptions = new Preemptions();
  /** Binds held at PreBind until their devices' binding conditions are True (DRA). */
  bindingWaits = new BindingWaits();
  /** Pod groups: members, machines, status reports (gang scheduling on when configured). */
  readonly gangs = new Gangs();
  /** Events to add to groups' next status reports, by group. */
  readonly groupEvents = new Map<string, NonNullable<GroupReport['event']>>();
  /** The profile of each scheduler name berth answers to; pods naming another are not berth's. */
  readonly profiles: ReadonlyMap<string, ProfileInUse>;
  /** One walk cursor and one generator for every profile, as kube's scheduler has. */
  readonly ctx: SchedulingContext;
  rng: TrackedRng;
  /** The last sequence number used. */
  seq = 0;
  /** The logical time of the input or cycle being applied. */
  now = 0;
  /** The logical time of the last envelope (a cycle that decided nothing leaves no trace). */
  lastTime = 0;
  flushDeadline: number | undefined;
  /** The step being built: decisions made and commands queued since the last `takeStep`. */
  private decisions: Envelope<DecisionEvent>[] = [];
  /** Timer commands go out before the others of their step, as the machines armed them. */
  private timers: TimerCommand[] = [];
  private commands: Command[] = [];

  constructor(
    readonly config: BerthConfig,
    seed: number,
    profile?: Profile,
    readonly inspect?: EnvelopeInspector,
  ) {
    this.rng = trackedRng(seed);
    this.cluster = initialState(emulatedReleaseOf(config));
    const inUse = profilesWithGroupHint(config, profile);
    this.profiles = new Map(inUse.map((p) => [p.schedulerName, p]));
    const first = inUse[0] as ProfileInUse;
    this.ctx = {
      profile: first.profile,
      rng: this.rng,
      cursor: { next: 0 },
      percentageOfNodesToScore: first.percentageOfNodesToScore,
    };
    this.pods = new PodActors({
      backoff: config.backoff,
      timers: this.timerCommands,
      now: () => this.now,
      podInfo: (uid) => this.cluster.pods.get(uid)?.info,
      groupQueueTime: (uid) => this.groupQueueTime(uid),
    });
  }

  /** Queues `command` to go out after this step is recorded. */
  command(command: BinderCommand | ReportCommand): void {
    this.commands.push(command);
  }

  /** Records a stamped decision in the step being built. */
  recordDecision(env: Envelope<DecisionEvent>): void {
    this.decisions.push(env);
  }

  /** Ends the step being built and returns it. */
  takeStep(input?: Envelope<InputEvent>): Step {
    const commands =
      this.timers.length === 0
        ? this.commands
        : this.commands.length === 0
          ? this.timers
          : [...this.timers, ...this.commands];
    const step: Step = { decisions: this.decisions, commands };
    if (input !== undefined) step.input = input;
    if (this.decisions.length > 0) this.decisions = [];
    if (this.timers.length > 0) this.timers = [];
    if (this.commands.length > 0) this.commands = [];
    return step;
  }

  /** The machines' timers, armed as commands of the step being built. */
  private readonly timerCommands: TimerPort = {
    armPod: (pod, timer, deadline) =>
      this.timers.push({
        kind: 'armPodTimer',
        pod: { uid: pod.uid, key: pod.key },
        timer,
        deadline,
      }),
    disarmPod: (uid, timer) => this.timers.push({ kind: 'disarmPodTimer', uid, timer }),
    armFlush: (deadline) => this.timers.push({ kind: 'armFlushTimer', deadline }),
  };

  /** Arms pod timer (`pod.uid`, `timer`) at logical time `deadline` (arming again replaces). */
  armPodTimer(pod: PodRef, timer: PodTimerId, deadline: number): void {
    this.timerCommands.armPod(pod, timer, deadline);
  }

  /** Disarms pod timer (`uid`, `timer`) if armed. */
  disarmPodTimer(uid: string, timer: PodTimerId): void {
    this.timerCommands.disarmPod(uid, timer);
  }

  /** Arms the periodic flush of the unschedulable pool, from logical time `now`. */
  armFlush(now: number): void {
    this.armFlushAt(now + this.config.flushIntervalMs);
  }

  /** Arms the periodic flush of the unschedulable pool at logical time `deadline`. */
  armFlushAt(deadline: number): void {
    this.flushDeadline = deadline;
    this.timerCommands.armFlush(deadline);
  }

  /** The attempt of pod `pod` its machine is on now. */
  refOf(pod: { uid: string; key: string }): AttemptRef {
    return { uid: pod.uid, key: pod.key, attempt: this.pods.attemptOf(pod.uid) ?? 0 };
  }

  /** Pod `uid`'s metadata.generation as last seen (0 when unknown). */
  generationOf(uid: string): number {
    return this.cluster.pods.get(uid)?.info.generation ?? 0;
  }

  /** The group pod `info` joins when gang scheduling is on, else undefined. */
  groupOf(info: PodInfo): string | undefined {
    return this.config.gangs === undefined ? undefined : groupKeyOf(info);
  }

  /** True when pod `info` is a member of a group berth schedules (one of its profiles' pods). */
  isGangMember(info: PodInfo): boolean {
    return this.profiles.has(info.schedulerName) && this.groupOf(info) !== undefined;
  }

  /** Group `key`'s minMember and timeout, or why the group cannot be read. */
  groupSpec(key: string): GroupSpecOrMissing {
    const core = corePodGroupKeyOfGroup(key);
    if (core !== undefined) return this.groupClaimsRefusal(core) ?? this.corePodGroupSpec(core);
    const unavailable = this.cluster.unavailable.PodGroup;
    if (unavailable !== undefined)
      return {
        missing: `the PodGroup API (scheduling.x-k8s.io/v1alpha1) is not served: ${unavailable}`,
      };
    const pg = this.cluster.objects.PodGroup.get(key);
    if (pg === undefined) return { missing: `PodGroup ${key} not found` };
    const timeoutMs = pg.scheduleTimeoutMs ?? this.config.gangs?.scheduleTimeoutMs ?? 60_000;
    if (pg.topologyProblem !== undefined) return { missing: pg.topologyProblem };
    // The core PodGroup's schedulingConstraints.topology[].key fills topologyKeys the same way.
    return { minMember: pg.minMember, timeoutMs, topologyKeys: pg.topologyKeys };
  }

  /**
   * Core PodGroup `key`'s (scheduling.k8s.io/v1beta1) minMember: a gang's minCount, 1 for
   * `basic` (no group constraint); its wait is kube's GangScheduling Permit timeout.
   */
  private corePodGroupSpec(key: string): GroupSpecOrMissing {
    const unavailable = this.cluster.unavailable.CorePodGroup;
    if (unavailable !== undefined)
      return {
        missing: `the PodGroup API (scheduling.k8s.io/v1beta1) is not served: ${unavailable}`,
      };
    const pg = this.cluster.objects.CorePodGroup.get(key);
    if (pg === undefined)
      return { missing: `PodGroup ${key} (scheduling.k8s.io/v1beta1) not found` };
    if (pg.unusable !== undefined)
      return { missing: `PodGroup ${key} (scheduling.k8s.io/v1beta1) is invalid: ${pg.unusable}` };
    // schedulingConstraints.topology[0].key: kube's TopologyPlacementGenerator reads the first.
    return {
      minMember: pg.minCount,
      timeoutMs: corePermitTimeoutMs,
      topologyKeys: pg.topologyKeys,
    };
  }

  /** Core group `key`'s PodGroup `pgKey` refused for its invalid claims (see podGroupClaimsRefusal). */
  private groupClaimsRefusal(pgKey: string): { missing: string } | undefined {
    const claims = this.cluster.objects.CorePodGroup.get(pgKey)?.resourceClaims;
    const refusal = claims === undefined ? undefined : podGroupClaimsRefusal(pgKey, claims);
    return refusal === undefined ? undefined : { missing: refusal };
  }

  /** When the group of pod `uid` took its first step (its place in the queue), if it did. */
  private groupQueueTime(uid: string): number | undefined {
    const info = this.cluster.pods.get(uid)?.info;
    const key = info === undefined ? undefined : this.groupOf(info);
    const started = key === undefined ? undefined : this.gangs.contextOf(key)?.startedAt;
    return started === undefined || started === 0 ? undefined : started;
  }
}

/**
 * The profiles berth schedules with: `profile` alone for `config.schedulerName` (tests), else
 * those `config` names; members waiting for their group are parked under 'Coscheduling'.
 */
function profilesWithGroupHint(config: BerthConfig, profile?: Profile): ProfileInUse[] {
  const inUse: ProfileInUse[] =
    profile === undefined
      ? profilesOf(config)
      : [
          {
            schedulerName: config.schedulerName,
            profile,
            percentageOfNodesToScore: config.percentageOfNodesToScore,
          },
        ];
  for (const p of inUse)
    p.profile = {
      ...p.profile,
      queueingHints: new Map([...p.profile.queueingHints, ['Coscheduling', groupCouldMove]]),
    };
  return inUse;
}

/** How long kube's GangScheduling lets a gang's members wait at Permit (5 min, 1.37.2). */
const corePermitTimeoutMs = 5 * 60_000;

/** The Coscheduling hint: a member or a PodGroup (either API) changed, or PodGroups were relisted. */
function groupCouldMove(change: ClusterChange): boolean {
  if (change.kind === 'object')
    return change.objectKind === 'PodGroup' || change.objectKind === 'CorePodGroup';
  if (change.kind === 'resync') return true;
  if (change.kind !== 'pod') return false;
  const info = change.after?.info ?? change.before?.info;
  return info !== undefined && groupKeyOf(info) !== undefined;
}
