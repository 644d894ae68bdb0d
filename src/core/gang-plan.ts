// One gang step: a group's missing members placed together against one snapshot, or parked with the group's reason.
import type { PodInfo } from '../cluster/types.ts';
import { noteStepOutcome } from './core-group-outcome.ts';
import { coreGroupMismatch } from './core-group-validation.ts';
import type { CoreState } from './core-state.ts';
import { decide } from './evolve.ts';
import { expireHold, holdFor, releaseHold, releaseHoldAndRequeue } from './gang-hold.ts';
import { decideGangPreemption, preemptionRefusalShown } from './gang-preemption.ts';
import { byGangOrder, missingMinResources } from './gang-step.ts';
import { kubeMemberMessages, noteBlockedStep } from './gang-step-condition.ts';
import { planStepPreemption } from './gang-step-preemption.ts';
import { memberInDomain, tryGroupStep } from './gang-topology-step.ts';
import type { GroupSpec } from './gangs.ts';
import { decideCycle } from './plan-cycle.ts';

/**
 * A member of group `key` reached the head of the queue: one gang step. Too few members
 * (or no PodGroup) → the waiting members are parked with the group's reason, taking no
 * capacity. Enough → the missing members (highest priority, then oldest) are tried
 * against one snapshot; all are reserved and bound together, or none is and each gets
 * the group's reason. A group already placed whole schedules further members one by one.
 */
export function decideGroup(core: CoreState, key: string, popped: PodInfo): void {
  expireHold(core);
  const spec = core.groupSpec(key);
  if ('missing' in spec) {
    parkGroup(core, key, popped, `pod group ${key}: ${spec.missing}`);
    return;
  }
  const counts = core.gangs.counts(key, core.cluster);
  const need = spec.minMember - counts.placed;
  if (need <= 0) {
    core.pods.send(popped.uid, { type: 'SCHEDULE' });
    decideCycle(core, popped, memberInDomain(core, key, spec.topologyKeys));
    return;
  }
  const waiting = waitingMembers(core, key, popped);
  const present = counts.present - counts.gated;
  if (present < spec.minMember || waiting.length < need) {
    const gated = counts.gated > 0 ? ` (${counts.gated} more gated)` : '';
    const message = `pod group ${key} has ${present} of ${spec.minMember} members${gated}`;
    parkGroup(core, key, popped, message);
    return;
  }
  core.gangs.send(key, { type: 'STEP', now: core.now });
  for (const m of waiting) core.pods.send(m.uid, { type: 'SCHEDULE' });
  stepGroup(core, key, waiting, need, spec, spec.minMember - need);
}

