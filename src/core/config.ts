// Scheduler configuration: what a run is configured with, recorded in the log header.

import { type BackoffConfig, defaultBackoff } from '../../machines/backoff.ts';
import type { Profile } from '../framework/types.ts';
import {
  type KubeRelease,
  latestKubeRelease,
  parseKubeRelease,
  unrecordedKubeRelease,
} from '../model/kube-release.ts';
import { isRecord } from '../model/record.ts';
import { defaultPostFilters, profileFromConfig, type ScoreConfig } from '../plugins/registry.ts';
import { positive } from './config-checks.ts';
import { defaultGangConfig, type GangConfig, parseGangs } from './config-gangs.ts';

/**
 * One scheduling profile (a KubeSchedulerConfiguration profile, resolved): the pods whose
 * `spec.schedulerName` is `schedulerName` are scheduled with these plugin lists and args,
 * which leave nothing to defaults, so a log replays the same whatever later defaults are.
 */
export interface SchedulingProfile {
  schedulerName: string;
  /** This profile's percentage of nodes to score (else the config's). */
  percentageOfNodesToScore?: number;
  plugins: {
    preFilters: string[];
    filters: string[];
    scores: Required<ScoreConfig>[];
    /** PostFilters (preemption); absent in logs from before berth had them: none. */
    postFilters?: string[];
    /** Each plugin's args by name, as its factory takes them. */
    pluginArgs: Record<string, unknown>;
  };
}

/** Everything that shapes decisions. Recorded in the log header so replay uses the same. */
export interface BerthConfig {
  /** Pods whose `spec.schedulerName` equals this are scheduled by berth. */
  schedulerName: string;
  /** 0 = adaptive (kube-scheduler's default); 1–100 = fixed percentage. */
  percentageOfNodesToScore: number;
  /** Backoff after failed attempts. */
  backoff: BackoffConfig;
  /** Parked pods older than this are retried by the periodic flush (kube: 5 min). */
  maxParkedMs: number;
  /** How often the unschedulable pool is flushed (kube: 30 s). */
  flushIntervalMs: number;
  /**
   * The profiles, one per scheduler name, in the configuration's order; `schedulerName` is
   * then the first one's. Absent (older logs, plain config files): one profile, the
   * registry's default, for `schedulerName`.
   */
  profiles?: SchedulingProfile[];
  /**
   * The PostFilters of the default profile (when `profiles` is absent). Absent in logs from
   * before berth had PostFilters, which replay without them (no preemption, messages
   * without kube's PostFilter part); fresh runs record them.
   */
  postFilters?: string[];
  /**
   * Gang scheduling of pods that join a PodGroup (label `scheduling.x-k8s.io/pod-group`).
   * Absent in logs from before berth had it: such pods were scheduled one by one, and
   * replay does the same; fresh runs record it.
   */
  gangs?: GangConfig;
  /**
   * The kube-scheduler release berth schedules as (`--emulated-version`): its default
   * profile and plugin behaviours. Absent in logs from before berth emulated releases,
   * which were scheduled as 1.34 and replay so; fresh runs record it (default 1.37).
   */
  emulatedVersion?: KubeRelease;
  /**
   * Pods with DRA resource claims are allocated by DynamicResources (true). Absent in logs
   * from before berth allocated claims: such pods were refused (UnsupportedConstraints),
   * and replay does the same; fresh runs record true.
   */
  resourceClaims?: boolean;
  /**
   * DRA device binding conditions (kube's DRADeviceBindingConditions, on since 1.36):
   * DynamicResources' Filter refuses claims whose binding failed or timed out, and PreBind
   * holds the Binding until the devices' binding conditions are True (format 6). Absent in
   * logs from before: such binds went ahead without waiting, and replay does the same;
   * fresh runs record true.
   */
  bindingConditions?: boolean;
  /**
   * Extended resources a DeviceClass backs are allocated by DynamicResources on nodes that do
   * not list them (kube's DRAExtendedResource, from 1.36). Absent in logs from before berth
   * did: such pods were NodeResourcesFit's alone, and replay does the same; fresh runs record true.
   */
  extendedResourceClaims?: boolean;
  /**
   * DRA filter timeout (kube's DRASchedulerFilterTimeout, beta on): each node's allocator
   * search stops after the steps DynamicResourcesArgs `filterTimeout` buys (format 6).
   * Absent in logs from before: searches were unbounded, and replay does the same; fresh
   * runs record true.
   */
  draFilterTimeout?: boolean;
}

/** The release `config` schedules as: its recorded one, else 1.34 (older logs). */
export function emulatedReleaseOf(config: BerthConfig): KubeRelease {
  return config.emulatedVersion ?? unrecordedKubeRelease;
}

