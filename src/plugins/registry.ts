// The plugin registry (name → factory) and the profiles built from it.
import type {
  FilterPlugin,
  PostFilterPlugin,
  PreFilterPlugin,
  Profile,
  QueueingHint,
  ReservePlugin,
  ScorePlugin,
  WeightedScorePlugin,
} from '../framework/types.ts';
import { type KubeRelease, latestKubeRelease } from '../model/kube-release.ts';
import { proveInfeasibleFromCapacity } from './capacity-proof.ts';
import {
  defaultFiltersOf,
  defaultPostFilters,
  defaultPreFiltersOf,
  defaultScoresOf,
} from './default-lists.ts';
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
import * as podValidity from './pod-validity.ts';
import * as taintToleration from './taint-toleration.ts';
import * as unsupportedConstraints from './unsupported-constraints.ts';
import * as volumeBinding from './volume-binding.ts';
import * as volumeRestrictions from './volume-restrictions.ts';
import * as volumeZone from './volume-zone.ts';

/** A plugin instance: any combination of the extension points berth runs. */
export type Plugin = { readonly name: string } & Partial<
  Pick<PreFilterPlugin, 'preFilter' | 'queueingHint'> &
    Pick<FilterPlugin, 'filter'> &
    ScorePlugin &
    Pick<PostFilterPlugin, 'postFilter'>
>;

/**
 * Creates a plugin from its (optional, plugin-specific) arguments and the kube-scheduler
 * release berth emulates (plugins whose behaviour changed between releases read it; absent:
 * the latest);
 * throws on bad args.
 */
export type PluginFactory = (args?: unknown, release?: KubeRelease) => Plugin;

/** Every plugin berth knows, by name (kube's in-tree registry, trimmed). */
export const registry: ReadonlyMap<string, PluginFactory> = new Map<string, PluginFactory>([
  [podValidity.name, podValidity.newPodValidity],
  [unsupportedConstraints.name, () => unsupportedConstraints.newUnsupportedConstraints()],
  [nodeUnschedulable.name, nodeUnschedulable.newNodeUnschedulable],
  [nodeName.name, nodeName.newNodeName],
  [taintToleration.name, taintToleration.newTaintToleration],
  [nodeAffinity.name, nodeAffinity.newNodeAffinity],
  [nodePorts.name, nodePorts.newNodePorts],
  [nodeResourcesFit.name, nodeResourcesFit.newNodeResourcesFit],
  [
    nodeResourcesBalancedAllocation.name,
    nodeResourcesBalancedAllocation.newNodeResourcesBalancedAllocation,
  ],
  [volumeRestrictions.name, volumeRestrictions.newVolumeRestrictions],
  [nodeVolumeLimits.name, nodeVolumeLimits.newNodeVolumeLimits],
  [volumeBinding.name, volumeBinding.newVolumeBinding],
  [volumeZone.name, volumeZone.newVolumeZone],
  [podTopologySpread.name, podTopologySpread.newPodTopologySpread],
  [interPodAffinity.name, interPodAffinity.newInterPodAffinity],
  [imageLocality.name, imageLocality.newImageLocality],
  [nodeDeclaredFeatures.name, nodeDeclaredFeatures.newNodeDeclaredFeatures],
  [dynamicResources.name, dynamicResources.dynamicResources],
  [defaultPreemption.name, defaultPreemption.defaultPreemption],
]);

export { defaultFiltersOf, defaultPostFilters, defaultPreFiltersOf, defaultScoresOf };

/** A score plugin entry of a profile configuration. */
export interface ScoreConfig {
  name: string;
  /** Integer 1–100; default 1. */
  weight?: number;
}

/**
 * A profile as configured: plugin names per extension point, in run order, plus
 * per-plugin arguments. An omitted list takes the default profile's list (for PreFilters,
 * the default ones whose plugin is among the filters); PodValidity and
 * UnsupportedConstraints always run first among the PreFilters whatever the configuration
 * says.
 */
export interface ProfileConfig {
  preFilters?: string[];
  filters?: string[];
  scores?: ScoreConfig[];
  /** PostFilters, run in order when no node fits (kube: DynamicResources, DefaultPreemption). */
  postFilters?: string[];
  /** Arguments by plugin name, e.g. `{ NodeResourcesFit: { scoringStrategy: {...} } }`. */
  pluginArgs?: Record<string, unknown>;
  /** The kube-scheduler release whose behaviours the plugins follow (default: the latest). */
  release?: KubeRelease;
  /**
   * Refuse pods with DRA resource claims (UnsupportedConstraints), as berth did before it
   * allocated them: set when replaying a log recorded then (default: false).
   */
  refuseResourceClaims?: boolean;
  /**
   * DynamicResources honours device binding conditions (Filter's readiness checks, PreBind's
   * wait): set for fresh runs and format 6 logs, unset when replaying an older log.
   */
  bindingConditions?: boolean;
  /**
   * DynamicResources backs extended resources by DRA (kube's DRAExtendedResource, from 1.36):
   * off when replaying a log recorded before berth did (default: false).
   */
  extendedResourceClaims?: boolean;
  /**
   * DynamicResources bounds each node's allocator search (its filterTimeout): set for fresh
   * runs and format 6 logs that record it, unset when replaying an older log.
   */
  draFilterTimeout?: boolean;
}

/** kube 1.37's default PreFilters that berth implements (`defaultPreFiltersOf` for others). */
export const defaultPreFilters: readonly string[] = defaultPreFiltersOf(latestKubeRelease);

/** kube 1.37's default filters that berth implements, in order (`defaultFiltersOf` for others). */
export const defaultFilters: readonly string[] = defaultFiltersOf(latestKubeRelease);

