// NodeDeclaredFeatures filter (kube 1.36+): a pod needing a node feature fits only nodes that declare it.

import {
  NO_FEATURES,
  restartAllContainers,
  sameFeatures,
  userNamespacesHostNetwork,
  volumeBindMountOptions,
} from '../cluster/declared-features.ts';
import type { NodeInfo, PodInfo } from '../cluster/types.ts';
import { onNodeChange } from '../framework/hints.ts';
import { type FilterPlugin, type Status, status, success } from '../framework/types.ts';
import { type KubeRelease, latestKubeRelease, releaseAtLeast } from '../model/kube-release.ts';

/** Name of the plugin in the registry and in profiles. */
export const name = 'NodeDeclaredFeatures';

/** kube's errReasonUnsatisfiedRequirements. */
export const ErrReasonUnsatisfied = "node(s) didn't match Pod's required features";

/** The release whose kube-scheduler turned the plugin on by default (feature gate beta). */
export const enabledSince: KubeRelease = '1.36';

/**
 * The features kube's scheduler infers from a pod's spec, each with the first release whose
 * feature registry has it (1.36.3: restart rules and host-network user namespaces; 1.37.2
 * adds bind mount options). Features that never come from a pod's spec (in-place resize,
 * DRA node operations, websockets) are not listed: no pod needs them to be scheduled.
 */
const inferredSince: ReadonlyMap<string, KubeRelease> = new Map<string, KubeRelease>([
  [restartAllContainers, '1.36'],
  [userNamespacesHostNetwork, '1.36'],
  [volumeBindMountOptions, '1.37'],
]);

/** The features `release`'s plugin checks; none before the plugin was on by default. */
export function checkedFeatures(release: KubeRelease): ReadonlySet<string> {
  if (!releaseAtLeast(release, enabledSince)) return new Set();
  return new Set(
    [...inferredSince].filter(([, since]) => releaseAtLeast(release, since)).map(([f]) => f),
  );
}

const rejected: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonUnsatisfied),
);

/**
 * A node added, or its declared features changed (kube's Node Add|UpdateNodeDeclaredFeature
 * with isSchedulableAfterNodeChange). The pod's own update is the queue's business.
 */
export const nodeDeclaredFeaturesChanged = onNodeChange(
  (before, after) => !sameFeatures(before.declaredFeatures ?? NO_FEATURES, after.declaredFeatures),
);

/**
 * The plugin as `release`'s kube-scheduler runs it: the features the pod needs (of those the
 * release infers) must all be among the node's `status.declaredFeatures`, else the node is
 * UnschedulableAndUnresolvable with kube's reason. A pod needing none is skipped (kube's
 * PreFilter Skip). Before 1.36 (gate off) it passes every pod. Takes no arguments.
 */
export function newNodeDeclaredFeatures(_args?: unknown, release: KubeRelease = latestKubeRelease) {
  const checked = checkedFeatures(release);
  const needs = (pod: PodInfo): boolean => pod.requiredNodeFeatures.some((f) => checked.has(f));
  return {
    name,
    queueingHint: nodeDeclaredFeaturesChanged,
    preFilterSkip: (pod: PodInfo): boolean => !needs(pod),
    filter(pod: PodInfo, node: NodeInfo): Status {
      for (const feature of pod.requiredNodeFeatures) {
        // The API server keeps declaredFeatures sorted and unique: membership is kube's match.
        if (checked.has(feature) && !node.declaredFeatures.includes(feature)) return rejected;
      }
      return success;
    },
  } satisfies FilterPlugin;
}
