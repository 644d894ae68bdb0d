// NodeResourcesFitArgs and NodeResourcesBalancedAllocationArgs of a profile, checked as kube 1.34 does.
import type { NodeResourcesFitArgs } from '../plugins/node-resources-fit.ts';
import {
  at,
  ConfigError,
  checkTypeMeta,
  child,
  fields,
  knownKeys,
  list,
  optionalEnum,
  optionalInt,
  requiredString,
} from './read.ts';

const strategyTypes = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'] as const;
const defaultResources = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

function resources(raw: unknown, path: string): { name: string; weight: number }[] {
  const given = list(raw, path);
  if (given.length === 0) return defaultResources.map((r) => ({ ...r }));
  return given.map((r, i) => {
    const p = at(path, i);
    const entry = fields(r, p);
    knownKeys(entry, p, ['name', 'weight']);
    const name = requiredString(entry.name, child(p, 'name'));
    // kube's defaulting turns a missing or 0 weight into 1; validation wants (0, 100].
    const weight =
      optionalInt(
        entry.weight,
        child(p, 'weight'),
        0,
        100,
        `not in valid range (0, 100] for resource ${name}`,
      ) || 1;
    return { name, weight };
  });
}

function shape(raw: unknown, path: string): { utilization: number; score: number }[] {
  const points = list(raw, path);
  if (points.length === 0) throw new ConfigError(path, 'at least one point must be specified');
  const parsed = points.map((pt, i) => {
    const p = at(path, i);
    const point = fields(pt, p);
    knownKeys(point, p, ['utilization', 'score']);
    return {
      utilization: optionalInt(point.utilization, child(p, 'utilization'), 0, 100) ?? 0,
      score: optionalInt(point.score, child(p, 'score'), 0, 10) ?? 0,
    };
  });
  for (let i = 1; i < parsed.length; i++) {
    const [before, now] = [parsed[i - 1], parsed[i]] as [
      { utilization: number },
      { utilization: number },
    ];
    if (before.utilization >= now.utilization)
      throw new ConfigError(
        child(at(path, i), 'utilization'),
        'values must be sorted in increasing order',
      );
  }
  return parsed;
}

/**
 * NodeResourcesFitArgs at `path`, with kube's defaults filled in (LeastAllocated on cpu
 * and memory, weight 1; a 0 weight is 1). `ignoredResources` and `ignoredResourceGroups`
 * are refused unless empty: berth's filter does not skip resources.
 */
export function fitArgs(raw: unknown, path: string): NodeResourcesFitArgs {
  const args = fields(raw, path);
  knownKeys(args, path, [
    'apiVersion',
    'kind',
    'ignoredResources',
    'ignoredResourceGroups',
    'scoringStrategy',
  ]);
  checkTypeMeta(args, path, 'NodeResourcesFit');
  for (const key of ['ignoredResources', 'ignoredResourceGroups']) {
    if (list(args[key], child(path, key)).length > 0)
      throw new ConfigError(
        child(path, key),
        'is not supported by berth (its fit filter checks every resource)',
      );
  }
  if (args.scoringStrategy === undefined || args.scoringStrategy === null)
    return {
      scoringStrategy: {
        type: 'LeastAllocated',
        resources: defaultResources.map((r) => ({ ...r })),
      },
    };
  const sPath = child(path, 'scoringStrategy');
  const strategy = fields(args.scoringStrategy, sPath);
  knownKeys(strategy, sPath, ['type', 'resources', 'requestedToCapacityRatio']);
  const type = optionalEnum(strategy.type, child(sPath, 'type'), strategyTypes);
  if (type === undefined)
    throw new ConfigError(child(sPath, 'type'), `is required (${strategyTypes.join(', ')})`);
  const rPath = child(sPath, 'requestedToCapacityRatio');
  let ratio: { shape: { utilization: number; score: number }[] } | undefined;
  if (
    strategy.requestedToCapacityRatio !== undefined &&
    strategy.requestedToCapacityRatio !== null
  ) {
    const r = fields(strategy.requestedToCapacityRatio, rPath);
    knownKeys(r, rPath, ['shape']);
    ratio = { shape: shape(r.shape, child(rPath, 'shape')) };
  }
  if (type === 'RequestedToCapacityRatio' && ratio === undefined)
    throw new ConfigError(child(rPath, 'shape'), 'is required for RequestedToCapacityRatio');
  return {
    scoringStrategy: {
      type,
      resources: resources(strategy.resources, child(sPath, 'resources')),
      ...(type === 'RequestedToCapacityRatio' && ratio !== undefined
        ? { requestedToCapacityRatio: ratio }
        : {}),
    },
  };
}

/**
 * NodeResourcesBalancedAllocationArgs at `path`: kube allows any resources with weight 1;
 * berth's plugin balances cpu and memory only, so anything else is refused. Gives no args.
 */
export function balancedAllocationArgs(raw: unknown, path: string): undefined {
  const args = fields(raw, path);
  knownKeys(args, path, ['apiVersion', 'kind', 'resources']);
  checkTypeMeta(args, path, 'NodeResourcesBalancedAllocation');
  const rPath = child(path, 'resources');
  const seen = new Set<string>();
  list(args.resources, rPath).forEach((r, i) => {
    const p = at(rPath, i);
    const entry = fields(r, p);
    knownKeys(entry, p, ['name', 'weight']);
    const name = requiredString(entry.name, child(p, 'name'));
    const weight = optionalInt(entry.weight, child(p, 'weight'), 0, 1, 'must be 1') || 1;
    if (weight !== 1) throw new ConfigError(child(p, 'weight'), 'must be 1');
    if (name !== 'cpu' && name !== 'memory')
      throw new ConfigError(
        child(p, 'name'),
        `"${name}" is not supported: berth balances cpu and memory only`,
      );
    if (seen.has(name)) throw new ConfigError(child(p, 'name'), `duplicate resource "${name}"`);
    seen.add(name);
  });
  if (seen.size === 1)
    throw new ConfigError(rPath, 'berth balances cpu and memory together: list both or neither');
  return undefined;
}
