// PodTopologySpread: filter on DoNotSchedule spread constraints, score on ScheduleAnyway ones.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { CycleState, FilterPlugin, PreFilterPlugin, ScorePlugin } from '../framework/types.ts';
import { name } from './pod-topology-spread/common.ts';
import {
  defaultSpreadArgs,
  parseSpreadArgs,
  type SpreadArgs,
} from './pod-topology-spread/defaults.ts';
import { podTopologySpreadExtensions } from './pod-topology-spread/extensions.ts';
import { filter, preFilter, preFilterSkip } from './pod-topology-spread/filtering.ts';
import { spreadQueueingHint } from './pod-topology-spread/hints.ts';
import { normalize, preScore, preScoreSkip, score } from './pod-topology-spread/scoring.ts';

export { labelHostname, name } from './pod-topology-spread/common.ts';
export {
  type DefaultConstraint,
  type DefaultingType,
  defaultSelector,
  labelZone,
  parseSpreadArgs,
  type SpreadArgs,
  systemDefaultConstraints,
} from './pod-topology-spread/defaults.ts';
export { podTopologySpreadExtensions } from './pod-topology-spread/extensions.ts';
export {
  ErrReasonConstraintsNotMatch,
  ErrReasonNodeLabelNotMatch,
} from './pod-topology-spread/filtering.ts';
export { topologyNormalizingWeight } from './pod-topology-spread/scoring.ts';

/**
 * kube 1.34's PodTopologySpread with PodTopologySpreadArgs (`defaultingType`,
 * `defaultConstraints`; default System: hostname maxSkew 3 and zone maxSkew 5, both
 * ScheduleAnyway). A pod's own `spec.topologySpreadConstraints` win; a pod without any
 * gets the default constraints, with the selector kube deduces from the Services,
 * ReplicationController, ReplicaSet or StatefulSet that select or own it (none: skipped).
 *
 * PreFilter: per DoNotSchedule constraint, matching pods per eligible domain over all
 * nodes, and the global minimum (0 below minDomains domains). Filter: Unschedulable
 * "node(s) didn't match pod topology spread constraints" when the skew would exceed
 * maxSkew; UnschedulableAndUnresolvable "… (missing required label)" without the key.
 * AddPod/RemovePod (`extensions`): a pod put on or taken off a what-if node updates its
 * domains' counts and the global minimums (kube's critical paths).
 * PreScore/Score/normalize: ScheduleAnyway constraints, fewer matching pods scoring higher.
 * Throws an Error naming the field for invalid args.
 */
export function newPodTopologySpread(rawArgs?: unknown): PodTopologySpreadPlugin {
  return withArgs(rawArgs === undefined ? defaultSpreadArgs : parseSpreadArgs(rawArgs));
}

function withArgs(args: SpreadArgs) {
  return {
    name,
    queueingHint: spreadQueueingHint,
    preFilter: (pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot) =>
      preFilter(pod, state, snapshot, args),
    extensions: podTopologySpreadExtensions,
    /** kube's PreFilter Skip: no DoNotSchedule constraint, every node passes. */
    preFilterSkip,
    filter,
    preScore: (
      pod: PodInfo,
      state: CycleState,
      snapshot: ClusterSnapshot,
      nodes: readonly NodeInfo[],
    ) => preScore(pod, state, snapshot, nodes, args),
    /** kube's PreScore Skip: no ScheduleAnyway constraint, every node scores the same. */
    preScoreSkip: (pod: PodInfo, state: CycleState, snapshot: ClusterSnapshot) =>
      preScoreSkip(pod, state, snapshot, args),
    score,
    normalize,
  } satisfies PreFilterPlugin & FilterPlugin & ScorePlugin;
}

/** The plugin's extension points (one instance per set of args), all present. */
export type PodTopologySpreadPlugin = ReturnType<typeof withArgs>;

/** The plugin with kube's default args (System defaulting). */
export const podTopologySpread: PodTopologySpreadPlugin = newPodTopologySpread();
