// A profile's `pluginConfig`: each plugin's args checked and turned into what its factory takes.

import { type KubeRelease, latestKubeRelease } from '../model/kube-release.ts';
import { readDraArgs } from '../plugins/dra/dra-args.ts';
import { registry } from '../plugins/registry.ts';
import { nodeAffinityArgs } from './affinity-args.ts';
import { balancedAllocationArgs, fitArgs } from './fit-args.ts';
import { knownPluginNames, pluginKind } from './kube-plugins.ts';
import {
  at,
  ConfigError,
  checkTypeMeta,
  child,
  fields,
  knownKeys,
  list,
  requiredString,
} from './read.ts';
import { interPodAffinityArgs, spreadArgs } from './spread-args.ts';

/** Reads one plugin's args at `path` into its factory's args (undefined: none to pass). */
type ArgsReader = (raw: unknown, path: string) => unknown;

const readers: Readonly<Record<string, ArgsReader>> = {
  NodeResourcesFit: fitArgs,
  NodeResourcesBalancedAllocation: balancedAllocationArgs,
  PodTopologySpread: spreadArgs,
  InterPodAffinity: interPodAffinityArgs,
  NodeAffinity: nodeAffinityArgs,
  DynamicResources: dynamicResourcesArgs,
};

/**
 * DynamicResourcesArgs: `filterTimeout` and `bindingTimeout` (Go durations), checked as
 * kube's ValidateDynamicResourcesArgs checks them, passed as written.
 */
function dynamicResourcesArgs(raw: unknown, path: string): unknown {
  const args = fields(raw, path);
  knownKeys(args, path, ['apiVersion', 'kind', 'filterTimeout', 'bindingTimeout']);
  checkTypeMeta(args, path, 'DynamicResources');
  const { apiVersion: _v, kind: _k, ...rest } = args;
  try {
    readDraArgs(rest);
  } catch (error) {
    throw new ConfigError(path, (error as Error).message);
  }
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** kube's plugins that have no args type: only `apiVersion`/`kind` (or nothing) are accepted. */
const withoutArgs = new Set([
  'NodeUnschedulable',
  'NodeName',
  'TaintToleration',
  'NodePorts',
  'ImageLocality',
  'PrioritySort',
  'SchedulingGates',
  'DefaultBinder',
  'VolumeRestrictions',
  'VolumeZone',
  'NodeVolumeLimits',
  'NodeDeclaredFeatures',
]);

function noArgs(plugin: string): ArgsReader {
  return (raw, path) => {
    const args = fields(raw, path);
    knownKeys(args, path, ['apiVersion', 'kind']);
    checkTypeMeta(args, path, plugin);
    return undefined;
  };
}

/**
 * Any other plugin berth has: its args without apiVersion/kind, as its factory takes them;
 * the factory checks them (its message is put after the path).
 */
function factoryChecked(plugin: string): ArgsReader {
  return (raw, path) => {
    const { apiVersion: _v, kind: _k, ...args } = fields(raw, path);
    checkTypeMeta(fields(raw, path), path, plugin);
    try {
      registry.get(plugin)?.(args);
    } catch (error) {
      throw new ConfigError(path, (error as Error).message);
    }
    return args;
  };
}

/**
 * Reads a profile's `pluginConfig` list (at `path`) into args by plugin name, as the
 * registry's `ProfileConfig.pluginArgs` takes them. Each entry is `{name, args}`; a name
 * may appear once. NodeResourcesFit, NodeResourcesBalancedAllocation, PodTopologySpread,
 * InterPodAffinity and NodeAffinity args are checked as kube 1.34 checks them (with kube's
 * defaults filled in); plugins kube gives no args type take none; other plugins berth has
 * get their args as written, checked by their factory; plugins kube has and berth does not
 * run (DefaultPreemption, …) may be given args, which are not read. Throws ConfigError
 * naming the path.
 */
export function resolvePluginArgs(
  raw: unknown,
  path: string,
  release: KubeRelease = latestKubeRelease,
): Record<string, unknown> {
  const pluginArgs: Record<string, unknown> = {};
  const seen = new Set<string>();
  list(raw, path).forEach((e, i) => {
    const entryPath = at(path, i);
    const entry = fields(e, entryPath);
    knownKeys(entry, entryPath, ['name', 'args']);
    const namePath = child(entryPath, 'name');
    const name = requiredString(entry.name, namePath);
    if (seen.has(name))
      throw new ConfigError(namePath, `duplicate pluginConfig for plugin "${name}"`);
    seen.add(name);
    const argsPath = child(entryPath, 'args');
    const kind = pluginKind(name, release);
    if (kind === 'unknown')
      throw new ConfigError(
        namePath,
        `unknown plugin "${name}" in kube-scheduler ${release} (known: ${knownPluginNames(release)})`,
      );
    if (kind === 'removed' || kind === 'built-in')
      throw new ConfigError(namePath, `plugin "${name}" takes no configuration in berth`);
    const reader =
      readers[name] ??
      (withoutArgs.has(name) ? noArgs(name) : kind === 'berth' ? factoryChecked(name) : undefined);
    if (reader === undefined) {
      fields(entry.args, argsPath); // a mapping, not read further: berth does not run it
      return;
    }
    const args = reader(entry.args, argsPath);
    if (args !== undefined) pluginArgs[name] = args;
  });
  return pluginArgs;
}
