// kube-scheduler's default profile for each release berth emulates, restricted to the plugins berth has.
import { type KubeRelease, latestKubeRelease, releaseAtLeast } from '../model/kube-release.ts';
import * as defaultPreemption from './default-preemption.ts';
import * as dynamicResources from './dynamic-resources.ts';
import * as imageLocality from './image-locality.ts';
import * as interPodAffinity from './inter-pod-affinity.ts';
import * as nodeAffinity from './node-affinity.ts';
import * as nodeDeclaredFeatures from './node-declared-features.ts';
import * as nodeName from './node-name.ts';
import * as nodePorts from './node-ports.ts';
import * as nodeResourcesBalancedAllocation from './node-resources-balanced-allocation.ts';
import * as nodeResourcesFit from './node-resources-fit.ts';
import * as nodeUnschedulable from './node-unschedulable.ts';
import * as nodeVolumeLimits from './node-volume-limits.ts';
import * as podTopologySpread from './pod-topology-spread.ts';
import * as taintToleration from './taint-toleration.ts';
import * as volumeBinding from './volume-binding.ts';
import * as volumeRestrictions from './volume-restrictions.ts';
import * as volumeZone from './volume-zone.ts';

/** A score plugin of the default profile with its weight. */
export interface DefaultScore {
  readonly name: string;
  readonly weight: number;
}

/** The release whose default profile runs NodeName before NodeUnschedulable (1.37). */
export const nodeNameFirstSince: KubeRelease = '1.37';

/**
 * The volume plugins, the pod-placement ones, then DynamicResources (kube inserts it before
 * DefaultPreemption in its multiPoint list): each a PreFilter and a filter, in kube's order.
 */
const volumeAndPodPlugins: readonly string[] = [
  volumeRestrictions.name,
  nodeVolumeLimits.name,
  volumeBinding.name,
  volumeZone.name,
  podTopologySpread.name,
  interPodAffinity.name,
  dynamicResources.name,
];

/** Whether `release`'s default profile has NodeDeclaredFeatures (gate on by default: 1.36). */
function hasDeclaredFeatures(release: KubeRelease): boolean {
  return releaseAtLeast(release, nodeDeclaredFeatures.enabledSince);
}

/**
 * kube's default PreFilters that berth implements, in kube's order (after the two berth
 * always runs first). The same in 1.34–1.37: the PreFilters kube added (NodeName's in
 * 1.37, NodeDeclaredFeatures' in 1.36) are folded into their filters' Skip in berth.
 */
export function defaultPreFiltersOf(_release: KubeRelease = latestKubeRelease): readonly string[] {
  return Object.freeze([nodeAffinity.name, ...volumeAndPodPlugins]);
}

/**
 * kube's default filters that berth implements, in `release`'s order: NodeName moved before
 * NodeUnschedulable in 1.37 (a node failing both is counted under NodeName's reason);
 * NodeDeclaredFeatures, appended to kube's multiPoint list when its gate is on, is last
 * from 1.36.
 */
export function defaultFiltersOf(release: KubeRelease = latestKubeRelease): readonly string[] {
  const first = releaseAtLeast(release, nodeNameFirstSince)
    ? [nodeName.name, nodeUnschedulable.name]
    : [nodeUnschedulable.name, nodeName.name];
  return Object.freeze([
    ...first,
    taintToleration.name,
    nodeAffinity.name,
    nodePorts.name,
    nodeResourcesFit.name,
    ...volumeAndPodPlugins,
    ...(hasDeclaredFeatures(release) ? [nodeDeclaredFeatures.name] : []),
  ]);
}

/**
 * kube's default score plugins that berth implements, with `release`'s weights, in kube's
 * order: DynamicResources (weight 2) from 1.35, where kube's multiPoint list has it (just
 * before DefaultPreemption).
 */
export function defaultScoresOf(release: KubeRelease = latestKubeRelease): readonly DefaultScore[] {
  const dra = releaseAtLeast(release, dynamicResources.scoreSince)
    ? [{ name: dynamicResources.name, weight: 2 }]
    : [];
  return Object.freeze(
    [
      { name: taintToleration.name, weight: 3 },
      { name: nodeAffinity.name, weight: 2 },
      { name: nodeResourcesFit.name, weight: 1 },
      { name: podTopologySpread.name, weight: 2 },
      { name: interPodAffinity.name, weight: 2 },
      ...dra,
      { name: nodeResourcesBalancedAllocation.name, weight: 1 },
      { name: imageLocality.name, weight: 1 },
    ].map((s) => Object.freeze(s)),
  );
}

/** kube's default PostFilters, in its order (DynamicResources first): the same in 1.34–1.37. */
export const defaultPostFilters: readonly string[] = Object.freeze([
  dynamicResources.name,
  defaultPreemption.name,
]);
