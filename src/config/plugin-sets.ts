// A profile's `plugins`: parsed, merged with kube's defaults, and expanded to berth's extension points.
import type { KubeRelease } from '../model/kube-release.ts';
import type { ScoreConfig } from '../plugins/registry.ts';
import {
  type BerthPoint,
  berthRuns,
  type ExtensionPoint,
  extendsPoint,
  extensionPoints,
  knownPluginNames,
  kubeDefaultMultiPointOf,
  type PluginEntry,
  pluginKind,
} from './kube-plugins.ts';
import {
  at,
  ConfigError,
  child,
  fields,
  knownKeys,
  list,
  optionalInt,
  requiredString,
} from './read.ts';

/** An enabled entry as written, with where it was written (for errors). */
interface Enabled extends PluginEntry {
  path: string;
}

/** One extension point's `enabled` and `disabled` lists. */
interface PluginSet {
  enabled: Enabled[];
  disabled: string[];
}

/** The plugin lists berth runs for one profile (the registry's ProfileConfig lists). */
export interface ResolvedPlugins {
  preFilters: string[];
  filters: string[];
  scores: Required<ScoreConfig>[];
  postFilters: string[];
}

const int32 = 2 ** 31 - 1;

function checkName(name: string, path: string, enabled: boolean, release: KubeRelease): void {
  if (name === '*') {
    if (enabled) throw new ConfigError(path, '"*" may only be disabled');
    return;
  }
  switch (pluginKind(name, release)) {
    case 'berth':
      return;
    case 'kube-only':
      // Disabling a plugin berth does not have changes nothing; enabling it cannot be honoured.
      if (enabled) throw new ConfigError(path, `berth does not implement plugin "${name}" yet`);
      return;
    case 'built-in':
      throw new ConfigError(
        path,
        `"${name}" is built into berth and always runs first; it is not configurable`,
      );
    case 'removed':
      throw new ConfigError(
        path,
        `plugin "${name}" was removed in kubescheduler.config.k8s.io/v1 (NodeVolumeLimits replaces it)`,
      );
    default:
      throw new ConfigError(
        path,
        `unknown plugin "${name}" in kube-scheduler ${release} (known: ${knownPluginNames(release)})`,
      );
  }
}

function parseSet(raw: unknown, path: string, release: KubeRelease): PluginSet {
  const set = fields(raw, path);
  knownKeys(set, path, ['enabled', 'disabled']);
  const enabledPath = child(path, 'enabled');
  const enabled = list(set.enabled, enabledPath).map((e, i): Enabled => {
    const entryPath = at(enabledPath, i);
    const entry = fields(e, entryPath);
    knownKeys(entry, entryPath, ['name', 'weight']);
    const namePath = child(entryPath, 'name');
    const name = requiredString(entry.name, namePath);
    checkName(name, namePath, true, release);
    const weight = optionalInt(entry.weight, child(entryPath, 'weight'), -int32 - 1, int32);
    return { name, path: entryPath, ...(weight === undefined ? {} : { weight }) };
  });
  const disabledPath = child(path, 'disabled');
  const disabled = list(set.disabled, disabledPath).map((e, i) => {
    const entryPath = at(disabledPath, i);
    const entry = fields(e, entryPath);
    // kube's Plugin type has a weight; on a disabled entry it means nothing.
    knownKeys(entry, entryPath, ['name', 'weight']);
    const namePath = child(entryPath, 'name');
    const name = requiredString(entry.name, namePath);
    checkName(name, namePath, false, release);
    return name;
  });
  return { enabled, disabled };
}

/**
 * kube's mergePluginSet: the default entries not disabled (none with `*`), each replaced in
 * place by a custom entry of the same name, then the other custom entries in their order.
 */
function mergeWithDefaults(defaults: readonly PluginEntry[], custom: PluginSet): Enabled[] {
  const disabled = new Set(custom.disabled);
  const byName = new Map<string, Enabled>();
  for (const e of custom.enabled) if (!byName.has(e.name)) byName.set(e.name, e);
  const replaced = new Set<Enabled>();
  const merged: Enabled[] = [];
  if (!disabled.has('*')) {
    for (const d of defaults) {
      if (disabled.has(d.name)) continue;
      const mine = byName.get(d.name);
      if (mine !== undefined) replaced.add(mine);
      merged.push(mine ?? { ...d, path: 'kube default profile' });
    }
  }
  for (const e of custom.enabled) if (!replaced.has(e)) merged.push(e);
  return merged;
}

