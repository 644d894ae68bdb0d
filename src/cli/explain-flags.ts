// `berth explain`'s flags: parsed and checked once for `explain NS/POD` and `explain group NS/NAME`.
import type { BerthConfig } from '../core/config.ts';
import type { SealKey } from '../events/seal.ts';
import { intFlag, parseFlags } from './args.ts';
import { FlagError } from './errors.ts';
import { readRecordKey } from './record-key.ts';
import { simulateConfig } from './simulate-command.ts';

/**
 * The config of the simulated and live modes: `--config FILE` (read as `berth simulate`
 * reads it) or the defaults, with `--scheduler-name` as berth's name when the file names
 * no profiles (with profiles, their names are berth's).
 */
function flagsConfig(
  path: string | undefined,
  schedulerName: string | undefined,
  emulatedVersion: string | undefined,
): BerthConfig {
  const config = simulateConfig(path, emulatedVersion);
  if (schedulerName === undefined) return config;
  if (schedulerName === '') throw new FlagError('--scheduler-name must not be empty');
  if (config.profiles !== undefined)
    throw new FlagError(
      "--scheduler-name goes without --config profiles (they name berth's schedulers)",
    );
  return { ...config, schedulerName };
}

/** `berth explain`'s flags, checked: the mode they choose and what each mode reads. */
export interface ExplainFlags {
  positional: string | undefined;
  mode: 'simulated' | 'log' | 'live';
  cluster: string[];
  log: string | undefined;
  seq: number | undefined;
  sealKey: SealKey | undefined;
  live: { kubeconfig?: string; context?: string };
  seed: number;
  config: BerthConfig;
  json: boolean;
  api: string | undefined;
}

/** Parses and checks `berth explain`'s flags (shared by `explain NS/POD` and `explain group`). */
export function explainFlags(argv: string[]): ExplainFlags {
  const { values, positionals } = parseFlags(
    argv,
    {
      cluster: { type: 'string', multiple: true },
      log: { type: 'string' },
      seq: { type: 'string' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      seed: { type: 'string' },
      'scheduler-name': { type: 'string' },
      'emulated-version': { type: 'string' },
      config: { type: 'string' },
      'record-key': { type: 'string' },
      json: { type: 'boolean' },
      api: { type: 'string' },
    },
    1,
  );
  const simulated = values.cluster !== undefined;
  const logged = values.log !== undefined;
  const live = values.kubeconfig !== undefined || values.context !== undefined;
  if ([simulated, logged, live].filter(Boolean).length > 1)
    throw new FlagError(
      '--cluster, --log and --kubeconfig/--context choose different modes; give one',
    );
  if (values.seq !== undefined && !logged) throw new FlagError('--seq goes with --log');
  if (values['record-key'] !== undefined && !logged)
    throw new FlagError("--record-key goes with --log (it verifies the log's seal)");
  if (
    logged &&
    (values.seed !== undefined ||
      values['scheduler-name'] !== undefined ||
      values['emulated-version'] !== undefined ||
      values.config !== undefined)
  )
    throw new FlagError(
      '--seed, --scheduler-name, --emulated-version and --config come from the log header with --log',
    );
  return {
    positional: positionals[0],
    mode: logged ? 'log' : simulated ? 'simulated' : 'live',
    cluster: values.cluster ?? [],
    log: values.log,
    seq:
      values.seq === undefined
        ? undefined
        : intFlag(values.seq, 'seq', 0, 1, Number.MAX_SAFE_INTEGER),
    sealKey: values['record-key'] === undefined ? undefined : readRecordKey(values['record-key']),
    live: {
      ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }),
      ...(values.context === undefined ? {} : { context: values.context }),
    },
    seed: intFlag(values.seed, 'seed', 1, 0, 2 ** 32 - 1),
    config: flagsConfig(values.config, values['scheduler-name'], values['emulated-version']),
    json: values.json === true,
    api: values.api,
  };
}
