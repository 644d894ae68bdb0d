// A gang step's search beyond kube's one pass: when a member unlike those before it does not fit, the members are tried again with it first.
import type { PodInfo } from '../cluster/types.ts';
import type { GangMember, GangTrial } from './gang-step.ts';

/** The fields of a pod that say who it is or where it is, not what it needs of a node. */
const identity = new Set([
  'uid',
  'key',
  'name',
  'labels',
  'creationMs',
  'generation',
  'nodeName',
  'phase',
  'terminating',
  'startMs',
  'preemptedByScheduler',
  'nominatedNodeName',
  'statusNominatedNodeName',
]);

/** What a pod asks of a node (requests, selectors, affinity, spread, ports, volumes, …), as text. */
function shapeOf(info: PodInfo): string {
  return JSON.stringify(info, (k, v: unknown) => {
    if (identity.has(k)) return undefined;
    if (v instanceof Map) return [...v.entries()];
    if (v instanceof Set) return [...v];
    return v;
  });
}

/**
 * Places `members` with `tryOrder` (one pass over the members in the order given, each
 * seeing those before it reserved, as kube's pod group cycle does), first in gang order. kube
 * stops there, so a mixed group whose first members take the only nodes a later one could
 * use stays unplaced though a placement exists. berth goes on: while the member that did not
 * fit asks something of a node that some member placed before it does not (other requests,
 * selectors, affinity …), the members are tried again with it moved to the front — each
 * member at most once, so at most `members.length` passes (one cycle per member each) for
 * a group that still does not fit, and one pass when the members are alike (another order
 * could only swap identical members). A pass stopped by a plugin error ends the search. The
 * first placement found is returned; if none, the first pass's outcome (kube's), so the
 * group's message and condition are kube's.
 */
export function searchGroup(
  members: readonly GangMember[],
  tryOrder: (order: readonly GangMember[]) => GangTrial,
): GangTrial {
  const first = tryOrder(members);
  let trial = first;
  let order = members;
  const fronted = new Set<string>();
  const shapes = new Map<string, string>();
  const shape = (m: GangMember) => {
    const known = shapes.get(m.info.uid);
    if (known !== undefined) return known;
    const s = shapeOf(m.info);
    shapes.set(m.info.uid, s);
    return s;
  };
  while (trial.kind === 'blocked' && trial.result.kind === 'Unschedulable') {
    const stuck = trial.member;
    if (fronted.has(stuck.info.uid)) break;
    if (trial.placements.every((p) => shape(p) === shape(stuck))) break;
    fronted.add(stuck.info.uid);
    order = [stuck, ...order.filter((m) => m.info.uid !== stuck.info.uid)];
    trial = tryOrder(order);
    if (trial.kind === 'placed') return trial;
  }
  return first;
}
