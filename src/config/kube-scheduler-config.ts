// A kubescheduler.config.k8s.io/v1 KubeSchedulerConfiguration read into berth's config and run options.
import type { SchedulingProfile } from '../core/config.ts';
import type { KubeRelease } from '../model/kube-release.ts';
import { resolvePluginArgs } from './plugin-args.ts';
import { resolvePlugins } from './plugin-sets.ts';
import {
  at,
  ConfigError,
  child,
  type Fields,
  fields,
  knownKeys,
  list,
  optionalBool,
  optionalInt,
  optionalNumber,
  optionalString,
} from './read.ts';

/** The only KubeSchedulerConfiguration version berth reads. */
export const kubeSchedulerApiVersion = 'kubescheduler.config.k8s.io/v1';

/** kube's scheduler name for a lone profile that names none. */
export const defaultSchedulerName = 'default-scheduler';

/** What a KubeSchedulerConfiguration sets, as berth's own keys. */
export interface KubeSchedulerSettings {
  /** Keys of berth's config (`parseConfig`): profiles, percentage, backoff. */
  config: Fields;
  /** berth's `leaderElection` run options, from kube's section (durations as text). */
  leaderElection: Fields;
  /** kube's clientConnection: what `--kubeconfig`, `--qps` and `--burst` would set. */
  clientConnection: { kubeconfig?: string; qps?: number; burst?: number };
}

const int32 = 2 ** 31 - 1;
const int64 = Number.MAX_SAFE_INTEGER;

/** berth's own config keys, which a KubeSchedulerConfiguration says differently. */
const replacedKeys: Readonly<Record<string, string>> = {
  schedulerName: 'name the scheduler in profiles[].schedulerName',
  backoff: 'use podInitialBackoffSeconds and podMaxBackoffSeconds',
  maxParkedMs: 'berth-only: put it in a BerthConfiguration document (see the README)',
  flushIntervalMs: 'berth-only: put it in a BerthConfiguration document (see the README)',
  metricsBindAddress: 'berth-only: put it in a BerthConfiguration document (see the README)',
};

function profile(
  raw: unknown,
  path: string,
  alone: boolean,
  release: KubeRelease,
): SchedulingProfile {
  const p = fields(raw, path);
  knownKeys(p, path, ['schedulerName', 'percentageOfNodesToScore', 'plugins', 'pluginConfig']);
  const namePath = child(path, 'schedulerName');
  const given = optionalString(p.schedulerName, namePath);
  // kube names a lone unnamed profile default-scheduler; with several, each needs a name.
  const schedulerName = given ?? (alone ? defaultSchedulerName : '');
  if (schedulerName === '') throw new ConfigError(namePath, 'is required');
  const pct = optionalInt(
    p.percentageOfNodesToScore,
    child(path, 'percentageOfNodesToScore'),
    0,
    100,
  );
  const plugins = resolvePlugins(p.plugins, child(path, 'plugins'), release);
  const pluginArgs = resolvePluginArgs(p.pluginConfig, child(path, 'pluginConfig'), release);
  return {
    schedulerName,
    ...(pct === undefined ? {} : { percentageOfNodesToScore: pct }),
    plugins: { ...plugins, pluginArgs },
  };
}

