// A successful Binding in the simulated cluster: the bound pod as stored, and the order its result and watch event arrive in.

import type { Rng } from '../../framework/rng.ts';
import type { PodObject } from '../../model/objects.ts';

/**
 * A bind's result and the watch event of the bound pod, in the order they reach the
 * scheduler: the watch first with probability `watchFirstRate` (drawn from `rng` only then).
 */
export function bindEventsInOrder<E>(
  result: E,
  watch: E,
  opts: { watchFirstRate?: number; rng: Rng },
): [E, E] {
  const rate = opts.watchFirstRate ?? 0;
  const watchFirst = rate > 0 && opts.rng.nextFloat() < rate;
  return watchFirst ? [watch, result] : [result, watch];
}

/**
 * `pod` bound to `node` and running, with `extendedResourceClaimStatus` when PreBind made
 * the special claim of its DRA-backed extended resources.
 */
export function boundPodOf(pod: PodObject, node: string, extended?: object): PodObject {
  const status = extended === undefined ? {} : { extendedResourceClaimStatus: extended };
  return {
    ...pod,
    spec: { ...pod.spec, nodeName: node },
    status: { ...pod.status, phase: 'Running', ...status },
  };
}