/** kube-scheduler's defaults, with berth's scheduler name. */
export const defaultConfig: BerthConfig = {
  schedulerName: 'berth',
  percentageOfNodesToScore: 0,
  backoff: defaultBackoff,
  maxParkedMs: 5 * 60_000,
  flushIntervalMs: 30_000,
  postFilters: [...defaultPostFilters],
  gangs: defaultGangConfig,
  resourceClaims: true,
  bindingConditions: true,
  extendedResourceClaims: true,
  draFilterTimeout: true,
};

/**
 * `config` as a fresh run records it: the default PostFilters filled in when absent, gang
 * scheduling on with its defaults when not configured, the latest emulated release when
 * none was asked for, and DRA claims allocated unless switched off.
 */
export function withFreshRunDefaults(config: BerthConfig): BerthConfig {
  const postFilters =
    config.profiles !== undefined || config.postFilters !== undefined
      ? {}
      : { postFilters: [...defaultPostFilters] };
  const gangs =
    config.gangs === undefined
      ? { gangs: defaultGangConfig }
      : {
          gangs: {
            ...config.gangs,
            preemption: config.gangs.preemption ?? true,
            search: config.gangs.search ?? true,
            kubeMemberMessages: config.gangs.kubeMemberMessages ?? true,
          },
        };
  const emulatedVersion = config.emulatedVersion ?? latestKubeRelease;
  const resourceClaims = config.resourceClaims ?? true;
  const bindingConditions = config.bindingConditions ?? true;
  const extendedResourceClaims = config.extendedResourceClaims ?? true;
  const draFilterTimeout = config.draFilterTimeout ?? true;
  return {
    ...config,
    ...postFilters,
    ...gangs,
    emulatedVersion,
    resourceClaims,
    bindingConditions,
    extendedResourceClaims,
    draFilterTimeout,
  };
}

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new Error(`config ${field} must be a list of plugin names`);
  return value as string[];
}

function parseProfile(raw: unknown, field: string, release: KubeRelease): SchedulingProfile {
  if (!isRecord(raw) || !isRecord(raw.plugins))
    throw new Error(`config ${field} must be an object with schedulerName and plugins`);
  const name = raw.schedulerName;
  if (typeof name !== 'string' || name === '')
    throw new Error(`config ${field}.schedulerName must be a non-empty string`);
  const pct = raw.percentageOfNodesToScore;
  if (
    pct !== undefined &&
    (typeof pct !== 'number' || !Number.isInteger(pct) || pct < 0 || pct > 100)
  )
    throw new Error(`config ${field}.percentageOfNodesToScore must be an integer 0–100`);
  const p = raw.plugins;
  const scores = p.scores;
  if (!Array.isArray(scores) || !scores.every((s) => isRecord(s) && typeof s.name === 'string'))
    throw new Error(`config ${field}.plugins.scores must be a list of {name, weight}`);
  const pluginArgs = p.pluginArgs ?? {};
  if (!isRecord(pluginArgs))
    throw new Error(`config ${field}.plugins.pluginArgs must be an object`);
  const profile: SchedulingProfile = {
    schedulerName: name,
    ...(pct === undefined ? {} : { percentageOfNodesToScore: pct }),
    plugins: {
      preFilters: stringList(p.preFilters, `${field}.plugins.preFilters`),
      filters: stringList(p.filters, `${field}.plugins.filters`),
      scores: scores.map((s) => ({ name: s.name as string, weight: s.weight as number })),
      ...(p.postFilters === undefined
        ? {}
        : { postFilters: stringList(p.postFilters, `${field}.plugins.postFilters`) }),
      pluginArgs,
    },
  };
  try {
    profileFromConfig({ ...profile.plugins, release });
  } catch (error) {
    throw new Error(`config ${field}: ${(error as Error).message}`);
  }
  return profile;
}

function parseProfiles(raw: unknown, release: KubeRelease): SchedulingProfile[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length === 0)
    throw new Error('config profiles must be a non-empty list');
  const profiles = raw.map((p, i) => parseProfile(p, `profiles[${i}]`, release));
  const names = new Set<string>();
  for (const [i, p] of profiles.entries()) {
    if (names.has(p.schedulerName))
      throw new Error(
        `config profiles[${i}].schedulerName "${p.schedulerName}" names another profile's scheduler`,
      );
    names.add(p.schedulerName);
  }
  return profiles;
}

/** A scheduler name with the profile its pods are scheduled by. */
export interface ProfileInUse {
  schedulerName: string;
  profile: Profile;
  percentageOfNodesToScore: number;
}

/**
 * The profiles `config` schedules with, built from the registry: its `profiles`, or the
 * registry's default profile for `schedulerName` (`profileFromConfig()`). Throws what the
 * registry throws for lists it refuses (parseConfig has checked them already).
 */
