// kube-scheduler 1.34–1.37's in-tree plugins as a KubeSchedulerConfiguration names them, and each release's default set.
import { type KubeRelease, latestKubeRelease, releaseAtLeast } from '../model/kube-release.ts';
import { registry } from '../plugins/registry.ts';

/** The extension points a KubeSchedulerConfiguration profile lists plugins for. */
export const extensionPoints = [
  'multiPoint',
  'preEnqueue',
  'queueSort',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'preBind',
  'bind',
  'postBind',
] as const;

/** One of `extensionPoints`. */
export type ExtensionPoint = (typeof extensionPoints)[number];

/** The points whose plugin lists berth reads; the others have no configurable plugin in berth. */
export type BerthPoint = 'preFilter' | 'filter' | 'score' | 'postFilter';

/** A plugin entry of a plugin set: a name and, for score plugins, a weight. */
export interface PluginEntry {
  name: string;
  weight?: number;
}

/**
 * kube's default profile for `release` (v1 `getDefaultPlugins` with the feature gates on by
 * default in that release): every plugin enabled through multiPoint, in kube's order, with
 * the score weights. 1.35: DynamicResources gets weight 2 (it scores). 1.36:
 * NodeDeclaredFeatures appended (gate beta, on). 1.37: NodeName before NodeUnschedulable.
 */
export function kubeDefaultMultiPointOf(release: KubeRelease): readonly Readonly<PluginEntry>[] {
  const nodeNameFirst = releaseAtLeast(release, '1.37');
  return Object.freeze([
    { name: 'SchedulingGates' },
    { name: 'PrioritySort' },
    ...(nodeNameFirst
      ? [{ name: 'NodeName' }, { name: 'NodeUnschedulable' }]
      : [{ name: 'NodeUnschedulable' }, { name: 'NodeName' }]),
    { name: 'TaintToleration', weight: 3 },
    { name: 'NodeAffinity', weight: 2 },
    { name: 'NodePorts' },
    { name: 'NodeResourcesFit', weight: 1 },
    { name: 'VolumeRestrictions' },
    { name: 'NodeVolumeLimits' },
    { name: 'VolumeBinding' },
    { name: 'VolumeZone' },
    { name: 'PodTopologySpread', weight: 2 },
    { name: 'InterPodAffinity', weight: 2 },
    releaseAtLeast(release, '1.35')
      ? { name: 'DynamicResources', weight: 2 }
      : { name: 'DynamicResources' },
    { name: 'DefaultPreemption' },
    { name: 'NodeResourcesBalancedAllocation', weight: 1 },
    { name: 'ImageLocality', weight: 1 },
    { name: 'DefaultBinder' },
    ...(releaseAtLeast(release, '1.36') ? [{ name: 'NodeDeclaredFeatures' }] : []),
  ]);
}

/** The latest release's default multiPoint list (`kubeDefaultMultiPointOf` for others). */
export const kubeDefaultMultiPoint: readonly Readonly<PluginEntry>[] =
  kubeDefaultMultiPointOf(latestKubeRelease);

/**
 * The berth-relevant extension points of each kube plugin berth has or is getting, as kube
 * implements them (PreScore goes with Score in berth). A plugin listed at a point kube
 * gives it but berth folds into another (NodePorts' PreFilter: berth's Filter computes the
 * ports itself) is accepted there and changes nothing.
 */
const kubePoints: Readonly<Record<string, readonly BerthPoint[]>> = {
  NodeUnschedulable: ['filter'],
  NodeName: ['preFilter', 'filter'],
  TaintToleration: ['filter', 'score'],
  NodeAffinity: ['preFilter', 'filter', 'score'],
  NodePorts: ['preFilter', 'filter'],
  NodeResourcesFit: ['preFilter', 'filter', 'score'],
  PodTopologySpread: ['preFilter', 'filter', 'score'],
  InterPodAffinity: ['preFilter', 'filter', 'score'],
  NodeResourcesBalancedAllocation: ['score'],
  ImageLocality: ['score'],
  DynamicResources: ['preFilter', 'filter', 'score', 'postFilter'],
  DefaultPreemption: ['postFilter'],
  NodeDeclaredFeatures: ['preFilter', 'filter'],
};

