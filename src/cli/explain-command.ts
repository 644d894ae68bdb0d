// `berth explain NS/POD`: why a pod is where it is, or why it fits nowhere, from manifests, a log or a cluster.

import { restoreClusterState } from '../cluster/serialize.ts';
import type { BerthConfig } from '../core/config.ts';
import { podKey } from '../model/keys.ts';
import { type LogPart, memoryPart, podHistory, replayTo } from '../runtime/explain-log.ts';
import { simulate } from '../runtime/simulate.ts';
import { intFlag, parseFlags } from './args.ts';
import { CliError, FlagError } from './errors.ts';
import { explainCycle, podKeyOf, podNotes, profileFor } from './explain-inputs.ts';
import { explainDecision, explainLog, recordedText } from './explain-log-mode.ts';
import { type ExplainDocument, renderExplanation } from './explain-render.ts';
import { readRecordKey } from './record-key.ts';
import { loadCluster, simulateConfig } from './simulate-command.ts';

/** `--cluster FILE…`: simulates the manifests, then explains the pod (see the usage text). */
function explainSimulated(
  key: string,
  files: string[],
  seed: number,
  config: BerthConfig,
): ExplainDocument {
  const { nodes, pods, objects } = loadCluster({
    files,
    seed,
    schedulerName: config.schedulerName,
  });
  const manifest = pods.find((p) => podKey(p.metadata.namespace, p.metadata.name) === key);
  if (manifest === undefined) throw new CliError(`unknown pod ${key}: not in ${files.join(', ')}`);
  const lines: string[] = [];
  // As `berth simulate` runs them (its default bind latency, no failures, its horizon).
  simulate({
    nodes,
    pods,
    objects,
    seed,
    config,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    record: (line) => lines.push(line),
  });
  const source = files.join(', ');
  const parts = [memoryPart('the simulated run', lines)];
  const end = replayTo(parts[0] as LogPart);
  const state = restoreClusterState(end.state.cluster);
  const record = [...state.pods.values()].find((r) => r.info.key === key);
  if (record === undefined) throw new CliError(`unknown pod ${key}: the run does not hold it`);
  const decisions = podHistory(parts, key).decisions.filter((d) => d.event.uid === record.info.uid);
  const last = decisions.at(-1);
  const placedOn =
    record.info.nodeName ?? (record.charge.kind === 'assumed' ? record.charge.node : undefined);
  if (placedOn !== undefined) {
    // A placed pod is explained by the decision that placed it, as of its own turn.
    if (last?.event.type !== 'PodReserved' || last.event.node !== placedOn)
      throw new CliError(
        `${key} is bound to ${placedOn} by its manifest (spec.nodeName): no scheduler decided it`,
      );
    return explainDecision(parts, last, 'simulated', source);
  }
  // A pod still pending is explained as of now: the cycle it would get next, on the state
  // the run left (every other pod placed), with the run's cursor and generator.
  const explanation = explainCycle({
    state,
    pod: record.info,
    profile: profileFor(config, record.info.schedulerName),
    cursor: end.state.nextStartNodeIndex,
    rngState: end.state.rng.state,
  });
  const notes = podNotes(record.info, config);
  if (last !== undefined)
    notes.push(`its last decision in the run was #${last.seq}: ${recordedText(last.event)}`);
  return {
    pod: key,
    uid: record.info.uid,
    mode: 'simulated',
    source,
    asOf: { kind: 'end', seq: end.state.seq, time: end.state.time },
    recorded: null,
    notes,
    explanation,
  };
}

/** Prints the document; a recomputed decision that differs from the log fails with exit 1. */
function print(doc: ExplainDocument, json: boolean): void {
  process.stdout.write(json ? `${JSON.stringify(doc)}\n` : renderExplanation(doc));
  const r = doc.recorded;
  if (r !== null && !r.agrees)
    throw new CliError(
      `MISMATCH at seq ${r.seq}: the log recorded "${r.decision}", the recomputed cycle says "${r.recomputed}"`,
    );
  if (!doc.explanation.check.agrees)
    throw new CliError(
      `explain disagrees with the scheduler's own cycle ("${doc.explanation.check.cycle}"): a bug in berth explain`,
    );
}

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

/** Runs `berth explain NS/POD` in the mode its flags choose. */
export async function explainCommand(argv: string[]): Promise<void> {
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
    },
    1,
  );
  const key = podKeyOf(positionals[0]);
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
  const seed = intFlag(values.seed, 'seed', 1, 0, 2 ** 32 - 1);
  const config = flagsConfig(values.config, values['scheduler-name'], values['emulated-version']);
  const json = values.json === true;
  if (logged) {
    const seq =
      values.seq === undefined
        ? undefined
        : intFlag(values.seq, 'seq', 0, 1, Number.MAX_SAFE_INTEGER);
    const sealKey =
      values['record-key'] === undefined ? undefined : readRecordKey(values['record-key']);
    return print(explainLog(key, values.log as string, seq, sealKey), json);
  }
  if (simulated) return print(explainSimulated(key, values.cluster ?? [], seed, config), json);
  const { explainLive } = await import('./explain-live.ts');
  const doc = await explainLive(key, {
    ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }),
    ...(values.context === undefined ? {} : { context: values.context }),
    seed,
    config,
  });
  print(doc, json);
}
