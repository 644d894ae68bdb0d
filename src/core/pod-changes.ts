// A pod was added, updated, replaced or deleted: its machine is spawned, moved or stopped, and victims and groups kept current.
import type { ClusterChange, PodInfo } from '../cluster/types.ts';
import { isTerminal } from '../model/phase.ts';
import type { CoreState } from './core-state.ts';
import { memberBound, noteGroupMembers } from './gang-members.ts';
import { noteVictimGone } from './preemption-waits.ts';

type PodChange = Extract<ClusterChange, { kind: 'pod' }>;

/** Folds a pod change into the machines: spawn, bound, deleted, ungated, re-ordered, retried. */
export function onPodChange(core: CoreState, change: PodChange): void {
  noteVictims(core, change);
  noteGroupMembers(core, change);
  if (change.replaced !== undefined) podGone(core, change.replaced.info);
  if (change.after === undefined) {
    if (change.before !== undefined) podGone(core, change.before.info);
    return;
  }
  const { info, charge } = change.after;
  if (!core.profiles.has(info.schedulerName)) return;
  const uid = info.uid;
  if (info.nodeName !== undefined) {
    core.preemptions.forget(uid);
    core.pods.send(uid, { type: 'BOUND', node: info.nodeName });
    memberBound(core, info);
    return;
  }
  if (info.terminating || isTerminal(info.phase)) {
    core.pods.send(uid, { type: 'DELETED' });
    return;
  }
  const machine = core.pods.inspect(uid);
  if (machine === undefined) {
    core.pods.spawn(info);
    return;
  }
  // kube's IsAssumedPod rule: a reserved pod's own updates never re-queue it.
  if (charge.kind === 'assumed') return;
  if (machine.state === 'gated') {
    if (info.schedulingGates.length === 0) core.pods.send(uid, { type: 'UNGATED' });
    return;
  }
  // The pod's own spec changed: re-order it if queued, retry it if parked (kube does both).
  if (machine.state === 'pending') core.pods.reorder(uid);
  else if (machine.state === 'unschedulable')
    core.pods.send(uid, { type: 'REQUEUE', now: core.now });
}

/** A victim is gone once it is deleted, replaced, finished or off its node. */
function noteVictims(core: CoreState, change: PodChange): void {
  if (!core.preemptions.hasVictims()) return;
  if (change.replaced !== undefined) noteVictimGone(core, change.replaced.info.uid);
  const node = core.preemptions.victimNode(change.uid);
  const after = change.after?.charge;
  if (node !== undefined && (after === undefined || after.kind === 'none' || after.node !== node))
    noteVictimGone(core, change.uid);
}

/** Pod `info` is gone (deleted, or replaced under its name): its machine stops, its reports are forgotten. */
export function podGone(core: CoreState, info: PodInfo): void {
  core.preemptions.forget(info.uid);
  core.pods.send(info.uid, { type: 'DELETED' });
  core.command({ kind: 'forgetPod', pod: { uid: info.uid, key: info.key } });
}