/**
 * Points kube gained in a release: before it, the plugin does not extend the point (kube
 * 1.34 refuses DynamicResources as a score plugin, 1.34–1.36 NodeName as a PreFilter).
 */
const pointSince: Readonly<Record<string, Partial<Record<BerthPoint, KubeRelease>>>> = {
  NodeName: { preFilter: '1.37' },
  DynamicResources: { score: '1.35' },
};

/** Plugins kube's registry gained in a release: before it, kube knows no such name. */
const pluginSince: Readonly<Record<string, KubeRelease>> = { NodeDeclaredFeatures: '1.35' };

/** Every in-tree plugin name kube 1.37 accepts in a v1 configuration. */
const kubeNames: ReadonlySet<string> = new Set([
  ...kubeDefaultMultiPoint.map((p) => p.name),
  ...Object.keys(kubePoints),
]);

/** Whether `release`'s kube knows plugin `name` (every name of `kubeNames` since it came). */
function knownIn(name: string, release: KubeRelease): boolean {
  const since = pluginSince[name];
  return since === undefined || releaseAtLeast(release, since);
}

/** Plugins kube's v1 API refuses (removed in favour of NodeVolumeLimits). */
const removedNames: ReadonlySet<string> = new Set([
  'AzureDiskLimits',
  'CinderLimits',
  'EBSLimits',
  'GCEPDLimits',
]);

/** berth's own PreFilters, which every profile runs first whatever it says. */
const builtIn: ReadonlySet<string> = new Set(['PodValidity', 'UnsupportedConstraints']);

/** What berth knows of a plugin name. */
export type PluginKind =
  /** berth has it (in its registry). */
  | 'berth'
  /** kube has it, berth does not (yet). */
  | 'kube-only'
  /** kube's v1 API refuses it. */
  | 'removed'
  /** berth's own PreFilter that always runs. */
  | 'built-in'
  | 'unknown';

/**
 * Classifies a plugin name as a configuration for `release` sees it (the registry decides
 * what berth has; a plugin kube added after `release` is unknown there).
 */
export function pluginKind(name: string, release: KubeRelease = latestKubeRelease): PluginKind {
  if (builtIn.has(name)) return 'built-in';
  if (!knownIn(name, release)) return 'unknown';
  if (registry.has(name)) return 'berth';
  if (kubeNames.has(name)) return 'kube-only';
  if (removedNames.has(name)) return 'removed';
  return 'unknown';
}

/** The names a configuration for `release` may use, for error messages. */
export function knownPluginNames(release: KubeRelease = latestKubeRelease): string {
  return [...kubeNames]
    .filter((n) => knownIn(n, release))
    .sort()
    .join(', ');
}

const berthPoints = new Map<string, ReadonlySet<BerthPoint>>();

/** The points berth's instance of `name` for `release` runs (probed once per release). */
function berthPointsOf(name: string, release: KubeRelease): ReadonlySet<BerthPoint> {
  const key = `${release}/${name}`;
  let points = berthPoints.get(key);
  if (points === undefined) {
    const p = registry.get(name)?.(undefined, release);
    const has: BerthPoint[] = [];
    if (p?.preFilter !== undefined) has.push('preFilter');
    if (p?.filter !== undefined) has.push('filter');
    if (p?.score !== undefined) has.push('score');
    if (p?.postFilter !== undefined) has.push('postFilter');
    points = new Set(has);
    berthPoints.set(key, points);
  }
  return points;
}

/**
 * Whether plugin `name` extends `point` as a configuration for `release` sees it: kube's
 * table for kube's plugins, else what berth's instance implements.
 */
export function extendsPoint(
  name: string,
  point: BerthPoint,
  release: KubeRelease = latestKubeRelease,
): boolean {
  const kube = kubePoints[name];
  if (kube === undefined) return berthPointsOf(name, release).has(point);
  const since = pointSince[name]?.[point];
  return kube.includes(point) && (since === undefined || releaseAtLeast(release, since));
}

/** Whether berth's instance of `name` for `release` runs at `point` (false for plugins berth lacks). */
export function berthRuns(
  name: string,
  point: BerthPoint,
  release: KubeRelease = latestKubeRelease,
): boolean {
  return registry.has(name) && berthPointsOf(name, release).has(point);
}