/** kube 1.37's default score plugins with weights (`defaultScoresOf` for others). */
export const defaultScores: readonly Readonly<Required<ScoreConfig>>[] =
  defaultScoresOf(latestKubeRelease);

function isPreFilter(p: Plugin): p is Plugin & PreFilterPlugin {
  return p.preFilter !== undefined;
}

function isFilter(p: Plugin): p is Plugin & FilterPlugin {
  return p.filter !== undefined;
}

function isScore(p: Plugin): p is Plugin & ScorePlugin {
  return p.score !== undefined;
}

function isPostFilter(p: Plugin): p is Plugin & PostFilterPlugin {
  return p.postFilter !== undefined;
}

function knownNames(): string {
  return [...registry.keys()].sort().join(', ');
}

function checkUnique(names: readonly string[], point: string): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw new Error(`plugin "${n}" is listed twice in ${point}`);
    seen.add(n);
  }
}

/**
 * Builds a profile from a configuration. Throws an Error naming the problem for an
 * unknown plugin, a plugin listed at an extension point it does not implement, a
 * duplicate, or a bad weight. One instance per plugin name is shared across points.
 */
export function profileFromConfig(config: ProfileConfig = {}): Profile {
  const instances = new Map<string, Plugin>();
  const release = config.release ?? latestKubeRelease;
  const instance = (pluginName: string, point: string): Plugin => {
    const existing = instances.get(pluginName);
    if (existing !== undefined) return existing;
    const factory = registry.get(pluginName);
    if (factory === undefined) {
      throw new Error(`unknown plugin "${pluginName}" in ${point}; known plugins: ${knownNames()}`);
    }
    const args = config.pluginArgs?.[pluginName];
    const created =
      pluginName === unsupportedConstraints.name
        ? unsupportedConstraints.newUnsupportedConstraints(config.refuseResourceClaims === true)
        : pluginName === dynamicResources.name
          ? dynamicResources.dynamicResources(args, release, {
              bindingConditions: config.bindingConditions === true,
              filterTimeout: config.draFilterTimeout === true,
              extendedResources: config.extendedResourceClaims === true,
            })
          : factory(args, release);
    instances.set(pluginName, created);
    return created;
  };

  const alwaysFirst = [podValidity.name, unsupportedConstraints.name];
  const filterNames = config.filters ?? defaultFiltersOf(release);
  // Without a PreFilter list, a default PreFilter runs when its plugin filters.
  const preFilterList =
    config.preFilters ?? defaultPreFiltersOf(release).filter((n) => filterNames.includes(n));
  const preFilterNames = [...alwaysFirst, ...preFilterList.filter((n) => !alwaysFirst.includes(n))];
  const scoreConfigs = config.scores ?? defaultScoresOf(release);
  const postFilterNames = config.postFilters ?? defaultPostFilters;
  checkUnique(preFilterNames, 'preFilters');
  checkUnique(postFilterNames, 'postFilters');
  checkUnique(filterNames, 'filters');
  checkUnique(
    scoreConfigs.map((s) => s.name),
    'scores',
  );

  const preFilter: PreFilterPlugin[] = preFilterNames.map((n) => {
    const p = instance(n, 'preFilters');
    if (!isPreFilter(p)) throw new Error(`plugin "${n}" has no PreFilter extension point`);
    return p;
  });
  const filter: FilterPlugin[] = filterNames.map((n) => {
    const p = instance(n, 'filters');
    if (!isFilter(p)) throw new Error(`plugin "${n}" has no Filter extension point`);
    return p;
  });
  const score: WeightedScorePlugin[] = scoreConfigs.map((s) => {
    const p = instance(s.name, 'scores');
    if (!isScore(p)) throw new Error(`plugin "${s.name}" has no Score extension point`);
    const weight = s.weight ?? 1;
    if (!Number.isInteger(weight) || weight < 1 || weight > 100) {
      throw new Error(`score plugin "${s.name}" needs an integer weight 1–100, got ${weight}`);
    }
    return { plugin: p, weight };
  });
  const postFilter: PostFilterPlugin[] = postFilterNames.map((n) => {
    const p = instance(n, 'postFilters');
    if (!isPostFilter(p)) throw new Error(`plugin "${n}" has no PostFilter extension point`);
    return p;
  });
  // kube's Reserve plugins are its enabled filters that reserve (DynamicResources).
  const reserve = filter.filter((p): p is FilterPlugin & ReservePlugin => 'reserve' in p);
  const queueingHints = new Map<string, QueueingHint>();
  for (const [pluginName, p] of instances) {
    if (p.queueingHint !== undefined) queueingHints.set(pluginName, p.queueingHint);
  }
  return {
    preFilter,
    filter,
    ...(reserve.length > 0 ? { reserve } : {}),
    score,
    postFilter,
    queueingHints,
    proveInfeasible: proveInfeasibleFromCapacity,
  };
}

/**
 * kube's default profile for `release` (default: the latest) restricted to the plugins berth
 * has: PreFilters PodValidity, UnsupportedConstraints, then `defaultPreFiltersOf(release)`;
 * Filters `defaultFiltersOf(release)` (1.34–1.36: NodeUnschedulable, NodeName, …; 1.37:
 * NodeName first; from 1.36 NodeDeclaredFeatures last); Scores `defaultScoresOf(release)`
 * (TaintToleration ×3, NodeAffinity ×2, NodeResourcesFit (LeastAllocated) ×1,
 * PodTopologySpread ×2, InterPodAffinity ×2 (hardPodAffinityWeight 1), from 1.35
 * DynamicResources ×2, NodeResourcesBalancedAllocation ×1, ImageLocality ×1); PostFilters
 * DynamicResources, DefaultPreemption.
 */
export function defaultProfile(release: KubeRelease = latestKubeRelease): Profile {
  return profileFromConfig({ release });
}
