// `berth simulate`: schedule manifests or a generated workload on the simulated cluster.
import { fileURLToPath } from 'node:url';
import { ManifestError, parseManifests } from '../adapters/sim/manifests.ts';
import { generateWorkload } from '../adapters/sim/workload.ts';
import type { NodeObject, PodObject } from '../cluster/objects.ts';
import { defaultConfig } from '../core/config.ts';
import { simulate } from '../runtime/simulate.ts';
import { intFlag, numberFlag, parseFlags } from './args.ts';
import { CliError } from './errors.ts';
import { readTextFile } from './files.ts';
import { formatSummary, progressBar } from './format.ts';
import { openLogFile } from './log-file.ts';

/** The demo cluster `npm start` schedules when no cluster is given. */
export const demoClusterPath = fileURLToPath(new URL('./demo-cluster.yaml', import.meta.url));

function readManifests(path: string): { nodes: NodeObject[]; pods: PodObject[] } {
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

/** Runs `simulate` with its flags; writes the summary to stdout. */
export function simulateCommand(argv: string[]): void {
  const { values } = parseFlags(argv, {
    cluster: { type: 'string', multiple: true },
    nodes: { type: 'string' },
    pods: { type: 'string' },
    seed: { type: 'string' },
    record: { type: 'string' },
    'bind-latency-ms': { type: 'string' },
    'bind-failure-rate': { type: 'string' },
    json: { type: 'boolean' },
  });
  if ((values.nodes === undefined) !== (values.pods === undefined)) {
    throw new CliError('--nodes and --pods go together', 2);
  }
  const seed = intFlag(values.seed, 'seed', 1, 0, 2 ** 32 - 1);
  const bindLatencyMs = intFlag(values['bind-latency-ms'], 'bind-latency-ms', 5, 0, 3_600_000);
  const bindFailureRate = numberFlag(values['bind-failure-rate'], 'bind-failure-rate', 0, 0, 1);
  const nodes: NodeObject[] = [];
  const pods: PodObject[] = [];
  const files = values.cluster ?? (values.nodes === undefined ? [demoClusterPath] : []);
  for (const file of files) {
    const m = readManifests(file);
    nodes.push(...m.nodes);
    pods.push(...m.pods);
  }
  if (values.nodes !== undefined) {
    const generated = generateWorkload(
      intFlag(values.nodes, 'nodes', 0, 0, 100_000),
      intFlag(values.pods, 'pods', 0, 0, 1_000_000),
      seed,
      defaultConfig.schedulerName,
    );
    nodes.push(...generated.nodes);
    pods.push(...generated.pods);
  }
  const log = values.record === undefined ? undefined : openLogFile(values.record);
  const bar = values.json
    ? progressBar(process.stderr, 0, '')
    : progressBar(process.stderr, pods.length, 'scheduling');
  let summary: ReturnType<typeof simulate>;
  try {
    summary = simulate({
      nodes,
      pods,
      seed,
      config: defaultConfig,
      bindLatencyMs,
      bindFailureRate,
      ...(log === undefined ? {} : { record: log.sink }),
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
  process.stdout.write(formatSummary(`berth simulate — ${source}, seed ${seed}`, summary));
  if (values.record !== undefined)
    process.stdout.write(
      `\nRecorded to ${values.record}; check it with: berth replay ${values.record}\n`,
    );
}
