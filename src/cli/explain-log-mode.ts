// `berth explain --log`: a pod's recorded decision explained from the state replayed just before it.
import { groupKeyOf } from '../cluster/core-pod-groups.ts';
import { restoreClusterState } from '../cluster/serialize.ts';
import type { ClusterState } from '../cluster/types.ts';
import { type BerthConfig, type ProfileInUse, parseConfig } from '../core/config.ts';
import { domainPlugin, withPlugin } from '../core/gang-topology.ts';
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
  type PodDecision,
  podHistory,
  replayTo,
} from '../runtime/explain-log.ts';
import { LogFileError } from '../runtime/log-lines.ts';
import { SegmentError } from '../runtime/replay-file.ts';
import { CliError } from './errors.ts';
import { explainCycle, podNotes, profileFor } from './explain-inputs.ts';
import type { ExplainDocument } from './explain-render.ts';
import { integrityNote } from './integrity.ts';

/** The recorded decision, in the words a cycle's result is described with. */
export function recordedText(d: CycleDecision): string {
  if (d.type === 'PodReserved') return `Scheduled on ${d.node}`;
  if (d.type === 'PodUnschedulable') return `Unschedulable: ${d.message}`;
  return `Error in ${d.plugin}: ${d.message}`;
}

/** Runs `read`, turning a bad or unreadable log into a one-line CliError naming the file. */
export function readingLog<T>(name: string, read: () => T): T {
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
export function explainDecision(
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
  const group = config.gangs === undefined ? undefined : groupKeyOf(pod);
  const explanation = explainCycle({
    state,
    pod,
    profile: inGroupDomain(profileFor(config, pod.schedulerName), state, group, decision.event),
    cursor: at.state.nextStartNodeIndex,
    rngState: at.state.rng.state,
  });
  const recorded = recordedText(decision.event);
  const recomputed = describeOutcome(explanation);
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

/**
 * `inUse` for a member of a topology-constrained group reserved on a node: kept inside that
 * node's domain, as its gang step kept it (gang-topology.ts); any other pod: `inUse`.
 */
function inGroupDomain(
  inUse: ProfileInUse,
  state: ClusterState,
  group: string | undefined,
  event: PodDecision['event'],
): ProfileInUse {
  const key = group === undefined ? undefined : state.objects.PodGroup.get(group)?.topologyKeys[0];
  if (key === undefined || event.type !== 'PodReserved') return inUse;
  const domain = state.nodes.get(event.node)?.labels[key];
  if (domain === undefined) return inUse;
  const nodes = state.topology.get(key)?.get(domain) ?? new Set<string>();
  return { ...inUse, profile: withPlugin(inUse.profile, domainPlugin(key, domain, nodes)) };
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
export function explainLog(
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
