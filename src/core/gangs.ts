// The pod groups the core knows: members by group, each group's machine while it has members in flight, and their status reports.
import type { GroupContext, GroupEvent, GroupStateName } from '../../machines/pod-group.machine.ts';
import { corePodGroupKeyOfGroup, groupKeyOf } from '../cluster/core-pod-groups.ts';
import type { ClusterState, PodInfo } from '../cluster/types.ts';
import { isTerminal } from '../model/phase.ts';
import { type GroupRunner, groupRunner } from './core-machines.ts';
import type { MachineActor } from './machine-runner.ts';
import type { GroupCondition, GroupPhase, GroupReport } from './ports.ts';
import { SnapshotError } from './snapshot-error.ts';

type GroupActor = MachineActor<GroupContext, GroupEvent, GroupStateName>;

/** What the core's model of a group needs, whatever API it comes from. */
export interface GroupSpec {
  /** The group's id (`namespace/name`). */
  key: string;
  minMember: number;
  /** How long the group may stay partially placed (reserved, waiting) before it is released. */
  timeoutMs: number;
  /**
   * Node label keys the members must share one value of (one rack, block, NVLink domain);
   * empty: no topology constraint. Only the first is used (as kube 1.37's TAS does).
   */
  topologyKeys: readonly string[];
}

/** One group machine as a snapshot holds it. */
export interface GroupData {
  key: string;
  state: string;
  steps: number;
  startedAt: number;
  placedAt: number;
  reason: string | null;
}

/** A member of the holding group, nominated to the node it keeps. */
export interface HeldMember {
  uid: string;
  key: string;
  node: string;
}

/**
 * The fairness hold: the first blocked group in queue order keeps the nodes where its
 * members fitted (as nominations) while it waits for room for the rest, at most
 * `timeoutMs` from `since`.
 */
export interface GroupHold {
  key: string;
  /** The group's rank: its first member's priority, then when its first step ran. */
  priority: number;
  startedAt: number;
  since: number;
  timeoutMs: number;
  members: HeldMember[];
}

/** The fairness state as a snapshot holds it. */
export interface GroupHoldData {
  hold: GroupHold | null;
  /** Groups whose hold timed out, barred from holding again until the time given. */
  cooling: [string, number][];
}

/** True when a group of `a`'s rank comes before one of `b`'s in the queue. */
export function ranksBefore(
  a: Pick<GroupHold, 'priority' | 'startedAt' | 'key'>,
  b: Pick<GroupHold, 'priority' | 'startedAt' | 'key'>,
): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.startedAt !== b.startedAt) return a.startedAt < b.startedAt;
  return a.key < b.key;
}

/** How a group's members stand, counted from the cluster state. */
export interface MemberCounts {
  /** Members bound or reserved (charged to a node), not finished. */
  placed: number;
  /** Members bound (`spec.nodeName` set). */
  scheduled: number;
  running: number;
  succeeded: number;
  failed: number;
  /** Members not finished or terminating (the ones that can count for the quorum). */
  present: number;
  /** Of `present`, the members with scheduling gates. */
  gated: number;
}

const noHooks = {
  effect: () => {},
  armDelay: () => {},
  cancelDelay: () => {},
};

/**
 * The groups' side of the core: which pods belong to which group (by the pod-group label
 * or `spec.schedulingGroup`; pods of berth's profiles only), a machine per group while any
 * member is in flight, and the status each group last reported. The member index is derived
 * from the cluster state (rebuilt on restore); the machines are in the snapshot.
 */
export class Gangs {
  private readonly members = new Map<string, Set<string>>();
  private readonly actors = new Map<string, GroupActor>();
  /** What runs the machines: chosen once, when the gangs are made. */
  private readonly runner: GroupRunner = groupRunner();
  private readonly dirty = new Set<string>();
  private readonly reported = new Map<string, string>();
  /** Core PodGroups' PodGroupInitiallyScheduled condition after their last step (a report: not snapshotted). */
  private readonly conditions = new Map<string, GroupCondition>();
  /** The group holding nodes for fairness, if any. */
  hold: GroupHold | undefined;
  /** Groups whose hold timed out: no new hold before the time given. */
  readonly cooling = new Map<string, number>();

