// PodTopologySpread: filter on DoNotSchedule spread constraints, score on ScheduleAnyway ones.
import type { PodInfo } from '../cluster/types.ts';
import type { FilterPlugin, PreFilterPlugin, ScorePlugin } from '../framework/types.ts';
import { name, podSpreadConstraints } from './pod-topology-spread/common.ts';
import { filter, preFilter } from './pod-topology-spread/filtering.ts';
import { spreadQueueingHint } from './pod-topology-spread/hints.ts';
import { normalize, preScore, score } from './pod-topology-spread/scoring.ts';

export { labelHostname, name } from './pod-topology-spread/common.ts';
export {
  ErrReasonConstraintsNotMatch,
  ErrReasonNodeLabelNotMatch,
} from './pod-topology-spread/filtering.ts';
export { topologyNormalizingWeight } from './pod-topology-spread/scoring.ts';

/**
 * kube 1.34's PodTopologySpread for the pod's own `spec.topologySpreadConstraints` (read
 * from PodInfo's `spreadConstraints`). The cluster-level default constraints (applied by
 * kube to pods of Services, ReplicaSets and StatefulSets that have none) are not
 * supported: a pod without constraints is skipped, as kube does with
 * `defaultingType: List` and empty defaults.
 *
 * PreFilter: per DoNotSchedule constraint, matching pods per eligible domain over all
 * nodes, and the global minimum (0 below minDomains domains). Filter: Unschedulable
 * "node(s) didn't match pod topology spread constraints" when the skew would exceed
 * maxSkew; UnschedulableAndUnresolvable "… (missing required label)" without the key.
 * PreScore/Score/normalize: ScheduleAnyway constraints, fewer matching pods scoring higher.
 */
export const podTopologySpread = {
  name,
  queueingHint: spreadQueueingHint,
  preFilter,
  /** kube's PreFilter Skip: no DoNotSchedule constraint, every node passes. */
  preFilterSkip(pod: PodInfo): boolean {
    return podSpreadConstraints(pod).hard.length === 0;
  },
  filter,
  preScore,
  /** kube's PreScore Skip: no ScheduleAnyway constraint, every node scores the same. */
  preScoreSkip(pod: PodInfo): boolean {
    return podSpreadConstraints(pod).soft.length === 0;
  },
  score,
  normalize,
} satisfies PreFilterPlugin & FilterPlugin & ScorePlugin;

/** Returns the PodTopologySpread plugin (kube's defaultConstraints argument is not supported). */
export function newPodTopologySpread(): typeof podTopologySpread {
  return podTopologySpread;
}
