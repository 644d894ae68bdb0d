// Gang preemption (kube 1.37's PodGroupPostFilter for berth's group model): victims across nodes so that a whole blocked group fits.
import { withoutCharges } from '../cluster/charges-what-if.ts';
import type { PodInfo } from '../cluster/types.ts';
import { neverPolicyMessage } from '../framework/preemption/evaluate.ts';
import type { CoreState } from './core-state.ts';
import { decide } from './evolve.ts';
import { releaseHold } from './gang-hold.ts';
import type { GangMember, GangPlacement } from './gang-step.ts';
import { mayHaveVictims, moreImportantUnit, type VictimUnit, victimUnits } from './gang-victims.ts';
import { settlePreemption } from './preemption-waits.ts';

/** The PostFilter whose presence in the members' profile lets a group preempt. */
export const gangPreemptionPlugin = 'DefaultPreemption';

/** Where the group goes once its victims are gone, and who they are. */
export interface GangPreemptionPlan {
  /** Every member the step needed, on the node it is nominated to. */
  placements: GangPlacement[];
  /** The units evicted, most important first (kube sorts its victims so). */
  victims: VictimUnit[];
  /** How many of `victims` violate a PodDisruptionBudget. */
  budgetViolations: number;
  /** How many trial placements of the whole group the plan cost (one cycle per member each). */
  trials: number;
}

/** The plan, or why the group may not or cannot preempt (kube-style "preemption: …" text). */
export type GangPreemption =
  | { kind: 'plan'; plan: GangPreemptionPlan }
  | {
      kind: 'refused';
      message: string;
      /** When even every victim gone was not enough: how many members then fitted. */
      fittedWithout?: number;
    };

/** Why group `key` may not preempt at all, or undefined when it may. */
function ineligibility(core: CoreState, members: readonly GangMember[]): string | undefined {
  if (core.config.gangs?.preemption !== true) return 'gang preemption is off';
  const first = members[0];
  if (first === undefined) return 'no member to place';
  const profile = core.profiles.get(first.info.schedulerName)?.profile;
  if (!(profile?.postFilter ?? []).some((p) => p.name === gangPreemptionPlugin))
    return `the profile of ${first.info.schedulerName} has no ${gangPreemptionPlugin}`;
  if (members.some((m) => m.info.preemptionPolicy === 'Never')) return neverPolicyMessage;
  return undefined;
}

/** The refusal of a group with no lower-priority unit to evict. */
export const noGroupVictimsMessage = 'No preemption victims found for incoming pod group';

/** The start of the refusal of a group that does not fit even with every victim gone. */
const noRoomEvenSo = 'the group does not fit even with all';

/**
 * Whether a refusal is worth telling the group's members: preemption was tried and even
 * evicting every lower-priority unit would not make room, or the group may not preempt by
 * its members' policy. Not: preemption is off, not in the profile, or found no victims.
 */
export function preemptionRefusalShown(message: string): boolean {
  return message.startsWith(noRoomEvenSo) || message === neverPolicyMessage;
}

/** Every pod of `units`. */
const podsOf = (units: Iterable<VictimUnit>): PodInfo[] => [...units].flatMap((u) => u.pods);

/** A trial of the whole group as a preemption plan needs it: placed, or how many members fitted. */
export type PlanTrial =
  | { kind: 'placed'; placements: GangPlacement[] }
  | { kind: 'blocked'; fitted: number };

/**
 * How a plan tries the group against the state of the moment (victims taken off): `first`
 * once, with every victim gone; `again` for each later trial, with some put back. A
 * topology-constrained group's `first` chooses its domain and `again` stays inside it.
 */
export interface PlanTrials {
  first(): PlanTrial;
  again(): PlanTrial;
}

/**
 * Plans preemption for group `key`, whose members `members` (the ones its step needs, in
 * gang order) do not fit: kube 1.37's PodGroup preemption over the whole cluster. Every
 * unit of strictly lower priority (`victimUnits`: single pods, other groups whole) is
 * taken off; if the group still does not fit (`trials.first`), there is no plan. Otherwise
 * units are put back in order, budget-violating ones first, each most important first, and
 * a unit stays (is spared) when the whole group still fits with it back — checked by a full
 * gang trial (`trials.again`: members may move), so the plan's placements are what the
 * group gets with exactly the victims gone. Runs of units are tried back together and split
 * only when they do not fit, which decides the same as one at a time whenever putting a pod
 * back never helps a member fit (resources, ports, anti-affinity), in far fewer trials when
 * most units are spared. Nothing is decided and the state is unchanged.
 */