  /** Pod `before` became `after` (either may be undefined): keeps the member index. */
  notePod(before: PodInfo | undefined, after: PodInfo | undefined): void {
    const was = before === undefined ? undefined : groupKeyOf(before);
    const now = after === undefined ? undefined : groupKeyOf(after);
    if (was !== undefined && (was !== now || after?.uid !== before?.uid)) {
      const set = this.members.get(was);
      set?.delete((before as PodInfo).uid);
      if (set?.size === 0) this.members.delete(was);
      this.dirty.add(was);
    }
    if (now !== undefined) {
      let set = this.members.get(now);
      if (set === undefined) {
        set = new Set();
        this.members.set(now, set);
      }
      set.add((after as PodInfo).uid);
      this.dirty.add(now);
    }
  }

  /** The uids of group `key`'s members (any state), in the order they joined. */
  memberUids(key: string): readonly string[] {
    const set = this.members.get(key);
    return set === undefined ? [] : [...set];
  }

  /** Counts group `key`'s members by where they stand. */
  counts(key: string, cluster: ClusterState): MemberCounts {
    const c: MemberCounts = {
      placed: 0,
      scheduled: 0,
      running: 0,
      succeeded: 0,
      failed: 0,
      present: 0,
      gated: 0,
    };
    for (const uid of this.members.get(key) ?? []) {
      const record = cluster.pods.get(uid);
      if (record === undefined) continue;
      const { info, charge } = record;
      if (info.phase === 'Succeeded') c.succeeded++;
      else if (info.phase === 'Failed') c.failed++;
      else if (info.phase === 'Running') c.running++;
      if (info.nodeName !== undefined) c.scheduled++;
      if (isTerminal(info.phase) || info.terminating) continue;
      c.present++;
      if (info.schedulingGates.length > 0) c.gated++;
      if (charge.kind !== 'none') c.placed++;
    }
    return c;
  }

  /**
   * Group `key`'s priority: a core PodGroup's `spec.priority` (0 when unset; kube's
   * PodGroupPriority, which its members must all have), else the highest priority among its
   * members not finished or terminating — the priority of its first member in gang order,
   * which the fairness hold ranks groups by. Gang preemption evicts only what is strictly
   * lower, and a group is a victim only at this priority. Undefined when neither is known.
   */
  priority(key: string, cluster: ClusterState): number | undefined {
    const core = corePodGroupKeyOfGroup(key);
    const pg = core === undefined ? undefined : cluster.objects.CorePodGroup.get(core);
    if (pg !== undefined) return pg.priority;
    let highest: number | undefined;
    for (const uid of this.members.get(key) ?? []) {
      const info = cluster.pods.get(uid)?.info;
      if (info === undefined || isTerminal(info.phase) || info.terminating) continue;
      if (highest === undefined || info.priority > highest) highest = info.priority;
    }
    return highest;
  }

  /** Group `key`'s machine state, or undefined when it has no machine. */
  stateOf(key: string): GroupStateName | undefined {
    return this.actors.get(key)?.state;
  }

  /** Group `key`'s machine context, if it has a machine. */
  contextOf(key: string): Readonly<GroupContext> | undefined {
    return this.actors.get(key)?.context;
  }

  /**
   * Sends `event` to group `key`'s machine, creating the machine first if it has none.
   * Returns true when the machine handled the event (took a transition), false when it
   * ignored it.
   */
  send(key: string, event: GroupEvent): boolean {
    let actor = this.actors.get(key);
    if (actor === undefined) {
      actor = this.runner.spawn({ key }, noHooks);
      this.actors.set(key, actor);
    }
    const handled = actor.send(event);
    this.dirty.add(key);
    return handled;
  }

  /** True when group `key` has a machine that would handle `event` now (XState's `can`). */
  can(key: string, event: GroupEvent): boolean {
    return this.actors.get(key)?.can(event) ?? false;
  }

  /**
   * Sets core group `key`'s PodGroupInitiallyScheduled condition after a step; a True one
   * is never set back to False (kube's rule: the condition is terminal once True).
   */
  setCondition(key: string, condition: GroupCondition): void {
    if (condition.status === 'False' && this.conditions.get(key)?.status === 'True') return;
    this.conditions.set(key, condition);
    this.dirty.add(key);
  }

  /** Marks group `key` as changed (its status is reported again if it differs). */
  touch(key: string): void {
    this.dirty.add(key);
  }

