// What every mode of `berth explain` shares: the pod argument, the profile, notes, the cycle call.
import type { ClusterState, PodInfo } from '../cluster/types.ts';
import { type BerthConfig, type ProfileInUse, profilesOf } from '../core/config.ts';
import { explainPod, type PodExplanation } from '../framework/explain-pod.ts';
import { FlagError } from './errors.ts';

/**
 * The profile berth schedules a pod of `schedulerName` with under `config` (a log header's,
 * or the flags'): that scheduler name's profile, else the first (a pod berth would not
 * schedule is explained with the profile of berth's first scheduler name).
 */
export function profileFor(config: BerthConfig, schedulerName: string): ProfileInUse {
  const all = profilesOf(config);
  return all.find((p) => p.schedulerName === schedulerName) ?? (all[0] as ProfileInUse);
}

/** `NS/POD` (or `POD`, in namespace default) → `namespace/name`. */
export function podKeyOf(arg: string | undefined): string {
  if (arg === undefined || arg === '')
    throw new FlagError('explain needs a pod: berth explain NAMESPACE/NAME');
  const parts = arg.split('/');
  if (parts.length > 2 || parts.some((p) => p === ''))
    throw new FlagError(`the pod must be NAMESPACE/NAME, got ${JSON.stringify(arg)}`);
  return parts.length === 1 ? `default/${arg}` : arg;
}

/** What a cycle is explained from, once the state is known. */
export interface CycleInputs {
  state: ClusterState;
  pod: PodInfo;
  /** The profile and its percentageOfNodesToScore (see `profileFor`). */
  profile: ProfileInUse;
  cursor: number;
  rngState: number;
}

/** Runs explainPod on the inputs. */
export function explainCycle(c: CycleInputs): PodExplanation {
  return explainPod({
    profile: c.profile.profile,
    snapshot: c.state,
    pod: c.pod,
    percentageOfNodesToScore: c.profile.percentageOfNodesToScore,
    cursor: c.cursor,
    rngState: c.rngState,
  });
}

/** Notes about a pod that berth would not schedule as it stands. */
export function podNotes(pod: PodInfo, config: BerthConfig): string[] {
  const notes: string[] = [];
  const names = profilesOf(config).map((p) => p.schedulerName);
  if (!names.includes(pod.schedulerName))
    notes.push(
      `the pod's schedulerName is "${pod.schedulerName}", not ${names.map((n) => `"${n}"`).join(' or ')}: berth does not schedule it; this is what it would decide`,
    );
  if (pod.schedulingGates.length > 0)
    notes.push(
      `the pod has scheduling gates (${pod.schedulingGates.join(', ')}): no cycle runs until they are removed`,
    );
  return notes;
}
