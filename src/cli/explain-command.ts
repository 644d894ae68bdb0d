// `berth explain NS/POD`: why a pod is where it is, or why it fits nowhere, from manifests, a log or a cluster.

import { restoreClusterState } from '../cluster/serialize.ts';
import type { BerthConfig } from '../core/config.ts';
import { podKey } from '../model/keys.ts';
import { podHistory, replayTo } from '../runtime/explain-log.ts';
import { CliError, FlagError } from './errors.ts';
import { explainFlags } from './explain-flags.ts';
import { explainCycle, podKeyOf, podNotes, profileFor } from './explain-inputs.ts';
import { explainDecision, explainLog, recordedText } from './explain-log-mode.ts';
import { type ExplainDocument, renderExplanation } from './explain-render.ts';
import { simulatedRun } from './explain-simulated-run.ts';

/** `--cluster FILE…`: simulates the manifests, then explains the pod (see the usage text). */
function explainSimulated(
  key: string,
  files: string[],
  seed: number,
  config: BerthConfig,
): ExplainDocument {
  const part = simulatedRun(files, seed, config, (pods) => {
    if (!pods.some((p) => podKey(p.metadata.namespace, p.metadata.name) === key))
      throw new CliError(`unknown pod ${key}: not in ${files.join(', ')}`);
  });
  const source = files.join(', ');
  const parts = [part];
  const end = replayTo(part);
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

/** Runs `berth explain NS/POD` (or `berth explain group NS/NAME`) in the mode its flags choose. */
export async function explainCommand(argv: string[]): Promise<void> {
  if (argv[0] === 'group') {
    const { explainGroupCommand } = await import('./explain-group.ts');
    return explainGroupCommand(argv.slice(1));
  }
  const f = explainFlags(argv);
  if (f.api !== undefined) throw new FlagError('--api goes with berth explain group');
  const key = podKeyOf(f.positional);
  if (f.mode === 'log') return print(explainLog(key, f.log as string, f.seq, f.sealKey), f.json);
  if (f.mode === 'simulated')
    return print(explainSimulated(key, f.cluster, f.seed, f.config), f.json);
  const { explainLive } = await import('./explain-live.ts');
  const doc = await explainLive(key, { ...f.live, seed: f.seed, config: f.config });
  print(doc, f.json);
}
