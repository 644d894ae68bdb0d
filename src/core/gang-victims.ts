// Gang preemption's victims: the lower-priority units (single pods, or other groups taken whole) a blocked group may evict, in the order it spares them.
import type { CoreDisruptionMode } from '../cluster/core-pod-group-fields.ts';
import { corePodGroupKeyOfGroup } from '../cluster/core-pod-groups.ts';
import { budgetsOf, splitByBudgetViolation } from '../cluster/disruption-budgets.ts';
import type { PodInfo } from '../cluster/types.ts';
import { startTimeOf } from '../framework/preemption/victims.ts';
import { isTerminal } from '../model/phase.ts';
import type { CoreState } from './core-state.ts';

/**
 * How a group is disrupted when it is a victim. `All`: every placed member is evicted
 * together, never some of them. `Single`: each member is a victim on its own, as a plain
 * pod (at the group's priority, as kube's GetPodPriority has it).
 */
export type DisruptionMode = CoreDisruptionMode;

/**
 * How group `key` is disrupted when it is a victim: a core PodGroup's `spec.disruptionMode`
 * (`Single` when unset, the API's default, as kube 1.37.2's getHighestAllAncestor reads
 * it); a scheduler-plugins group — which kube never preempts as a group — is taken whole.
 */
export function disruptionModeOf(core: CoreState, key: string): DisruptionMode {
  const objectKey = corePodGroupKeyOfGroup(key);
  if (objectKey === undefined) return 'All';
  return core.cluster.objects.CorePodGroup.get(objectKey)?.disruptionMode ?? 'Single';
}

/** What gang preemption may evict as one: a single pod, or a group's placed members. */
export interface VictimUnit {
  /** The group's id for a group taken whole, else the pod's `namespace/name`. */
  key: string;
  group: boolean;
  /** The pod's priority, or the group's (the highest of its members'). */
  priority: number;
  /** The pods evicted, each charged to a node (bound or reserved). */
  pods: PodInfo[];
  /** The earliest start among `pods` (kube's GetPodStartTime; unstarted pods count as now). */
  earliestStart: number;
  /** True when evicting it would drive a PodDisruptionBudget below zero (set by `victimUnits`). */
  violatesBudget: boolean;
}

/**
 * The order units are spared in (most important first), as kube's MoreImportantVictim:
 * higher priority; then a group before a single pod; then more pods; then the earlier
 * start; then, where kube leaves the order to its cache, the key, so a replay is the same.
 */
export function moreImportantUnit(a: VictimUnit, b: VictimUnit): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.group !== b.group) return a.group ? -1 : 1;
  if (a.pods.length !== b.pods.length) return b.pods.length - a.pods.length;
  if (a.earliestStart !== b.earliestStart) return a.earliestStart - b.earliestStart;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function unitOf(key: string, group: boolean, priority: number, pods: PodInfo[], now: number) {
  let earliest = Number.POSITIVE_INFINITY;
  for (const p of pods) earliest = Math.min(earliest, startTimeOf(p, now));
  return { key, group, priority, pods, earliestStart: earliest, violatesBudget: false };
}

/** Group `key`'s members charged to a node and not finished, in the order they joined. */
export function placedMembers(core: CoreState, key: string): PodInfo[] {
  const out: PodInfo[] = [];
  for (const uid of core.gangs.memberUids(key)) {
    const record = core.cluster.pods.get(uid);
    if (record === undefined || record.charge.kind === 'none') continue;
    if (isTerminal(record.info.phase)) continue;
    out.push(record.info);
  }
  return out;
}

/** Group `group`'s priority, or member `pod`'s own when the group's is not known. */
const groupPriorityOf = (core: CoreState, group: string, pod: PodInfo): number =>
  core.gangs.priority(group, core.cluster) ?? pod.priority;

/**
 * False when `victimUnits(core, _, priority)` surely finds no unit, by a scan that reads
 * only priorities: no pod on a node is of lower priority, and every member of a group on
 * a node is live, so its group's priority (the highest of its live members') is no lower
 * than that member's. True when a unit may exist (the full search decides). A blocked
 * group among equals, the common case under contention, is then refused at this cost.
 */
export function mayHaveVictims(core: CoreState, priority: number): boolean {
  for (const node of core.cluster.nodeOrder)
    for (const pod of node.pods.values()) {
      if (pod.priority < priority) return true;
      if ((pod.terminating || isTerminal(pod.phase)) && core.isGangMember(pod)) return true;
    }
  return false;
}

/**
 * Every unit gang preemption may evict for group `preemptor` of priority `priority`: the
 * pods on live nodes whose priority is strictly lower, each alone, except that a member of
 * another group whose disruption mode is `All` is taken with all of that group's placed
 * members; a group member counts at its group's priority (`Gangs.priority`), whichever
 * mode. Units
 * come most important first, those whose eviction would violate a PodDisruptionBudget
 * before the others (kube's order for sparing them); each budget's allowance is paid by
 * the pods in that order.
 */
export function victimUnits(core: CoreState, preemptor: string, priority: number): VictimUnit[] {
  const seen = new Set<string>();
  const units: VictimUnit[] = [];
  for (const node of core.cluster.nodeOrder)
    for (const pod of node.pods.values()) {
      const group = core.isGangMember(pod) ? core.groupOf(pod) : undefined;
      if (group === preemptor) continue;
      if (group !== undefined && disruptionModeOf(core, group) === 'All') {
        if (seen.has(group)) continue;
        seen.add(group);
        const groupPriority = groupPriorityOf(core, group, pod);
        if (groupPriority < priority)
          units.push(unitOf(group, true, groupPriority, placedMembers(core, group), core.now));
      } else if (!seen.has(pod.uid)) {
        seen.add(pod.uid);
        const own = group === undefined ? pod.priority : groupPriorityOf(core, group, pod);
        if (own < priority) units.push(unitOf(pod.key, false, own, [pod], core.now));
      }
    }
  units.sort(moreImportantUnit);
  const { violating } = splitByBudgetViolation(
    units.flatMap((u) => u.pods),
    budgetsOf(core.cluster),
  );
  const violatingUids = new Set(violating.map((p) => p.uid));
  for (const u of units) u.violatesBudget = u.pods.some((p) => violatingUids.has(p.uid));
  return [...units.filter((u) => u.violatesBudget), ...units.filter((u) => !u.violatesBudget)];
}