/** The step proper: `waiting` members taken, `need` of them to place, `placed` already placed. */
function stepGroup(
  core: CoreState,
  key: string,
  waiting: readonly PodInfo[],
  need: number,
  spec: Pick<GroupSpec, 'timeoutMs' | 'topologyKeys'>,
  placed: number,
): void {
  const mismatch = coreGroupMismatch(core, key, waiting);
  if (mismatch !== undefined) {
    // kube's validatePodGroup fails the cycle: SchedulerError on the PodGroup.
    noteStepOutcome(core, key, { kind: 'error', message: mismatch });
    groupBlocked(core, key, waiting, `pod group ${key}: ${mismatch}`, ['Coscheduling']);
    return;
  }
  const min = core.cluster.objects.PodGroup.get(key)?.minResources;
  const short = min === undefined ? undefined : missingMinResources(core.cluster, min);
  if (short !== undefined) {
    groupBlocked(core, key, waiting, `pod group ${key}: ${short}`, ['NodeResourcesFit']);
    return;
  }
  const chosen = waiting.slice(0, need).map((info) => ({
    info,
    attempt: core.pods.attemptOf(info.uid) ?? 0,
  }));
  const minMember = placed + need;
  const trial = tryGroupStep(core, key, chosen, spec.topologyKeys, placed, minMember);
  if (trial.kind === 'blocked') {
    if (trial.error !== undefined) {
      noteStepOutcome(core, key, {
        kind: 'error',
        message: `failed to schedule other pod from a pod group: ${trial.error}`,
      });
      groupBlocked(core, key, waiting, trial.message, trial.plugins);
      return;
    }
    const preemption = planStepPreemption(core, key, chosen, spec.topologyKeys);
    const victims =
      preemption?.kind === 'plan'
        ? preemption.plan.victims.reduce((sum, u) => sum + u.pods.length, 0)
        : 0;
    const step = { key, chosen, spec, placed, minMember, waiting };
    const conditionMessage = noteBlockedStep(core, step, trial, preemption);
    if (preemption?.kind === 'plan') {
      const message = `${trial.message} preemption: found a placement for the pod group, preempting ${victims} victims`;
      decideGangPreemption(core, key, preemption.plan, waiting.slice(need), message, trial.plugins);
      return;
    }
    if (trial.holdable) holdFor(core, key, trial.placements, spec.timeoutMs);
    const message =
      preemption === undefined
        ? trial.message
        : withPreemptionRefusal(trial.message, preemption.message);
    const perMember = kubeMemberMessages(core, step, trial, conditionMessage);
    groupBlocked(core, key, waiting, message, trial.plugins, perMember);
    return;
  }
  if (core.gangs.hold?.key === key) releaseHold(core);
  core.gangs.send(key, { type: 'PLACED', now: core.now });
  noteStepOutcome(core, key, { kind: 'placed' });
  for (const p of trial.placements) {
    const ref = { uid: p.info.uid, key: p.info.key, attempt: p.attempt, node: p.node };
    decide(core, {
      type: 'PodReserved',
      ...ref,
      ...(p.claims === undefined ? {} : { claims: p.claims }),
    });
  }
  for (const p of trial.placements) {
    const ref = { uid: p.info.uid, key: p.info.key, attempt: p.attempt, node: p.node };
    decide(core, { type: 'BindRequested', ...ref });
  }
  // Members beyond minMember, taken with the group, are scheduled one by one now.
  for (const info of waiting.slice(need))
    decideCycle(core, info, memberInDomain(core, key, spec.topologyKeys));
}

/**
 * Group `key`'s members that wait to be placed (queued, parked or backing off), the
 * popped one (if any) among them, in the order a gang step takes them.
 */
export function waitingMembers(core: CoreState, key: string, popped?: PodInfo): PodInfo[] {
  const out: PodInfo[] = [];
  for (const uid of core.gangs.memberUids(key)) {
    const state = uid === popped?.uid ? 'pending' : core.pods.stateOf(uid);
    if (state !== 'pending' && state !== 'unschedulable' && state !== 'backoff') continue;
    const record = core.cluster.pods.get(uid);
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
function parkGroup(core: CoreState, key: string, popped: PodInfo, message: string): void {
  if (core.gangs.hold?.key === key) releaseHoldAndRequeue(core);
  core.gangs.send(key, { type: 'QUORUM_MISSING', reason: message });
  const queued = core.gangs
    .memberUids(key)
    .filter((uid) => uid === popped.uid || core.pods.stateOf(uid) === 'pending');
  for (const uid of queued) {
    const info = core.cluster.pods.get(uid)?.info;
    if (info === undefined || info.schedulingGates.length > 0) continue;
    core.pods.send(uid, { type: 'SCHEDULE' });
    decide(core, { type: 'PodUnschedulable', ...core.refOf(info), message }, ['Coscheduling']);
  }
}

/**
 * Group `key`'s step placed nothing: the group's reason is `message`, and so is every member's
 * it took unless `perMember` gives the member its own (kube's words for a core PodGroup).
 */
function groupBlocked(
  core: CoreState,
  key: string,
  members: readonly PodInfo[],
  message: string,
  plugins: readonly string[],
  perMember?: ReadonlyMap<string, string>,
): void {
  core.gangs.send(key, { type: 'NOT_PLACED', reason: message });
  for (const info of members) {
    const own = perMember?.get(info.uid) ?? message;
    decide(core, { type: 'PodUnschedulable', ...core.refOf(info), message: own }, plugins);
  }
}

/**
 * A blocked group's message with why preemption could not help, when it tried and found no
 * room, or the group may never preempt (`preemptionPolicy: Never`); otherwise unchanged.
 */
function withPreemptionRefusal(message: string, refusal: string): string {
  return preemptionRefusalShown(refusal) ? `${message} preemption: ${refusal}` : message;
}
