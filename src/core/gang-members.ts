// Keeping pod groups current as their members change: the member index, the hold, and the group machine's bound/lost steps.
import type { ClusterChange, PodInfo } from '../cluster/types.ts';
import type { CoreState } from './core-state.ts';
import { releaseHoldAndRequeue } from './gang-hold.ts';

type PodChange = Extract<ClusterChange, { kind: 'pod' }>;

/** The pod of a change's side if it is a gang member berth schedules. */
function gangMemberOf(core: CoreState, r: { info: PodInfo } | undefined): PodInfo | undefined {
  return r !== undefined && core.isGangMember(r.info) ? r.info : undefined;
}

/** Keeps the group member index current with a pod change (gang scheduling only). */
export function noteGroupMembers(core: CoreState, change: PodChange): void {
  if (core.config.gangs === undefined) return;
  if (change.replaced !== undefined)
    core.gangs.notePod(gangMemberOf(core, change.replaced), undefined);
  const before = gangMemberOf(core, change.before);
  const after = gangMemberOf(core, change.after);
  if (before !== undefined || after !== undefined) core.gangs.notePod(before, after);
  // A member of the holding group left: the hold may be more than the group can use now.
  const hold = core.gangs.hold;
  const left = change.replaced?.info ?? (after === undefined ? before : undefined);
  if (hold !== undefined && left !== undefined && core.groupOf(left) === hold.key)
    releaseHoldAndRequeue(core);
}

/** Member `info` is bound: its group is running once minMember members are. */
export function memberBound(core: CoreState, info: PodInfo): void {
  const key = core.groupOf(info);
  if (key === undefined || core.gangs.stateOf(key) !== 'binding') return;
  const spec = core.groupSpec(key);
  if ('missing' in spec) return;
  if (core.gangs.counts(key, core.cluster).scheduled >= spec.minMember)
    core.gangs.send(key, { type: 'ALL_BOUND' });
}

/** Member `uid` of a placed group lost its place: the group re-plans the missing members. */
export function memberLost(core: CoreState, uid: string, reason: string): void {
  const info = core.cluster.pods.get(uid)?.info;
  const key = info === undefined ? undefined : core.groupOf(info);
  if (key === undefined) return;
  const state = core.gangs.stateOf(key);
  if (state === 'binding' || state === 'running')
    core.gangs.send(key, { type: 'MEMBER_LOST', reason: `pod group ${key}: ${reason}` });
}
