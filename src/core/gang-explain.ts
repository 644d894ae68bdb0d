// `berth explain group`'s reasoning: a pod group's quorum, the gang step it would take now (traced), its preemption plan, and why it waits.
import { corePodGroupApiVersion, corePodGroupKeyOfGroup } from '../cluster/core-pod-groups.ts';
import type { PodInfo } from '../cluster/types.ts';
import { explainPod } from '../framework/explain-pod.ts';
import { isTerminal } from '../model/phase.ts';
import type { CoreState } from './core-state.ts';
import { preemptionOf, rankedDomains, topologyRows } from './gang-explain-step.ts';
import type {
  GroupExplanation,
  GroupMemberRow,
  HoldRow,
  MemberCycle,
  StepExplanation,
  WaitReason,
} from './gang-explain-types.ts';
import { waitingMembers } from './gang-plan.ts';
import { type GangTrial, missingMinResources } from './gang-step.ts';
import { type StepWatch, tryGroupStep } from './gang-topology-step.ts';
import type { GroupSpec } from './gangs.ts';
import { trackedRng } from './snapshot.ts';

/** Where member `uid` stands. */
function memberRow(core: CoreState, uid: string): GroupMemberRow | undefined {
  const record = core.cluster.pods.get(uid);
  if (record === undefined) return undefined;
  const { info, charge } = record;
  let status: GroupMemberRow['status'] = 'pending';
  if (isTerminal(info.phase)) status = 'finished';
  else if (info.terminating) status = 'terminating';
  else if (info.nodeName !== undefined) status = 'bound';
  else if (charge.kind !== 'none') status = 'reserved';
  else if (info.schedulingGates.length > 0) status = 'gated';
  const node = info.nodeName ?? (charge.kind === 'none' ? undefined : charge.node);
  const machine = core.pods.stateOf(uid);
  return {
    pod: info.key,
    uid,
    status,
    ...(node === undefined ? {} : { node }),
    ...(info.nominatedNodeName === undefined ? {} : { nominated: info.nominatedNodeName }),
    ...(machine === undefined ? {} : { machine }),
  };
}

/** The minMember (minCount) group `key`'s PodGroup declares, if it has one, usable or not. */
function declaredMinMember(core: CoreState, key: string): number | null {
  const coreKey = corePodGroupKeyOfGroup(key);
  if (coreKey !== undefined)
    return core.cluster.objects.CorePodGroup.get(coreKey)?.minCount ?? null;
  return core.cluster.objects.PodGroup.get(key)?.minMember ?? null;
}

/** A member's cycle, explained from the inputs it ran with (the trial's state before it). */
function memberCycle(core: CoreState, pod: PodInfo, cursor: number, rngState: number): MemberCycle {
  const explanation = explainPod({
    profile: core.ctx.profile,
    snapshot: core.cluster,
    pod,
    percentageOfNodesToScore: core.ctx.percentageOfNodesToScore,
    cursor,
    rngState,
  });
  const o = explanation.outcome;
  return { pod: pod.key, node: o.kind === 'Scheduled' ? o.node : null, explanation };
}

type Spec = Pick<GroupSpec, 'minMember' | 'topologyKeys'>;

/**
 * The gang step group `key` would take now with `waiting` (gang order), `need` of them to
 * place and `placed` already placed: the step's own trial (tryGroupStep), each member's
 * cycle traced as it runs, then gang preemption's plan as the step would make it.
 */
