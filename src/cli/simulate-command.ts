// `berth simulate`: schedule manifests or a generated workload on the simulated cluster.

import { fileURLToPath } from 'node:url';
import {
  type AdmissionInput,
  type AdmittedCluster,
  admit,
  manifestInput,
} from '../adapters/sim/admission.ts';
import { ManifestError, type Manifests, parseManifests } from '../adapters/sim/manifests.ts';
import type { SimDeviceDriver } from '../adapters/sim/sim-device-driver.ts';
import { generateWorkload } from '../adapters/sim/workload.ts';
import { type BerthConfig, defaultConfig } from '../core/config.ts';
import { defaultHorizonMs, simulate } from '../runtime/simulate.ts';
import type { RunSummary } from '../runtime/summary.ts';
import { intFlag, numberFlag, parseFlags } from './args.ts';
import { decisionConfig, readConfigFile } from './config-file.ts';
import { CliError } from './errors.ts';
import { readTextFile } from './files.ts';
import { formatSummary, progressBar } from './format.ts';
import { releaseYoungGeneration } from './heap-growth.ts';
import { openLogFile } from './log-file.ts';
import { readRecordKey } from './record-key.ts';
import { parseDuration, readRunOptions } from './run-options.ts';

/** The demo cluster `npm start` schedules when no cluster is given. */
export const demoClusterPath = fileURLToPath(new URL('./demo-cluster.yaml', import.meta.url));

function readManifests(path: string): Manifests {
  const text = readTextFile(path);
  try {
    const manifests = parseManifests(text, path);
    for (const note of manifests.skipped) process.stderr.write(`berth: ${note}\n`);
    return manifests;
  } catch (error) {
    if (error instanceof ManifestError) throw new CliError(error.message);
    throw error;
  }
}

/** Admits the inputs as the API server would; its refusals become one-line errors. */
function admitInputs(inputs: AdmissionInput[]): AdmittedCluster {
  try {
    return admit(inputs);
  } catch (error) {
    if (error instanceof ManifestError) throw new CliError(error.message);
    throw error;
  }
}

/** What `simulate` schedules: manifest files, and optionally a generated workload. */
export interface ClusterSources {
  files: readonly string[];
  generate?: { nodes: number; pods: number };
  /** Seeds the generated workload. */
  seed: number;
  /** The scheduler name of the generated pods (default berth's). */
  schedulerName?: string;
}

/**
 * Reads the files and generates the workload, then admits them all as one cluster (as the
 * API server would). Throws CliError naming the file and object for anything refused.
 */
export function loadCluster(sources: ClusterSources): AdmittedCluster {
  const inputs: AdmissionInput[] = [];
  for (const file of sources.files) inputs.push(manifestInput(readManifests(file)));
  if (sources.generate !== undefined) {
    const generated = generateWorkload(
      sources.generate.nodes,
      sources.generate.pods,
      sources.seed,
      sources.schedulerName ?? defaultConfig.schedulerName,
    );
    inputs.push({
      ...generated,
      originOf: (kind, i) => `the generated workload (--nodes/--pods): ${kind} ${i}`,
    });
  }
  return admitInputs(inputs);
}

/**
 * The config of `--config FILE` (the same file `berth run` reads: its run-only keys are
 * checked, then not used), or the defaults, as a fresh run records it, with
 * `--emulated-version` applied. One-line CliErrors for anything refused.
 */
export function simulateConfig(path: string | undefined, emulatedVersion?: string): BerthConfig {
  const file = readConfigFile(path, emulatedVersion);
  if (file !== undefined) readRunOptions({}, file.run);
  return decisionConfig(file, undefined, emulatedVersion);
}

/** The longest `--horizon` accepted: a virtual year. */
const maxHorizonMs = 365 * 24 * 3_600_000;

/** Reads `--horizon` (a Go duration, default 15m) in ms; a usage error outside 1ms–8760h. */
export function horizonFlag(value: string | undefined): number {
  if (value === undefined) return defaultHorizonMs;
  const ms = parseDuration(value, '--horizon');
  if (ms < 1 || ms > maxHorizonMs)
    throw new CliError(`--horizon must be from 1ms to 8760h, got ${JSON.stringify(value)}`, 2);
  return Math.round(ms);
}

