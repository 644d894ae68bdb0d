// Gang fairness: the first blocked group in queue order holds the nodes its members fitted on, until placed, overtaken or timed out.
import type { CoreState } from './core-state.ts';
import { decide } from './evolve.ts';
import type { GangPlacement } from './gang-step.ts';
import { type HeldMember, ranksBefore } from './gangs.ts';

/**
 * Fairness: group `key` was blocked with `placed` members fitting. If no group ranks
 * before it in the queue (priority, then the time of its first step) and it did not time
 * out lately, it holds those members' nodes (PodHeld: nominated, so pods of lower or equal
 * priority cannot take them) until it is placed, overtaken, or `timeoutMs` has passed.
 * One group holds at a time, so holds never deadlock.
 */
export function holdFor(
  core: CoreState,
  key: string,
  placed: readonly GangPlacement[],
  timeoutMs: number,
): void {
  const { gangs } = core;
  if ((gangs.cooling.get(key) ?? Number.NEGATIVE_INFINITY) > core.now) return;
  const first = placed[0];
  const current = gangs.hold;
  if (first === undefined) {
    if (current?.key === key) releaseHold(core);
    return;
  }
  const startedAt = gangs.contextOf(key)?.startedAt ?? core.now;
  const rank = { key, priority: first.info.priority, startedAt };
  if (current !== undefined && current.key !== key) {
    if (!ranksBefore(rank, current)) return;
    releaseHold(core);
  }
  const kept = new Map((gangs.hold?.members ?? []).map((m) => [m.uid, m.node]));
  const members: HeldMember[] = placed.map((p) => ({
    uid: p.info.uid,
    key: p.info.key,
    node: p.node,
  }));
  const now = new Set(members.map((m) => `${m.uid} ${m.node}`));
  for (const m of gangs.hold?.members ?? []) if (!now.has(`${m.uid} ${m.node}`)) clearHeld(core, m);
  for (const p of placed)
    if (kept.get(p.info.uid) !== p.node)
      decide(core, {
        type: 'PodHeld',
        uid: p.info.uid,
        key: p.info.key,
        attempt: p.attempt,
        node: p.node,
        group: key,
      });
  gangs.hold = { ...rank, since: gangs.hold?.since ?? core.now, timeoutMs, members };
}

/** Clears the nomination of held member `m`, if it still has it. */
function clearHeld(core: CoreState, m: HeldMember): void {
  const record = core.cluster.pods.get(m.uid);
  if (record === undefined || record.info.nominatedNodeName !== m.node) return;
  decide(core, {
    type: 'NominationCleared',
    uid: m.uid,
    key: m.key,
    attempt: core.pods.attemptOf(m.uid) ?? 0,
    node: m.node,
    pod: { uid: m.uid, key: m.key },
  });
}

/** Ends the fairness hold, clearing its members' nominations. */
export function releaseHold(core: CoreState): void {
  const hold = core.gangs.hold;
  if (hold === undefined) return;
  core.gangs.hold = undefined;
  for (const m of hold.members) clearHeld(core, m);
}

/**
 * Ends the fairness hold; the places held are free again for whoever they turned away,
 * the group's own members too.
 */
export function releaseHoldAndRequeue(core: CoreState): void {
  releaseHold(core);
  const parked = Array.from(core.pods.parked.entries(), ([uid]) => uid).filter(
    (uid) => core.pods.stateOf(uid) === 'unschedulable',
  );
  for (const uid of parked) core.pods.send(uid, { type: 'REQUEUE', now: core.now });
}

/**
 * A hold older than its group's schedule timeout is released: an Event says so, the
 * group may not hold again for another timeout, and its parked members retry together.
 */
export function expireHold(core: CoreState): void {
  const hold = core.gangs.hold;
  if (hold === undefined || core.now < hold.since + hold.timeoutMs) return;
  releaseHoldAndRequeue(core);
  const seconds = Math.round(hold.timeoutMs / 1000);
  const reason = `pod group ${hold.key}: not placed within its schedule timeout (${seconds}s); released the ${hold.members.length} node place(s) held for it`;
  core.gangs.cooling.set(hold.key, core.now + hold.timeoutMs);
  core.gangs.send(hold.key, { type: 'TIMED_OUT', reason });
  core.groupEvents.set(hold.key, { type: 'Warning', reason: 'GangTimeout', message: reason });
}