function traceStep(
  core: CoreState,
  key: string,
  waiting: readonly PodInfo[],
  need: number,
  spec: Spec,
): StepExplanation {
  const placed = spec.minMember - need;
  const chosen = waiting.slice(0, need).map((info) => ({
    info,
    attempt: core.pods.attemptOf(info.uid) ?? 0,
  }));
  const taken = chosen.map((m) => m.info.key);
  const min = core.cluster.objects.PodGroup.get(key)?.minResources;
  const short = min === undefined ? undefined : missingMinResources(core.cluster, min);
  if (short !== undefined)
    return {
      placed,
      need,
      taken,
      outcome: 'blocked',
      message: `pod group ${key}: ${short}`,
      cycles: [],
      notTried: taken,
      notTriedWhy: 'the minResources check stops the step before any cycle',
      topology: null,
      preemption: { kind: 'notPlanned', why: 'the minResources check stops the step first' },
    };
  let current: MemberCycle[] = [];
  const domains = new Map<string, { cycles: MemberCycle[]; trial: GangTrial }>();
  const watch: StepWatch = {
    cycle(pod, run) {
      const cursor = core.ctx.cursor.next;
      const rngState = core.rng.state();
      const result = run();
      current.push(memberCycle(core, pod, cursor, rngState));
      return result;
    },
    domain(domain, trial) {
      domains.set(domain, { cycles: current, trial });
      current = [];
    },
  };
  const search = rankedDomains(core, key, chosen, spec.topologyKeys);
  const outcome = tryGroupStep(core, key, chosen, spec.topologyKeys, placed, spec.minMember, watch);
  const topology = search === undefined ? null : topologyRows(search, domains, chosen.length);
  const cycles =
    topology === null ? current : (domains.get(topology.shown ?? '')?.cycles ?? current);
  const tried = new Set(cycles.map((c) => c.pod));
  return {
    placed,
    need,
    taken,
    outcome: outcome.kind,
    message: outcome.kind === 'placed' ? '' : outcome.message,
    cycles,
    notTried: taken.filter((p) => !tried.has(p)),
    notTriedWhy:
      cycles.length === 0
        ? 'no domain was tried'
        : 'the trial stops at the first member that does not fit',
    topology,
    preemption: preemptionOf(core, key, chosen, outcome, spec.topologyKeys),
  };
}

/** The fairness hold in force, if any. */
function holdRow(core: CoreState): HoldRow | null {
  const hold = core.gangs.hold;
  if (hold === undefined) return null;
  return {
    group: hold.key,
    places: hold.members.map((m) => ({ pod: m.key, node: m.node })),
    since: hold.since,
    until: hold.since + hold.timeoutMs,
  };
}

/** Why a group whose step is blocked waits: another group's hold, its own timeout, or fit. */
function blockedReason(
  core: CoreState,
  key: string,
  step: StepExplanation,
  hold: HoldRow | null,
): WaitReason {
  const blocked = step.cycles.find((c) => c.node === null);
  const rejected = new Set(
    blocked?.explanation.nodes.filter((n) => n.fate === 'rejected').map((n) => n.node) ?? [],
  );
  if (hold !== null && hold.group !== key) {
    const held = hold.places.filter((p) => rejected.has(p.node));
    if (held.length > 0)
      return {
        kind: 'hold',
        text: `pod group ${hold.group} holds ${hold.places.length} node place(s) since t=${hold.since}ms (until t=${hold.until}ms); ${blocked?.pod}'s cycle finds ${held.map((p) => `${p.node} (held for ${p.pod})`).join(', ')} taken: ${step.message}`,
      };
  }
  const cooling = core.gangs.cooling.get(key);
  if (cooling !== undefined && cooling > core.now)
    return {
      kind: 'timeout',
      text: `its hold timed out: it may not hold nodes again until t=${cooling}ms (now t=${core.now}ms); ${step.message}`,
    };
  const own =
    hold?.group === key
      ? `; it holds ${hold.places.length} node place(s) since t=${hold.since}ms, released at t=${hold.until}ms if still not placed`
      : '';
  const p = step.preemption;
  const plan =
    p.kind === 'plan'
      ? `; gang preemption would evict ${p.pods} pod(s) so that the whole group fits`
      : '';
  return { kind: 'fit', text: `${step.message}${own}${plan}` };
}

