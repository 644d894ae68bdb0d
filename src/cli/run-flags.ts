// `berth run`'s flags: parsed, checked against the config file, and turned into what the run is built from.
import { hostname } from 'node:os';
import type { BerthConfig } from '../core/config.ts';
import type { SealKey } from '../events/seal.ts';
import { intFlag, numberFlag, parseFlags } from './args.ts';
import { decisionConfig, readConfigFile } from './config-file.ts';
import { CliError } from './errors.ts';
import {
  applyHeapGrowth,
  applyYoungGrowth,
  defaultHeapGrowthPercent,
  defaultYoungGrowthFactor,
} from './heap-growth.ts';
import { readRecordKey } from './record-key.ts';
import { normalizeBoolFlags, type RunOptions, readRunOptions } from './run-options.ts';
import { parseSize } from './segmented-log.ts';
import {
  checkPlainBindAddress,
  readSecureServing,
  type SecureServingOptions,
  servingCert,
  servingFlags,
} from './serving-options.ts';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/** What `berth run` is built from, every flag checked. */
export interface RunFlags {
  level: string;
  kubeconfig: string | undefined;
  context: string | undefined;
  /** `--record`: the log file (or, with segments, the directory). */
  record: string | undefined;
  recordKey: SealKey | undefined;
  segments: { maxBytes: number; retain: number } | undefined;
  qps: number;
  burst: number;
  /** Reports' own bucket (PodScheduled patches, Events). */
  eventsQps: number;
  eventsBurst: number;
  seed: number;
  options: RunOptions;
  secure: SecureServingOptions;
  tls: ReturnType<typeof servingCert> | undefined;
  config: BerthConfig;
}

/**
 * Parses and checks `berth run`'s flags over the `--config` file (a bad one is a CliError
 * with exit code 2, before anything connects), and applies the heap growth flags.
 */
export function readRunFlags(argv: string[]): RunFlags {
  const { values } = parseFlags(normalizeBoolFlags(argv), {
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    'scheduler-name': { type: 'string' },
    'emulated-version': { type: 'string' },
    record: { type: 'string' },
    'record-key': { type: 'string' },
    qps: { type: 'string' },
    burst: { type: 'string' },
    'events-qps': { type: 'string' },
    'events-burst': { type: 'string' },
    config: { type: 'string' },
    seed: { type: 'string' },
    'log-level': { type: 'string' },
    'leader-elect': { type: 'string' },
    'leader-elect-lease-duration': { type: 'string' },
    'leader-elect-renew-deadline': { type: 'string' },
    'leader-elect-retry-period': { type: 'string' },
    'leader-elect-resource-name': { type: 'string' },
    'leader-elect-resource-namespace': { type: 'string' },
    'metrics-bind-address': { type: 'string' },
    ...servingFlags,
    'record-segment-size': { type: 'string' },
    'record-retain': { type: 'string' },
    'heap-growth-percent': { type: 'string' },
    'young-growth-factor': { type: 'string' },
  });
  const level = values['log-level'] ?? 'info';
  if (!logLevels.includes(level))
    throw new CliError(`--log-level must be one of ${logLevels.join(', ')}`, 2);
  // The release first: a KubeSchedulerConfiguration's plugins merge with its defaults.
  const file = readConfigFile(values.config, values['emulated-version']);
  const connection = file?.clientConnection ?? {};
  const qps = numberFlag(values.qps, 'qps', connection.qps ?? 50, 0.1, 100_000);
  const burst = intFlag(values.burst, 'burst', connection.burst ?? 100, 1, 100_000);
  // Reports (PodScheduled patch, Events) get a bucket of their own so binds never wait behind
  // them. kube-scheduler's event client is built from the same client config, so it has the
  // same qps/burst as the main client but its own bucket: the defaults follow --qps/--burst.
  const eventsQps = numberFlag(values['events-qps'], 'events-qps', qps, 0.1, 100_000);
  const eventsBurst = intFlag(values['events-burst'], 'events-burst', burst, 1, 100_000);
  const seed = intFlag(values.seed, 'seed', 1, 0, 2 ** 32 - 1);
  applyHeapGrowth(
    intFlag(
      values['heap-growth-percent'],
      'heap-growth-percent',
      defaultHeapGrowthPercent,
      0,
      1000,
    ),
  );
  applyYoungGrowth(
    intFlag(values['young-growth-factor'], 'young-growth-factor', defaultYoungGrowthFactor, 1, 16),
  );
  const recording = readRecording(values);
  const options = readRunOptions(values, file?.run ?? {});
  // Checked early, so a typo is a usage error, not a late crash.
  checkPlainBindAddress(options.metricsBindAddress);
  const secure = readSecureServing(values);
  const tls = secure.port === 0 ? undefined : servingCert(secure, hostname(), new Date());
  const config = decisionConfig(file, values['scheduler-name'], values['emulated-version']);
  return {
    level,
    kubeconfig: values.kubeconfig ?? connection.kubeconfig,
    context: values.context,
    ...recording,
    qps,
    burst,
    eventsQps,
    eventsBurst,
    seed,
    options,
    secure,
    tls,
    config,
  };
}

/** `--record`, `--record-key`, `--record-segment-size` and `--record-retain`, checked together. */
function readRecording(
  values: Record<string, string | undefined>,
): Pick<RunFlags, 'record' | 'recordKey' | 'segments'> {
  const segmentSize = values['record-segment-size'];
  const segments =
    segmentSize === undefined
      ? undefined
      : {
          maxBytes: parseSize(segmentSize, '--record-segment-size'),
          retain: intFlag(values['record-retain'], 'record-retain', 0, 0, 1_000_000),
        };
  if (segments !== undefined && values.record === undefined)
    throw new CliError('--record-segment-size needs --record DIR (the segments go there)', 2);
  if (segments === undefined && values['record-retain'] !== undefined)
    throw new CliError('--record-retain needs --record-segment-size', 2);
  if (values['record-key'] !== undefined && values.record === undefined)
    throw new CliError('--record-key needs --record LOG (it seals the recording)', 2);
  const recordKey =
    values['record-key'] === undefined ? undefined : readRecordKey(values['record-key']);
  return { record: values.record, recordKey, segments };
}

/** The fields of the `starting` log line: the server, budgets, recording, profiles, lease. */
export function startingFields(flags: RunFlags, server: string, identity: string) {
  const election = flags.options.leaderElection;
  return {
    server,
    qps: flags.qps,
    burst: flags.burst,
    eventsQps: flags.eventsQps,
    eventsBurst: flags.eventsBurst,
    record: flags.record ?? null,
    // The key's id only: the key itself is never logged.
    recordSeal: flags.recordKey === undefined ? null : { keyId: flags.recordKey.id },
    profiles: (flags.config.profiles ?? [flags.config]).map((p) => p.schedulerName),
    leaderElection: election.enabled
      ? { identity, lease: `${election.resourceNamespace}/${election.resourceName}` }
      : false,
  };
}
