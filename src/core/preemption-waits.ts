// Preemption's bookkeeping: a preemptor waits for its victims to go and is retried once they are.
import type { CoreState } from './core-state.ts';

/** Preemptor `uid`'s evictions are decided: with no victim left to wait for, it is retried at once. */
export function settlePreemption(core: CoreState, uid: string): void {
  if (core.preemptions.victimsLeft(uid) === 0) victimsGone(core, uid);
}

/** Every victim of preemptor `uid` is gone: it is scheduled again (after its backoff). */
function victimsGone(core: CoreState, uid: string): void {
  core.preemptions.forget(uid);
  core.pods.send(uid, { type: 'VICTIMS_GONE', now: core.now });
}

/** Pod `uid` left its node or the cluster: if it was a victim, its preemptors may go on. */
export function noteVictimGone(core: CoreState, uid: string): void {
  for (const preemptor of core.preemptions.victimGone(uid))
    if (core.preemptions.victimsLeft(preemptor) === 0) victimsGone(core, preemptor);
}