/**
 * kube's expandMultiPointPlugins for one point: plugins enabled at the point itself that
 * multiPoint also names come first (an override), then multiPoint's own, then the rest of
 * the point's; `*` disabled at the point keeps multiPoint out of it entirely.
 */
function expand(
  point: BerthPoint,
  own: PluginSet,
  multiPoint: readonly Enabled[],
  path: string,
  release: KubeRelease,
): string[] {
  const ownNames: string[] = [];
  for (const e of own.enabled) {
    if (!extendsPoint(e.name, point, release))
      throw new ConfigError(
        child(e.path, 'name'),
        `plugin "${e.name}" has no ${point} extension point`,
      );
    if (ownNames.includes(e.name))
      throw new ConfigError(child(e.path, 'name'), `plugin "${e.name}" is enabled twice`);
    ownNames.push(e.name);
  }
  const disabled = new Set(own.disabled);
  if (disabled.has('*')) return ownNames;
  const overrides = new Set<string>();
  const fromMultiPoint: string[] = [];
  for (const e of multiPoint) {
    if (!extendsPoint(e.name, point, release) || disabled.has(e.name)) continue;
    if (ownNames.includes(e.name)) {
      overrides.add(e.name);
      continue;
    }
    if (fromMultiPoint.includes(e.name))
      throw new ConfigError(
        e.path.startsWith('kube') ? child(path, 'multiPoint') : child(e.path, 'name'),
        `plugin "${e.name}" is enabled twice`,
      );
    fromMultiPoint.push(e.name);
  }
  return [
    ...ownNames.filter((n) => overrides.has(n)),
    ...fromMultiPoint,
    ...ownNames.filter((n) => !overrides.has(n)),
  ];
}

/** kube's getScoreWeights: the score point's weight wins over multiPoint's; 0 or none is 1. */
function weightsOf(
  score: PluginSet,
  multiPoint: readonly Enabled[],
  release: KubeRelease,
): Map<string, Enabled> {
  const weights = new Map<string, Enabled>();
  for (const e of [...score.enabled, ...multiPoint]) {
    if (!extendsPoint(e.name, 'score', release) || weights.has(e.name)) continue;
    weights.set(e.name, e);
  }
  return weights;
}

/**
 * Reads a profile's `plugins` (at `path`) and resolves berth's PreFilter, Filter and Score
 * lists as kube-scheduler `release` would build them from its default profile (the
 * emulated release's: a file means the same to berth as to that kube): merged per point, `*`
 * disabling every default of a point, multiPoint expanded into each point a plugin has.
 * Plugins kube has and berth lacks drop out of the defaults; naming one as enabled is an
 * error. Points other than multiPoint, preFilter, filter and score may only disable.
 * Throws ConfigError naming the path.
 */
export function resolvePlugins(raw: unknown, path: string, release: KubeRelease): ResolvedPlugins {
  const obj = fields(raw, path);
  knownKeys(obj, path, extensionPoints);
  const sets = new Map<ExtensionPoint, PluginSet>();
  for (const point of extensionPoints)
    sets.set(point, parseSet(obj[point], child(path, point), release));
  for (const point of extensionPoints) {
    if (
      point === 'multiPoint' ||
      point === 'preFilter' ||
      point === 'filter' ||
      point === 'score' ||
      point === 'postFilter'
    )
      continue;
    const first = sets.get(point)?.enabled[0];
    if (first !== undefined)
      throw new ConfigError(
        child(first.path, 'name'),
        `berth has no configurable ${point} plugins (it configures multiPoint, preFilter, filter, postFilter and score)`,
      );
  }
  const get = (point: ExtensionPoint) => sets.get(point) as PluginSet;
  const multiPoint = mergeWithDefaults(kubeDefaultMultiPointOf(release), get('multiPoint'));
  const pointList = (point: BerthPoint) =>
    expand(point, get(point), multiPoint, path, release).filter((n) =>
      berthRuns(n, point, release),
    );
  const weights = weightsOf(get('score'), multiPoint, release);
  const scores = pointList('score').map((name) => {
    const e = weights.get(name);
    const weight = e?.weight === undefined || e.weight === 0 ? 1 : e.weight;
    if (weight < 1 || weight > 100)
      throw new ConfigError(
        e === undefined ? child(path, 'score') : child(e.path, 'weight'),
        `${weight} not in berth's range [1, 100] for a score weight`,
      );
    return { name, weight };
  });
  return {
    preFilters: pointList('preFilter'),
    filters: pointList('filter'),
    scores,
    postFilters: pointList('postFilter'),
  };
}
