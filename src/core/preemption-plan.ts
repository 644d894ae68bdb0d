// Preemption's decisions and bookkeeping: nominate the preemptor, evict its victims, retry it once they are gone.
import type { AttemptRef } from '../events/types.ts';
import type { Nomination } from '../framework/types.ts';
import type { CoreState } from './core-state.ts';
import { decide } from './evolve.ts';

/**
 * A preemption made room: the preemptor is nominated, each victim evicted (one waiting at
 * Permit is rejected instead, as kube does), lower nominations to the node cleared. When
 * no victim is left to wait for, the preemptor is retried at once.
 */
export function decidePreemption(
  core: CoreState,
  ref: AttemptRef,
  message: string,
  n: Nomination,
): void {
  decide(core, { type: 'PodNominated', ...ref, node: n.node, message });
  for (const victim of n.victims) {
    const waiting = core.pods.inspect(victim.uid);
    const charge = core.cluster.pods.get(victim.uid)?.charge;
    if (waiting?.state === 'waiting' && charge?.kind === 'assumed') {
      decide(core, {
        type: 'PodUnreserved',
        uid: victim.uid,
        key: victim.key,
        attempt: waiting.attempt,
        node: charge.node,
        reason: `preempted by ${ref.key} (${ref.uid})`,
      });
      continue;
    }
    const victimRef = { uid: victim.uid, key: victim.key };
    decide(core, { type: 'VictimPreempted', ...ref, node: n.node, victim: victimRef });
  }
  for (const p of n.clearNominated)
    decide(core, {
      type: 'NominationCleared',
      ...ref,
      node: n.node,
      pod: { uid: p.uid, key: p.key },
    });
  if (core.preemptions.victimsLeft(ref.uid) === 0) victimsGone(core, ref.uid);
}

/** Every victim of preemptor `uid` is gone: it is scheduled again (after its backoff). */
function victimsGone(core: CoreState, uid: string): void {
  core.preemptions.forget(uid);
  if (core.pods.stateOf(uid) === 'preempting')
    core.pods.send(uid, { type: 'REQUEUE', now: core.now });
}

/** Pod `uid` left its node or the cluster: if it was a victim, its preemptors may go on. */
export function noteVictimGone(core: CoreState, uid: string): void {
  for (const preemptor of core.preemptions.victimGone(uid))
    if (core.preemptions.victimsLeft(preemptor) === 0) victimsGone(core, preemptor);
}