  /** True when some group changed since the last `takeReports` (it may have a report). */
  get changed(): boolean {
    return this.dirty.size !== 0;
  }

  /**
   * The status reports of the groups changed since the last call that differ from what
   * was last reported; drops the machines of groups with no member in flight.
   * `inFlight(uid)` says whether a pod has a live machine; `event` adds an Event to a
   * group's report.
   */
  takeReports(
    cluster: ClusterState,
    minMemberOf: (key: string) => number | undefined,
    inFlight: (uid: string) => boolean,
    events: ReadonlyMap<string, NonNullable<GroupReport['event']>>,
  ): GroupReport[] {
    if (this.dirty.size === 0) return [];
    const out: GroupReport[] = [];
    for (const key of this.dirty) {
      const min = minMemberOf(key);
      const report = min === undefined ? undefined : this.report(key, min, cluster);
      const event = events.get(key);
      if (report !== undefined) {
        const text = JSON.stringify(report);
        if (text !== this.reported.get(key) || event !== undefined) {
          this.reported.set(key, text);
          out.push(event === undefined ? report : { ...report, event });
        }
      }
      if (!this.memberUids(key).some(inFlight)) this.actors.delete(key);
      if (!this.members.has(key)) {
        this.reported.delete(key);
        this.conditions.delete(key);
      }
    }
    this.dirty.clear();
    return out;
  }

  private report(key: string, minMember: number, cluster: ClusterState): GroupReport {
    const c = this.counts(key, cluster);
    const context = this.actors.get(key)?.context;
    const state = this.actors.get(key)?.state;
    let phase: GroupPhase = 'Pending';
    if (c.succeeded >= minMember) phase = 'Finished';
    else if (c.failed > 0) phase = 'Failed';
    else if (c.running + c.succeeded >= minMember) phase = 'Running';
    else if (c.scheduled >= minMember) phase = 'Scheduled';
    else if (state === 'binding' || c.placed >= minMember) phase = 'Scheduling';
    const condition = this.conditions.get(key);
    return {
      key,
      phase,
      ...(condition === undefined ? {} : { initiallyScheduled: condition }),
      scheduled: c.scheduled,
      running: c.running,
      succeeded: c.succeeded,
      failed: c.failed,
      ...(context !== undefined && context.startedAt > 0
        ? { scheduleStartMs: context.startedAt }
        : {}),
    };
  }

  /** Rebuilds the member index from the pods of `cluster` that `ours` accepts. */
  rebuild(cluster: ClusterState, ours: (info: PodInfo) => boolean): void {
    this.members.clear();
    for (const { info } of cluster.pods.values()) if (ours(info)) this.notePod(undefined, info);
    this.dirty.clear();
  }

  /** The group machines as plain data. */
  snapshot(): GroupData[] {
    return Array.from(this.actors.values(), (a) => ({
      key: a.context.key,
      state: a.state,
      steps: a.context.steps,
      startedAt: a.context.startedAt,
      placedAt: a.context.placedAt,
      reason: a.context.reason ?? null,
    }));
  }

  /** The fairness hold and cooling groups, as plain data. */
  holdSnapshot(): GroupHoldData {
    return {
      hold: this.hold === undefined ? null : { ...this.hold, members: [...this.hold.members] },
      cooling: [...this.cooling],
    };
  }

  /** Takes back `holdSnapshot()` data. */
  loadHold(data: GroupHoldData | undefined): void {
    this.hold = data?.hold ?? undefined;
    for (const [key, until] of data?.cooling ?? []) this.cooling.set(key, until);
  }

  /** Takes back `snapshot()` data (machines recreated in their states, no actions run). */
  load(data: readonly GroupData[]): void {
    for (const g of data) {
      const state = g.state;
      if (!this.runner.isLiveState(state))
        throw new SnapshotError(
          `group ${g.key} is in ${JSON.stringify(g.state)}, not a live state`,
        );
      if (this.actors.has(g.key)) throw new SnapshotError(`group ${g.key} appears twice`);
      const context: GroupContext = {
        key: g.key,
        steps: g.steps,
        startedAt: g.startedAt,
        placedAt: g.placedAt,
        reason: g.reason ?? undefined,
      };
      this.actors.set(g.key, this.runner.restore(state, context, noHooks));
    }
  }
}