function leaderElection(raw: unknown): Fields {
  const path = 'leaderElection';
  const le = fields(raw, path);
  const keys = [
    'leaderElect',
    'leaseDuration',
    'renewDeadline',
    'retryPeriod',
    'resourceName',
    'resourceNamespace',
  ];
  knownKeys(le, path, [...keys, 'resourceLock']);
  const lock = optionalString(le.resourceLock, child(path, 'resourceLock'));
  if (lock !== undefined && lock !== '' && lock !== 'leases')
    throw new ConfigError(child(path, 'resourceLock'), `must be "leases", got "${lock}"`);
  const out: Fields = {};
  const elect = optionalBool(le.leaderElect, child(path, 'leaderElect'));
  if (elect !== undefined) out.leaderElect = elect;
  for (const key of keys.slice(1)) {
    // Empty strings are kube's "unset" (its defaulting fills them in).
    const value = optionalString(le[key], child(path, key));
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

function clientConnection(raw: unknown): KubeSchedulerSettings['clientConnection'] {
  const path = 'clientConnection';
  const cc = fields(raw, path);
  knownKeys(cc, path, ['kubeconfig', 'qps', 'burst', 'contentType', 'acceptContentTypes']);
  optionalString(cc.contentType, child(path, 'contentType'));
  optionalString(cc.acceptContentTypes, child(path, 'acceptContentTypes'));
  const kubeconfig = optionalString(cc.kubeconfig, child(path, 'kubeconfig'));
  const qps = optionalNumber(cc.qps, child(path, 'qps'));
  if (qps !== undefined && qps < 0)
    throw new ConfigError(child(path, 'qps'), 'must not be negative');
  const burst = optionalInt(cc.burst, child(path, 'burst'), 0, int32, 'must not be negative');
  // kube reads 0 as "use the default" (50 and 100).
  return {
    ...(kubeconfig === undefined || kubeconfig === '' ? {} : { kubeconfig }),
    ...(qps === undefined || qps === 0 ? {} : { qps }),
    ...(burst === undefined || burst === 0 ? {} : { burst }),
  };
}

/**
 * Reads a KubeSchedulerConfiguration (apiVersion/kind already matched) as kube-scheduler
 * `release` would, strictly: an unknown field is an error, berth's own keys say what replaced
 * them. Profiles are merged with that release's default plugins and their args checked; no profile
 * means kube's single `default-scheduler` one. `extenders` must be empty (berth calls none);
 * `parallelism`, `enableProfiling`, `enableContentionProfiling` and `delayCacheUntilActive`
 * are checked and otherwise ignored. Throws ConfigError naming the path.
 */
export function readKubeSchedulerConfiguration(
  doc: Fields,
  release: KubeRelease,
): KubeSchedulerSettings {
  knownKeys(
    doc,
    '',
    [
      'apiVersion',
      'kind',
      'parallelism',
      'leaderElection',
      'clientConnection',
      'enableProfiling',
      'enableContentionProfiling',
      'percentageOfNodesToScore',
      'podInitialBackoffSeconds',
      'podMaxBackoffSeconds',
      'profiles',
      'extenders',
      'delayCacheUntilActive',
    ],
    replacedKeys,
  );
  optionalInt(
    doc.parallelism,
    'parallelism',
    1,
    int32,
    'should be an integer value greater than zero',
  );
  for (const key of ['enableProfiling', 'enableContentionProfiling', 'delayCacheUntilActive'])
    optionalBool(doc[key], key);
  if (list(doc.extenders, 'extenders').length > 0)
    throw new ConfigError(at('extenders', 0), 'berth calls no scheduler extenders');
  const pct = optionalInt(doc.percentageOfNodesToScore, 'percentageOfNodesToScore', 0, 100);
  const initial =
    optionalInt(
      doc.podInitialBackoffSeconds,
      'podInitialBackoffSeconds',
      1,
      int64,
      'must be greater than 0',
    ) ?? 1;
  const max = optionalInt(doc.podMaxBackoffSeconds, 'podMaxBackoffSeconds', 0, int64) ?? 10;
  if (max < initial)
    throw new ConfigError(
      'podMaxBackoffSeconds',
      `${max} must be greater than or equal to podInitialBackoffSeconds (${initial})`,
    );
  const given = list(doc.profiles, 'profiles');
  const raws = given.length === 0 ? [{}] : given;
  const profiles = raws.map((p, i) => profile(p, at('profiles', i), raws.length === 1, release));
  profiles.forEach((p, i) => {
    const earlier = profiles.findIndex((o) => o.schedulerName === p.schedulerName);
    if (earlier !== i)
      throw new ConfigError(
        child(at('profiles', i), 'schedulerName'),
        `duplicate value "${p.schedulerName}" (also profiles[${earlier}])`,
      );
  });
  return {
    config: {
      schedulerName: (profiles[0] as SchedulingProfile).schedulerName,
      ...(pct === undefined ? {} : { percentageOfNodesToScore: pct }),
      backoff: { initialMs: initial * 1000, maxMs: max * 1000 },
      profiles,
    },
    leaderElection: leaderElection(doc.leaderElection),
    clientConnection: clientConnection(doc.clientConnection),
  };
}