export function profilesOf(config: BerthConfig): ProfileInUse[] {
  const global = config.percentageOfNodesToScore;
  const release = emulatedReleaseOf(config);
  const refuseResourceClaims = config.resourceClaims !== true;
  const bindingConditions = config.bindingConditions === true;
  const extendedResourceClaims = config.extendedResourceClaims === true;
  const draFilterTimeout = config.draFilterTimeout === true;
  if (config.profiles === undefined)
    return [
      {
        schedulerName: config.schedulerName,
        profile: profileFromConfig({
          postFilters: config.postFilters ?? [],
          release,
          refuseResourceClaims,
          bindingConditions,
          extendedResourceClaims,
          draFilterTimeout,
        }),
        percentageOfNodesToScore: global,
      },
    ];
  return config.profiles.map((p) => ({
    schedulerName: p.schedulerName,
    profile: profileFromConfig({
      ...p.plugins,
      postFilters: p.plugins.postFilters ?? [],
      release,
      refuseResourceClaims,
      bindingConditions,
      extendedResourceClaims,
      draFilterTimeout,
    }),
    percentageOfNodesToScore: p.percentageOfNodesToScore ?? global,
  }));
}

/**
 * Reads a configuration object (from a log header or a --config file) over the defaults.
 * Throws an Error naming the field for a wrong type or range, or for profiles the registry
 * cannot build.
 */
export function parseConfig(raw: unknown): BerthConfig {
  if (raw === undefined) return defaultConfig;
  if (!isRecord(raw)) throw new Error('config must be an object');
  const backoff = isRecord(raw.backoff) ? raw.backoff : {};
  const pct = raw.percentageOfNodesToScore ?? defaultConfig.percentageOfNodesToScore;
  if (typeof pct !== 'number' || !Number.isInteger(pct) || pct < 0 || pct > 100) {
    throw new Error(
      `config percentageOfNodesToScore must be an integer 0–100, got ${JSON.stringify(pct)}`,
    );
  }
  const emulatedVersion = parseEmulatedVersion(raw.emulatedVersion);
  // Profiles are checked against the plugins of the release they will run with.
  const profiles = parseProfiles(raw.profiles, emulatedVersion ?? latestKubeRelease);
  const postFilters =
    raw.postFilters === undefined ? undefined : stringList(raw.postFilters, 'postFilters');
  if (postFilters !== undefined) {
    try {
      profileFromConfig({ postFilters });
    } catch (error) {
      throw new Error(`config postFilters: ${(error as Error).message}`);
    }
  }
  const gangs = parseGangs(raw.gangs);
  if (raw.resourceClaims !== undefined && typeof raw.resourceClaims !== 'boolean')
    throw new Error('config resourceClaims must be true or false');
  for (const key of ['bindingConditions', 'draFilterTimeout', 'extendedResourceClaims'] as const)
    if (raw[key] !== undefined && typeof raw[key] !== 'boolean')
      throw new Error(`config ${key} must be true or false`);
  const name = raw.schedulerName ?? profiles?.[0]?.schedulerName ?? defaultConfig.schedulerName;
  if (typeof name !== 'string' || name === '')
    throw new Error('config schedulerName must be a non-empty string');
  if (profiles !== undefined && name !== profiles[0]?.schedulerName)
    throw new Error("config schedulerName must be the first profile's");
  const initialMs = positive(
    backoff.initialMs,
    defaultConfig.backoff.initialMs,
    'backoff.initialMs',
  );
  const maxMs = positive(backoff.maxMs, defaultConfig.backoff.maxMs, 'backoff.maxMs');
  if (maxMs < initialMs) throw new Error('config backoff.maxMs must be ≥ backoff.initialMs');
  return {
    schedulerName: name,
    percentageOfNodesToScore: pct,
    backoff: { initialMs, maxMs },
    maxParkedMs: positive(raw.maxParkedMs, defaultConfig.maxParkedMs, 'maxParkedMs'),
    flushIntervalMs: positive(
      raw.flushIntervalMs,
      defaultConfig.flushIntervalMs,
      'flushIntervalMs',
    ),
    ...(profiles === undefined ? {} : { profiles }),
    ...(postFilters === undefined ? {} : { postFilters }),
    ...(gangs === undefined ? {} : { gangs }),
    ...(emulatedVersion === undefined ? {} : { emulatedVersion }),
    ...(raw.resourceClaims === undefined ? {} : { resourceClaims: raw.resourceClaims }),
    ...(raw.bindingConditions === undefined
      ? {}
      : { bindingConditions: raw.bindingConditions as boolean }),
    ...(raw.draFilterTimeout === undefined
      ? {}
      : { draFilterTimeout: raw.draFilterTimeout as boolean }),
    ...(raw.extendedResourceClaims === undefined
      ? {}
      : { extendedResourceClaims: raw.extendedResourceClaims as boolean }),
  };
}

function parseEmulatedVersion(raw: unknown): KubeRelease | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string')
    throw new Error('config emulatedVersion must be a string like "1.37"');
  try {
    return parseKubeRelease(raw);
  } catch (error) {
    throw new Error(`config emulatedVersion: ${(error as Error).message}`);
  }
}
