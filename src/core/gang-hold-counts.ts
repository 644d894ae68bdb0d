// A blocked core PodGroup's condition as kube states it: its trial and preemption run again with another group's fairness hold lifted.
import { corePodGroupKeyOfGroup } from '../cluster/core-pod-groups.ts';
import { reduce } from '../cluster/reducer.ts';
import type { CoreState } from './core-state.ts';
import type { HeldMember } from './gangs.ts';

/**
 * What `run` answers for core PodGroup `key` as if no other group's fairness hold were in
 * force: kube-scheduler holds no nodes for a blocked group, so the PodGroupInitiallyScheduled
 * condition states its counts without one. The hold's nominations are lifted for `run` and
 * put back after, unlogged (seq 0, like a trial's reservations), so the state is left as it
 * was. Undefined — the caller keeps its own view — when no other group holds nodes, for a
 * scheduler-plugins group (whose status is its phase), or when `run` answers undefined.
 */
export function asIfNoOtherHold<T>(
  core: CoreState,
  key: string,
  run: () => T | undefined,
): T | undefined {
  const hold = core.gangs.hold;
  if (hold === undefined || hold.key === key || corePodGroupKeyOfGroup(key) === undefined)
    return undefined;
  const lifted = hold.members.filter(
    (m) => core.cluster.pods.get(m.uid)?.info.nominatedNodeName === m.node,
  );
  if (lifted.length === 0) return undefined;
  for (const m of lifted) renominate(core, m, undefined, hold.key);
  try {
    return run();
  } finally {
    for (const m of lifted) renominate(core, m, m.node, hold.key);
  }
}

/** Clears (`node` undefined) or restores held member `m`'s nomination, unlogged. */
function renominate(core: CoreState, m: HeldMember, node: string | undefined, group: string) {
  const attempt = core.pods.attemptOf(m.uid) ?? 0;
  const pod = { uid: m.uid, key: m.key };
  reduce(core.cluster, {
    seq: 0,
    time: core.now,
    event:
      node === undefined
        ? { type: 'NominationCleared', ...pod, attempt, node: m.node, pod }
        : { type: 'PodHeld', ...pod, attempt, node, group },
  });
}
