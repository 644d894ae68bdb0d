// kube-scheduler 1.34's in-tree plugins as a KubeSchedulerConfiguration names them, and its default set.
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
 * kube's default profile (v1 `getDefaultPlugins` with DynamicResourceAllocation on, as in
 * 1.34): every plugin enabled through multiPoint, in kube's order, with the score weights.
 */
export const kubeDefaultMultiPoint: readonly Readonly<PluginEntry>[] = Object.freeze([
  { name: 'SchedulingGates' },
  { name: 'PrioritySort' },
  { name: 'NodeUnschedulable' },
  { name: 'NodeName' },
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
  { name: 'DynamicResources' },
  { name: 'DefaultPreemption' },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 },
  { name: 'ImageLocality', weight: 1 },
  { name: 'DefaultBinder' },
]);

/**
 * The berth-relevant extension points of each kube plugin berth has or is getting, as kube
 * implements them (PreScore goes with Score in berth). A plugin listed at a point kube
 * gives it but berth folds into another (NodePorts' PreFilter: berth's Filter computes the
 * ports itself) is accepted there and changes nothing.
 */
const kubePoints: Readonly<Record<string, readonly BerthPoint[]>> = {
  NodeUnschedulable: ['filter'],
  NodeName: ['filter'],
  TaintToleration: ['filter', 'score'],
  NodeAffinity: ['preFilter', 'filter', 'score'],
  NodePorts: ['preFilter', 'filter'],
  NodeResourcesFit: ['preFilter', 'filter', 'score'],
  PodTopologySpread: ['preFilter', 'filter', 'score'],
  InterPodAffinity: ['preFilter', 'filter', 'score'],
  NodeResourcesBalancedAllocation: ['score'],
  ImageLocality: ['score'],
  DynamicResources: ['preFilter', 'filter', 'postFilter'],
  DefaultPreemption: ['postFilter'],
};

/** Every in-tree plugin name kube 1.34 accepts in a v1 configuration. */
const kubeNames: ReadonlySet<string> = new Set([
  ...kubeDefaultMultiPoint.map((p) => p.name),
  ...Object.keys(kubePoints),
]);

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

/** Classifies a plugin name (the registry decides what berth has). */
export function pluginKind(name: string): PluginKind {
  if (builtIn.has(name)) return 'built-in';
  if (registry.has(name)) return 'berth';
  if (kubeNames.has(name)) return 'kube-only';
  if (removedNames.has(name)) return 'removed';
  return 'unknown';
}

/** The names a configuration may use, for error messages. */
export function knownPluginNames(): string {
  return [...kubeNames].sort().join(', ');
}

const berthPoints = new Map<string, ReadonlySet<BerthPoint>>();

/** The points berth's instance of `name` runs (probed once from a default instance). */
function berthPointsOf(name: string): ReadonlySet<BerthPoint> {
  let points = berthPoints.get(name);
  if (points === undefined) {
    const p = registry.get(name)?.();
    const has: BerthPoint[] = [];
    if (p?.preFilter !== undefined) has.push('preFilter');
    if (p?.filter !== undefined) has.push('filter');
    if (p?.score !== undefined) has.push('score');
    if (p?.postFilter !== undefined) has.push('postFilter');
    points = new Set(has);
    berthPoints.set(name, points);
  }
  return points;
}

/**
 * Whether plugin `name` extends `point` as a configuration sees it: kube's table for kube's
 * plugins, else what berth's instance implements.
 */
export function extendsPoint(name: string, point: BerthPoint): boolean {
  const kube = kubePoints[name];
  return kube !== undefined ? kube.includes(point) : berthPointsOf(name).has(point);
}

/** Whether berth's instance of `name` runs at `point` (false for plugins berth lacks). */
export function berthRuns(name: string, point: BerthPoint): boolean {
  return registry.has(name) && berthPointsOf(name).has(point);
}