/** The members waiting for their gang preemption's victims, and how many victims are left. */
function preempting(core: CoreState, rows: readonly GroupMemberRow[]): WaitReason | undefined {
  const members = rows.filter((r) => r.machine === 'preempting');
  if (members.length === 0) return undefined;
  const left = Math.max(...members.map((r) => core.preemptions.victimsLeft(r.uid)));
  return {
    kind: 'preempting',
    text: `${members.length} member(s) nominated by its gang preemption wait for ${left} victim(s) to go`,
  };
}

/**
 * Explains group `key` as of `core`'s state: its members, quorum, the gang step it would
 * take now (the real trial, every member cycle traced by explainPod), the topology domains
 * tried, the preemption plan, and why it waits. The state is left as it was (the trial's
 * reservations are undone and the walk cursor and generator are put back).
 */
export function explainGroup(core: CoreState, key: string): GroupExplanation {
  const cursor = core.ctx.cursor.next;
  const rngState = core.rng.state();
  try {
    return explainNow(core, key);
  } finally {
    core.ctx.cursor.next = cursor;
    core.rng = trackedRng(rngState);
    core.ctx.rng = core.rng;
  }
}

function explainNow(core: CoreState, key: string): GroupExplanation {
  const core37 = corePodGroupKeyOfGroup(key) !== undefined;
  const rows = core.gangs
    .memberUids(key)
    .map((uid) => memberRow(core, uid))
    .filter((r): r is GroupMemberRow => r !== undefined);
  const counts = core.gangs.counts(key, core.cluster);
  const spec = core.groupSpec(key);
  const ctx = core.gangs.contextOf(key);
  const state = core.gangs.stateOf(key);
  const hold = holdRow(core);
  const cooling = core.gangs.cooling.get(key);
  const present = counts.present - counts.gated;
  const base = {
    group: key,
    api: core37 ? ('core' as const) : ('plugins' as const),
    apiVersion: core37 ? corePodGroupApiVersion : 'scheduling.x-k8s.io/v1alpha1',
    now: core.now,
    quorum: {
      minMember: 'missing' in spec ? declaredMinMember(core, key) : spec.minMember,
      members: rows.length,
      present,
      gated: counts.gated,
      placed: counts.placed,
      bound: counts.scheduled,
    },
    topologyKey: 'missing' in spec ? null : (spec.topologyKeys[0] ?? null),
    members: rows,
    machine:
      ctx === undefined || state === undefined
        ? null
        : { state, steps: ctx.steps, startedAt: ctx.startedAt, reason: ctx.reason ?? null },
    hold,
    coolingUntil: cooling !== undefined && cooling > core.now ? cooling : null,
  };
  const done = (waiting: WaitReason, step: StepExplanation | null = null): GroupExplanation => ({
    ...base,
    step,
    waiting,
  });
  if ('missing' in spec)
    return done({ kind: 'podGroup', text: `pod group ${key}: ${spec.missing}` });
  const need = spec.minMember - counts.placed;
  if (need <= 0)
    return done({
      kind: 'placed',
      text: `${counts.placed} of minMember ${spec.minMember} members placed (${counts.scheduled} bound): further members are scheduled one by one`,
    });
  const nominated = preempting(core, rows);
  if (nominated !== undefined) return done(nominated);
  const waiting = waitingMembers(core, key);
  if (present < spec.minMember || waiting.length < need) {
    const gated = counts.gated > 0 ? ` (${counts.gated} more gated)` : '';
    const text =
      present < spec.minMember
        ? `pod group ${key} has ${present} of ${spec.minMember} members${gated}`
        : `pod group ${key}: ${waiting.length} member(s) wait to be placed, ${need} needed (the others are in flight)`;
    return done({ kind: 'quorum', text });
  }
  const step = traceStep(core, key, waiting, need, spec);
  if (step.outcome === 'placed')
    return done(
      { kind: 'ready', text: `its next gang step would place all ${need} member(s) it needs` },
      step,
    );
  return done(blockedReason(core, key, step, hold), step);
}
