// `berth run`'s process options (leader election, status server) from flags over the config file.
import { goDurationMs } from '../model/go-duration.ts';
import { isRecord } from '../model/record.ts';
import { CliError } from './errors.ts';

/** How this process takes part in leader election (kube-scheduler's flags and defaults). */
export interface LeaderElectionOptions {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceName: string;
  resourceNamespace: string;
}

/** Options of `berth run` that shape the process, not decisions (so not in the log header). */
export interface RunOptions {
  leaderElection: LeaderElectionOptions;
  /**
   * `host:port` of the plain-HTTP (unauthenticated) metrics and health server, loopback only,
   * or `0` (the default) for none; the HTTPS server is configured by serving-options.ts.
   */
  metricsBindAddress: string;
}

/** Defaults: kube-scheduler's election timings, berth's own lease name; no plain HTTP. */
export const defaultRunOptions: RunOptions = {
  leaderElection: {
    enabled: true,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    resourceName: 'berth',
    resourceNamespace: 'kube-system',
  },
  metricsBindAddress: '0',
};

/** The keys a `--config` file may hold; anything else is a typo worth an error. */
export const configFileKeys: readonly string[] = [
  'schedulerName',
  'percentageOfNodesToScore',
  'backoff',
  'maxParkedMs',
  'flushIntervalMs',
  'leaderElection',
  'metricsBindAddress',
];

const leaderElectionKeys: Record<string, string> = {
  leaderElect: 'leader-elect',
  leaseDuration: 'leader-elect-lease-duration',
  renewDeadline: 'leader-elect-renew-deadline',
  retryPeriod: 'leader-elect-retry-period',
  resourceName: 'leader-elect-resource-name',
  resourceNamespace: 'leader-elect-resource-namespace',
};

/**
 * Parses a Go duration (`15s`, `1m30s`, `500ms`, `1.5h`) into milliseconds; `what` names
 * the flag or key in the error for anything else.
 */
export function parseDuration(value: string, what: string): number {
  const ms = value.trim() === '0' ? undefined : goDurationMs(value);
  if (ms === undefined) {
    throw new CliError(
      `${what} must be a duration such as 15s, 500ms or 1m30s, got ${JSON.stringify(value)}`,
      2,
    );
  }
  return ms;
}

/** Reads a boolean flag value the way Go's flag package does (`true`/`false`, `1`/`0`, …). */
function parseBool(value: string, what: string): boolean {
  const v = value.trim().toLowerCase();
  if (['true', 't', '1'].includes(v)) return true;
  if (['false', 'f', '0'].includes(v)) return false;
  throw new CliError(`${what} must be true or false, got ${JSON.stringify(value)}`, 2);
}

/**
 * Lets `--leader-elect` stand alone, as in kube-scheduler, though it takes a value
 * (`--leader-elect=false`): a bare `--leader-elect` becomes `--leader-elect=true`.
 */
export function normalizeBoolFlags(argv: string[]): string[] {
  return argv.map((arg) => (arg === '--leader-elect' ? '--leader-elect=true' : arg));
}

/** Flag values as `parseFlags` returns them. */
export type RunFlagValues = Partial<Record<string, string | boolean | undefined>>;

/**
 * A config file value as the flag's text: strings as they are, booleans (leaderElect) and
 * bare numbers (metricsBindAddress: 0) as text; a duration without a unit is an error.
 */
function fileValue(
  section: Record<string, unknown>,
  key: string,
  where: string,
): string | undefined {
  const v = section[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  const textual =
    (typeof v === 'boolean' && key === 'leaderElect') ||
    (typeof v === 'number' && key === 'metricsBindAddress');
  if (textual) return String(v);
  throw new CliError(`config ${where}${key} must be a string, got ${JSON.stringify(v)}`);
}

function fileSection(raw: unknown): { top: Record<string, unknown>; le: Record<string, unknown> } {
  if (raw === undefined || raw === null) return { top: {}, le: {} };
  if (!isRecord(raw)) throw new CliError('config must be a mapping of keys to values');
  for (const key of Object.keys(raw)) {
    if (!configFileKeys.includes(key))
      throw new CliError(
        `config has an unknown key ${JSON.stringify(key)} (known: ${configFileKeys.join(', ')})`,
      );
  }
  const le = raw.leaderElection ?? {};
  if (!isRecord(le)) throw new CliError('config leaderElection must be a mapping');
  for (const key of Object.keys(le)) {
    if (!(key in leaderElectionKeys))
      throw new CliError(
        `config leaderElection has an unknown key ${JSON.stringify(key)} (known: ${Object.keys(leaderElectionKeys).join(', ')})`,
      );
  }
  return { top: raw, le };
}

/**
 * Resolves the run options: a flag wins over the config file's key, which wins over the
 * default. Checks kube's rule lease duration > renew deadline > 1.2 × retry period > 0.
 */
export function readRunOptions(flags: RunFlagValues, rawConfig: unknown): RunOptions {
  const { top, le } = fileSection(rawConfig);
  const pick = (
    key: keyof typeof leaderElectionKeys,
  ): { value: string; what: string } | undefined => {
    const flag = leaderElectionKeys[key] as string;
    const fromFlag = flags[flag];
    if (typeof fromFlag === 'string') return { value: fromFlag, what: `--${flag}` };
    const fromFile = fileValue(le, key, 'leaderElection.');
    return fromFile === undefined
      ? undefined
      : { value: fromFile, what: `config leaderElection.${key}` };
  };
  const d = defaultRunOptions.leaderElection;
  const duration = (key: string, fallback: number): number => {
    const v = pick(key);
    if (v === undefined) return fallback;
    const ms = parseDuration(v.value, v.what);
    if (ms <= 0)
      throw new CliError(`${v.what} must be positive, got ${JSON.stringify(v.value)}`, 2);
    return ms;
  };
  const name = (key: string, fallback: string): string => {
    const v = pick(key);
    if (v === undefined) return fallback;
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(v.value) || v.value.length > 253)
      throw new CliError(
        `${v.what} must be a Kubernetes object name, got ${JSON.stringify(v.value)}`,
        2,
      );
    return v.value;
  };
  const enabled = pick('leaderElect');
  const leaderElection: LeaderElectionOptions = {
    enabled: enabled === undefined ? d.enabled : parseBool(enabled.value, enabled.what),
    leaseDurationMs: duration('leaseDuration', d.leaseDurationMs),
    renewDeadlineMs: duration('renewDeadline', d.renewDeadlineMs),
    retryPeriodMs: duration('retryPeriod', d.retryPeriodMs),
    resourceName: name('resourceName', d.resourceName),
    resourceNamespace: name('resourceNamespace', d.resourceNamespace),
  };
  if (leaderElection.enabled) {
    const { leaseDurationMs: lease, renewDeadlineMs: renew, retryPeriodMs: retry } = leaderElection;
    if (!(lease > renew))
      throw new CliError(
        '--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline',
        2,
      );
    if (!(renew > retry * 1.2))
      throw new CliError(
        '--leader-elect-renew-deadline must be greater than 1.2 × --leader-elect-retry-period',
        2,
      );
  }
  const flagAddress = flags['metrics-bind-address'];
  const fileAddress = fileValue(top, 'metricsBindAddress', '');
  return {
    leaderElection,
    metricsBindAddress:
      typeof flagAddress === 'string'
        ? flagAddress
        : (fileAddress ?? defaultRunOptions.metricsBindAddress),
  };
}