/** A Go-style duration for people: 15m, 1h30m, 2.5s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 ? `${s}s` : ''}`;
}

/** What the readable summary adds about states and the horizon. */
export function describeRun(summary: RunSummary): string {
  const lines = [
    `  not bound      ${summary.unschedulable} unschedulable, ${summary.backingOff} backing off, ` +
      `${summary.binding} binding, ${summary.gated} gated, ${summary.queued} queued`,
    `  attempts       ${summary.attempts} (${summary.attemptsPerSecond.toLocaleString('en-US')}/s)`,
  ];
  const horizon = formatDuration(summary.horizonMs ?? 0);
  if (summary.horizonReached) {
    const inFlight = summary.backingOff + summary.binding + summary.queued;
    lines.push(
      `  horizon        reached at ${horizon} of virtual time with ${inFlight} pod(s) still in flight; ` +
        'raise --horizon to let them finish',
    );
  } else {
    lines.push(
      `  virtual time   ${formatDuration(summary.virtualMs ?? 0)} (quiescent before the ${horizon} horizon)`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `simulate` with its flags; writes the summary to stdout. */
export function simulateCommand(argv: string[]): void {
  releaseYoungGeneration();
  const { values } = parseFlags(argv, {
    cluster: { type: 'string', multiple: true },
    nodes: { type: 'string' },
    pods: { type: 'string' },
    seed: { type: 'string' },
    record: { type: 'string' },
    'record-key': { type: 'string' },
    'bind-latency-ms': { type: 'string' },
    'bind-failure-rate': { type: 'string' },
    'device-driver': { type: 'string' },
    horizon: { type: 'string' },
    config: { type: 'string' },
    'emulated-version': { type: 'string' },
    json: { type: 'boolean' },
  });
  if ((values.nodes === undefined) !== (values.pods === undefined)) {
    throw new CliError('--nodes and --pods go together', 2);
  }
  const seed = intFlag(values.seed, 'seed', 1, 0, 2 ** 32 - 1);
  const bindLatencyMs = intFlag(values['bind-latency-ms'], 'bind-latency-ms', 5, 0, 3_600_000);
  const bindFailureRate = numberFlag(values['bind-failure-rate'], 'bind-failure-rate', 0, 0, 1);
  const horizonMs = horizonFlag(values.horizon);
  const deviceDriver = deviceDriverFlag(values['device-driver']);
  const config = simulateConfig(values.config, values['emulated-version']);
  const { nodes, pods, objects } = loadCluster({
    files: values.cluster ?? (values.nodes === undefined ? [demoClusterPath] : []),
    ...(values.nodes === undefined
      ? {}
      : {
          generate: {
            nodes: intFlag(values.nodes, 'nodes', 0, 0, 100_000),
            pods: intFlag(values.pods, 'pods', 0, 0, 1_000_000),
          },
        }),
    seed,
    schedulerName: config.schedulerName,
  });
  if (values['record-key'] !== undefined && values.record === undefined)
    throw new CliError('--record-key needs --record LOG (it seals the recording)', 2);
  const recordKey =
    values['record-key'] === undefined ? undefined : readRecordKey(values['record-key']);
  const log = values.record === undefined ? undefined : openLogFile(values.record);
  const bar = values.json
    ? progressBar(process.stderr, 0, '')
    : progressBar(process.stderr, pods.length, 'scheduling');
  let summary: ReturnType<typeof simulate>;
  try {
    summary = simulate({
      nodes,
      pods,
      objects,
      seed,
      config,
      bindLatencyMs,
      bindFailureRate,
      horizonMs,
      ...(deviceDriver === undefined ? {} : { deviceDriver }),
      ...(log === undefined ? {} : { record: log.sink }),
      ...(recordKey === undefined ? {} : { recordKey }),
      onDecision: (n) => bar.update(n),
    });
  } finally {
    bar.end();
    log?.close();
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  const source =
    values.cluster === undefined && values.nodes === undefined
      ? 'the demo cluster'
      : `${nodes.length} nodes`;
  const text = formatSummary(`berth simulate — ${source}, seed ${seed}`, summary);
  // The run's lines go with the counts, before the lists of pods.
  const cut = text.indexOf('\n\n');
  process.stdout.write(
    cut < 0
      ? `${text}${describeRun(summary)}`
      : `${text.slice(0, cut + 1)}${describeRun(summary)}${text.slice(cut + 1)}`,
  );
  if (values.record !== undefined)
    process.stdout.write(
      recordKey === undefined
        ? `\nRecorded to ${values.record} (not sealed); check it with: berth replay ${values.record} --allow-unsealed\n`
        : `\nRecorded to ${values.record}, sealed with key id ${recordKey.id}; check it with: berth replay ${values.record} --record-key ${values['record-key']}\n`,
    );
}

/**
 * `--device-driver OUTCOME[@MS]`: the DRA driver the simulated cluster plays on devices with
 * binding conditions (`ready`, `fail` or `never`, answering MS after the allocation is
 * written, default 1000); absent: no driver.
 */
function deviceDriverFlag(value: string | undefined): SimDeviceDriver | undefined {
  if (value === undefined) return undefined;
  const m = /^(ready|fail|never)(?:@(\d{1,9}))?$/.exec(value);
  if (m === null)
    throw new CliError(
      `--device-driver must be ready, fail or never, optionally @MS (e.g. ready@2000), got ${JSON.stringify(value)}`,
      2,
    );
  return { outcome: m[1] as SimDeviceDriver['outcome'], latencyMs: Number(m[2] ?? 1000) };
}
