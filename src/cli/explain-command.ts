// `berth explain NS/POD`: why a pod is where it is, or why it fits nowhere, from manifests, a log or a cluster.
import { podGroupKeyOf } from '../cluster/pod-groups.ts';
import { restoreClusterState } from '../cluster/serialize.ts';
import { type BerthConfig, parseConfig } from '../core/config.ts';
import { decisionText } from '../events/digest.ts';
import type { LogHeader } from '../events/log-format.ts';
import { LogError } from '../events/reader.ts';
import type { SealKey } from '../events/seal.ts';
import type { PodExplanation } from '../framework/explain-pod.ts';
import {
  type CoreAt,
  type CycleDecision,
  type LogPart,
  logParts,
  MidStepError,
  memoryPart,
  type PodDecision,
  podHistory,
  replayTo,
} from '../runtime/explain-log.ts';
import { LogFileError } from '../runtime/log-lines.ts';
import { SegmentError } from '../runtime/replay-file.ts';
import { simulate } from '../runtime/simulate.ts';
import { intFlag, parseFlags } from './args.ts';
import { CliError, FlagError } from './errors.ts';
import { explainCycle, podKeyOf, podNotes, profileFor } from './explain-inputs.ts';
import { type ExplainDocument, renderExplanation } from './explain-render.ts';
import { integrityNote } from './integrity.ts';
import { readRecordKey } from './record-key.ts';
import { loadCluster, simulateConfig } from './simulate-command.ts';

/** The recorded decision, in the words a cycle's result is described with. */
function recordedText(d: CycleDecision): string {
  if (d.type === 'PodReserved') return `Scheduled on ${d.node}`;
  if (d.type === 'PodUnschedulable') return `Unschedulable: ${d.message}`;
  return `Error in ${d.plugin}: ${d.message}`;
}

/** Runs `read`, turning a bad or unreadable log into a one-line CliError naming the file. */
function readingLog<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SegmentError) throw new CliError(error.message);
    if (error instanceof LogError) throw new CliError(`${name}: ${error.message}`);
    if (error instanceof LogFileError) throw new CliError(`cannot read ${name}: ${error.message}`);
    throw error;
  }
}

function configOf(header: LogHeader, name: string): BerthConfig {
  try {
    return parseConfig(header.config);
  } catch (error) {
    throw new CliError(`${name}: line 1: bad config in the header: ${(error as Error).message}`);
  }
}

/** Explains a recorded decision from the state just before it. */
function explainDecision(
  parts: readonly LogPart[],
  decision: PodDecision,
  mode: ExplainDocument['mode'],
  source: string,
  sealKey?: SealKey,
): ExplainDocument {
  const part = parts[decision.part] as LogPart;
  let at: CoreAt;
  let stepStart: number | undefined;
  try {
    at = replayTo(part, decision.seq, sealKey);
  } catch (error) {
    // A gang step decides its members in a row: explain from where the step starts.
    if (!(error instanceof MidStepError) || error.stepStart === undefined)
      return readingLog(part.name, () => {
        throw error;
      });
    stepStart = error.stepStart;
    at = readingLog(part.name, () => replayTo(part, stepStart, sealKey));
  }
  const config = configOf(at.header, part.name);
  const state = restoreClusterState(at.state.cluster);
  const pod = state.pods.get(decision.event.uid)?.info;
  if (pod === undefined)
    throw new CliError(
      `${part.name}: the pod of decision #${decision.seq} (uid ${decision.event.uid}) is not in the state before it`,
    );
  const explanation = explainCycle({
    state,
    pod,
    profile: profileFor(config, pod.schedulerName),
    cursor: at.state.nextStartNodeIndex,
    rngState: at.state.rng.state,
  });
  const recorded = recordedText(decision.event);
  const recomputed = describeOutcome(explanation);
  const group = config.gangs === undefined ? undefined : podGroupKeyOf(pod);
  const gangStep =
    group === undefined ||
    (stepStart === undefined &&
      !(
        decision.event.type === 'PodUnschedulable' &&
        decision.event.message.startsWith('pod group ')
      ))
      ? undefined
      : { group, seq: stepStart ?? decision.seq };
  return {
    pod: pod.key,
    uid: pod.uid,
    mode,
    source,
    asOf: {
      kind: 'decision',
      seq: decision.seq,
      time: decision.time,
      decision: decisionText(decision.event),
    },
    recorded: {
      seq: decision.seq,
      decision: recorded,
      recomputed,
      agrees: gangStep !== undefined || recorded === recomputed,
      ...(gangStep === undefined ? {} : { gangStep }),
    },
    notes: podNotes(pod, config),
    explanation,
  };
}

/** The explained outcome in the words `describeCycleResult` uses. */
function describeOutcome(e: PodExplanation): string {
  const o = e.outcome;
  if (o.kind === 'Scheduled') return `Scheduled on ${o.node}`;
  if (o.kind === 'Unschedulable') return `Unschedulable: ${o.message}`;
  return `Error in ${o.plugin}: ${o.message}`;
}

/**
 * `--log LOG [--seq N] [--record-key FILE]`: the pod's last cycle decision at or before seq
 * N. With a key, a log whose seal does not verify is refused naming the line; a last note
 * says what the log's integrity proves.
 */
function explainLog(
  key: string,
  path: string,
  seq: number | undefined,
  sealKey: SealKey | undefined,
): ExplainDocument {
  const parts = readingLog(path, () => logParts(path));
  const history = readingLog(path, () => podHistory(parts, key, sealKey));
  const decisions = history.decisions;
  if (decisions.length === 0)
    throw new CliError(
      history.seen
        ? `${path}: berth made no scheduling decision about ${key} (gated, bound by another scheduler, or not berth's)`
        : `${path}: no pod ${key} in the log`,
    );
  const candidates = seq === undefined ? decisions : decisions.filter((d) => d.seq <= seq);
  const decision = candidates.at(-1);
  if (decision === undefined)
    throw new CliError(
      `${path}: no decision about ${key} at or before seq ${seq}; its first is at seq ${decisions[0]?.seq}`,
    );
  const doc = explainDecision(parts, decision, 'log', path, sealKey);
  doc.notes.push(integrityNote({ file: path, ...history }));
  return doc;
}

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
  const manifest = pods.find(
    (p) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}` === key,
  );
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
function flagsConfig(path: string | undefined, schedulerName: string | undefined): BerthConfig {
  const config = simulateConfig(path);
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
      values.config !== undefined)
  )
    throw new FlagError(
      '--seed, --scheduler-name and --config come from the log header with --log',
    );
  const seed = intFlag(values.seed, 'seed', 1, 0, 2 ** 32 - 1);
  const config = flagsConfig(values.config, values['scheduler-name']);
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