export function planGangPreemption(
  core: CoreState,
  key: string,
  members: readonly GangMember[],
  trials: PlanTrials,
): GangPreemption {
  const why = ineligibility(core, members);
  if (why !== undefined) return { kind: 'refused', message: why };
  const priority =
    core.gangs.priority(key, core.cluster) ?? (members[0] as GangMember).info.priority;
  const units = mayHaveVictims(core, priority) ? victimUnits(core, key, priority) : [];
  if (units.length === 0) return { kind: 'refused', message: noGroupVictimsMessage };
  const { cluster } = core;
  let count = 0;
  const trialWithout = (evicted: Iterable<VictimUnit>, trial: () => PlanTrial): PlanTrial => {
    count++;
    const uids = podsOf(evicted).map((p) => p.uid);
    return withoutCharges(cluster, uids, trial);
  };
  const fitsWithout = (evicted: Iterable<VictimUnit>): GangPlacement[] | undefined => {
    const trial = trialWithout(evicted, () => trials.again());
    return trial.kind === 'placed' ? trial.placements : undefined;
  };
  const evicted = new Set(units);
  const all = trialWithout(evicted, () => trials.first());
  if (all.kind === 'blocked')
    return {
      kind: 'refused',
      message: `${noRoomEvenSo} ${units.length} lower-priority victim(s) gone`,
      fittedWithout: all.fitted,
    };
  let placements = all.placements;
  // Spare units in order, a run at a time: a run that fits back is spared whole (one trial);
  // one that does not is split, its first half decided before its second.
  const spare = (run: readonly VictimUnit[]): void => {
    if (run.length === 0) return;
    for (const u of run) evicted.delete(u);
    const kept = fitsWithout(evicted);
    if (kept !== undefined) {
      placements = kept;
      return;
    }
    for (const u of run) evicted.add(u);
    if (run.length === 1) return;
    const half = Math.ceil(run.length / 2);
    spare(run.slice(0, half));
    spare(run.slice(half));
  };
  const half = Math.ceil(units.length / 2);
  spare(units.slice(0, half));
  spare(units.slice(half));
  const victims = units.filter((u) => evicted.has(u));
  const sorted = [...victims].sort(moreImportantUnit);
  const budgetViolations = victims.filter((u) => u.violatesBudget).length;
  return { kind: 'plan', plan: { placements, victims: sorted, budgetViolations, trials: count } };
}

/**
 * Carries out `plan` for group `key`: every member it places is nominated to its node
 * (PodNominated: it waits in `preempting`), each victim pod evicted (VictimPreempted, named
 * after the member nominated to the victim's node, else the group's first member), and the
 * nominations of lower-priority pods to those nodes cleared. Every member then waits for
 * all of the group's victims, so the group is stepped again whole once the last is gone.
 * `others` (members the step took beyond those needed) get `message`, parked under the
 * `plugins` that rejected the group, so that room freed brings them back.
 */
export function decideGangPreemption(
  core: CoreState,
  key: string,
  plan: GangPreemptionPlan,
  others: readonly PodInfo[],
  message: string,
  plugins: readonly string[],
): void {
  const priority = core.gangs.priority(key, core.cluster) ?? 0;
  // Our own hold ends (nominations follow), and so does a lower-priority group's.
  const hold = core.gangs.hold;
  if (hold !== undefined && (hold.key === key || hold.priority < priority)) releaseHold(core);
  core.gangs.send(key, { type: 'NOT_PLACED', reason: message });
  const lead = plan.placements[0] as GangPlacement;
  const onNode = new Map<string, GangPlacement>();
  for (const p of plan.placements) {
    if (!onNode.has(p.node)) onNode.set(p.node, p);
    decide(core, { type: 'PodNominated', ...refOf(p), node: p.node, message });
  }
  for (const info of others)
    decide(core, { type: 'PodUnschedulable', ...core.refOf(info), message }, plugins);
  const victims: string[] = [];
  for (const unit of plan.victims)
    for (const pod of unit.pods) {
      const charge = core.cluster.pods.get(pod.uid)?.charge;
      if (charge === undefined || charge.kind === 'none') continue;
      const by = onNode.get(charge.node) ?? lead;
      const victim = { uid: pod.uid, key: pod.key };
      decide(core, { type: 'VictimPreempted', ...refOf(by), node: charge.node, victim });
      victims.push(pod.uid);
    }
  const members = new Set(plan.placements.map((p) => p.info.uid));
  for (const [node, by] of onNode)
    for (const other of core.cluster.nominated.get(node)?.values() ?? [])
      if (other.priority < priority && !members.has(other.uid))
        decide(core, {
          type: 'NominationCleared',
          ...refOf(by),
          node,
          pod: { uid: other.uid, key: other.key },
        });
  for (const p of plan.placements) {
    for (const v of victims) if (stillCharged(core, v)) core.preemptions.addVictim(p.info.uid, v);
    settlePreemption(core, p.info.uid);
  }
}

const refOf = (p: GangPlacement) => ({ uid: p.info.uid, key: p.info.key, attempt: p.attempt });

function stillCharged(core: CoreState, uid: string): boolean {
  const charge = core.cluster.pods.get(uid)?.charge;
  return charge !== undefined && charge.kind !== 'none';
}

/**
 * An eviction for member `uid` of a preempting group failed: the member went to backoff
 * (its machine took PREEMPTION_FAILED); its fellow members still waiting for victims stop
 * waiting too and go back to the queue (after their backoff), so the group is planned
 * again whole rather than stepped with members missing.
 */
export function gangPreemptionFailed(core: CoreState, uid: string): void {
  const info = core.cluster.pods.get(uid)?.info;
  const key = info === undefined ? undefined : core.groupOf(info);
  if (key === undefined) return;
  for (const other of core.gangs.memberUids(key)) {
    if (other === uid || core.pods.stateOf(other) !== 'preempting') continue;
    core.preemptions.forget(other);
    core.pods.send(other, { type: 'REQUEUE', now: core.now });
  }
}
