// The filter and score plugins, and the registry that builds profiles from them.

// Per-plugin namespaces, as kube's packages: `TaintToleration.name`, `NodeName.ErrReason`, …
export * as ImageLocality from './image-locality.ts';
export { imageLocality } from './image-locality.ts';
export * as InterPodAffinity from './inter-pod-affinity.ts';
export { interPodAffinity, newInterPodAffinity } from './inter-pod-affinity.ts';
export * as NodeAffinity from './node-affinity.ts';
export {
  matchesRequiredNodeAffinity,
  nodeAffinity,
  preferredAffinityScore,
} from './node-affinity.ts';
export * as NodeDeclaredFeatures from './node-declared-features.ts';
export { newNodeDeclaredFeatures } from './node-declared-features.ts';
export * as NodeName from './node-name.ts';
export { nodeName } from './node-name.ts';
export * as NodePorts from './node-ports.ts';
export { nodePorts } from './node-ports.ts';
export * as NodeResourcesBalancedAllocation from './node-resources-balanced-allocation.ts';
export {
  balancedAllocationScore,
  nodeResourcesBalancedAllocation,
} from './node-resources-balanced-allocation.ts';
export * as NodeResourcesFit from './node-resources-fit.ts';
export {
  fitsRequest,
  leastRequestedScore,
  mostRequestedScore,
  type NodeResourcesFitArgs,
  newNodeResourcesFit,
  nodeResourcesFit,
} from './node-resources-fit.ts';
export { matchesAnyTerm, matchesNodeSelector, matchesTerm, parseInt64 } from './node-selector.ts';
export * as NodeUnschedulable from './node-unschedulable.ts';
export { nodeUnschedulable } from './node-unschedulable.ts';
export * as NodeVolumeLimits from './node-volume-limits.ts';
export { defaultNormalizeScore } from './normalize-score.ts';
export * as PodTopologySpread from './pod-topology-spread.ts';
export { podTopologySpread } from './pod-topology-spread.ts';
export * as PodValidity from './pod-validity.ts';
export { podValidity } from './pod-validity.ts';
export {
  defaultFilters,
  defaultFiltersOf,
  defaultProfile,
  defaultScores,
  defaultScoresOf,
  type Plugin,
  type PluginFactory,
  type ProfileConfig,
  profileFromConfig,
  registry,
  type ScoreConfig,
} from './registry.ts';
export * as TaintToleration from './taint-toleration.ts';
export {
  countIntolerablePreferNoSchedule,
  findUntoleratedTaint,
  taintToleration,
  toleratesTaint,
  tolerationsTolerateTaint,
} from './taint-toleration.ts';
export * as VolumeBinding from './volume-binding.ts';
export * as VolumeRestrictions from './volume-restrictions.ts';
export * as VolumeZone from './volume-zone.ts';
