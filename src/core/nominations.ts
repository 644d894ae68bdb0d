// A pod's own status.nominatedNodeName by release: cleared when its attempt fails (kube 1.35+ semantics).
import { countNominationsOf } from '../cluster/indexes.ts';
import type { AttemptRef, DecisionEvent } from '../events/types.ts';
import { releaseAtLeast } from '../model/kube-release.ts';
import { emulatedReleaseOf } from './config.ts';
import type { CoreState } from './core-state.ts';

/**
 * True when berth schedules as kube-scheduler 1.35 or later (NominatedNodeNameForExpectation
 * and ClearingNominatedNodeNameAfterBinding on): a pod's nomination is cleared when its
 * attempt fails, and a nomination the pod object drops ends. kube 1.35+ writes
 * `nominatedNodeName` before a bind only when Permit waits or PreBind has work; berth has
 * neither (no volume binding or provisioning, no DRA claims, Permit never waits), so it
 * writes nothing there, as kube then does. Under 1.34 berth keeps what its recorded logs
 * did: it never clears a pod's own nomination after a failed attempt.
 */
export function nominatesForExpectation(core: CoreState): boolean {
  return releaseAtLeast(emulatedReleaseOf(core.config), '1.35');
}

/**
 * Sets how the core's cluster state treats nominations by release: from 1.35 as kube's
 * nominator (an update that drops a pod's nomination follows UpdateNominatedPod; only pods
 * naming one of berth's scheduler names count), under 1.34 as berth's logs recorded them.
 * Called on a new core and after a snapshot is restored into one.
 */
export function followNominationsByRelease(core: CoreState): void {
  const kube = nominatesForExpectation(core);
  core.cluster.followsNominationRemoval = kube;
  countNominationsOf(core.cluster, kube ? new Set(core.profiles.keys()) : undefined);
}

/**
 * The decision that clears the nomination of the attempt's own pod after the attempt
 * failed, as kube's failure handler does (its clearNominatedNode): none under 1.34, and
 * none when the pod has no nomination (kube patches only a value that changes).
 */
export function ownNominationCleared(core: CoreState, ref: AttemptRef): DecisionEvent | undefined {
  if (!nominatesForExpectation(core)) return undefined;
  const nominated = core.cluster.pods.get(ref.uid)?.info.nominatedNodeName;
  if (nominated === undefined) return undefined;
  const { uid, key, attempt } = ref;
  return { type: 'NominationCleared', uid, key, attempt, node: nominated, pod: { uid, key } };
}
