// `berth explain group NS/NAME`: why a pod group is placed or waiting, from manifests, a log or a live cluster.
import { coreGroupKey, groupKeyOf } from '../cluster/core-pod-groups.ts';
import type { ClusterState } from '../cluster/types.ts';
import { type BerthConfig, parseConfig } from '../core/config.ts';
import type { GroupExplanation } from '../core/gang-explain-types.ts';
import { Scheduler } from '../core/scheduler.ts';
import type { CoreSnapshot } from '../core/snapshot.ts';
import type { SealKey } from '../events/seal.ts';
import {
  type CoreAt,
  type LogPart,
  logParts,
  MidStepError,
  podHistory,
  replayTo,
} from '../runtime/explain-log.ts';
import { SegmentError } from '../runtime/replay-file.ts';
import { CliError, FlagError } from './errors.ts';
import { explainFlags } from './explain-flags.ts';
import { type GroupExplainDocument, renderGroupExplanation } from './explain-group-render.ts';
import { readingLog } from './explain-log-mode.ts';
import { simulatedRun } from './explain-simulated-run.ts';
import { traceGroupPath } from './group-trace.ts';
import { integrityNote } from './integrity.ts';

/** `NS/NAME` (or `NAME`, in namespace default) → [namespace, name]. */
export function groupNameOf(arg: string | undefined): [string, string] {
  if (arg === undefined || arg === '')
    throw new FlagError('explain group needs a pod group: berth explain group NAMESPACE/NAME');
  const parts = arg.split('/');
  if (parts.length > 2 || parts.some((p) => p === ''))
    throw new FlagError(`the pod group must be NAMESPACE/NAME, got ${JSON.stringify(arg)}`);
  return parts.length === 1 ? ['default', arg] : [parts[0] as string, parts[1] as string];
}

const apiNames = {
  plugins: 'scheduler-plugins PodGroup (scheduling.x-k8s.io/v1alpha1)',
  core: 'core PodGroup (scheduling.k8s.io/v1beta1)',
} as const;

/**
 * The group id `ns/name` names in `state` under `api` (`plugins`, `core`, or undefined:
 * whichever exists, as a PodGroup object or as a group some pod joins). Unknown, or known
 * under both APIs without `--api`, is a one-line CliError naming `source`.
 */
export function resolveGroup(
  state: ClusterState,
  [ns, name]: [string, string],
  api: string | undefined,
  source: string,
): string {
  if (api !== undefined && api !== 'core' && api !== 'plugins')
    throw new FlagError(`--api must be core or plugins, got ${JSON.stringify(api)}`);
  const nsName = `${ns}/${name}`;
  const ids = { plugins: nsName, core: coreGroupKey(ns, name) };
  const joined = new Set<string>();
  for (const { info } of state.pods.values()) {
    const key = groupKeyOf(info);
    if (key !== undefined) joined.add(key);
  }
  const exists = {
    plugins: state.objects.PodGroup.has(nsName) || joined.has(ids.plugins),
    core: state.objects.CorePodGroup.has(nsName) || joined.has(ids.core),
  };
  if (api === 'core' || api === 'plugins') {
    if (!exists[api])
      throw new CliError(
        `unknown pod group ${nsName}: no ${apiNames[api]} and no pod in it in ${source}`,
      );
    return ids[api];
  }
  if (exists.plugins && exists.core)
    throw new CliError(
      `pod group ${nsName} exists in both APIs (${apiNames.plugins} and ${apiNames.core}): give --api plugins or --api core`,
    );
  if (exists.plugins) return ids.plugins;
  if (exists.core) return ids.core;
  throw new CliError(
    `unknown pod group ${nsName}: no PodGroup of either API and no pod in it in ${source}`,
  );
}

/** The core as of `snapshot`, with `config`. */
function coreAt(snapshot: CoreSnapshot, config: BerthConfig, seed: number): Scheduler {
  return Scheduler.restore(snapshot, { config, seed }).core;
}

/** The note naming the API a group resolved to. */
function apiNote(e: GroupExplanation): string {
  return `the group is a ${apiNames[e.api]}`;
}

/** `--cluster FILE…`: simulates the manifests as `berth simulate` does, then explains the group as of the end. */
function explainSimulated(
  name: [string, string],
  files: string[],
  seed: number,
  config: BerthConfig,
  api: string | undefined,
): GroupExplainDocument {
  const source = files.join(', ');
  const end = replayTo(simulatedRun(files, seed, config));
  const scheduler = coreAt(end.state, config, seed);
  const key = resolveGroup(scheduler.state, name, api, source);
  const explanation = scheduler.explainGroup(key);
  return {
    name: name.join('/'),
    mode: 'simulated',
    source,
    asOf: { kind: 'end', seq: end.state.seq, time: end.state.time },
    notes: [apiNote(explanation)],
    explanation,
    trace: null,
  };
}

/**
 * The core's state just before seq `seq` (the end when undefined), in the part that holds
 * it; a seq inside a step is moved back to where the step starts.
 */
function stateBefore(
  parts: readonly LogPart[],
  seq: number | undefined,
  sealKey?: SealKey,
): CoreAt {
  const last = parts[parts.length - 1] as LogPart;
  if (seq === undefined) return readingLog(last.name, () => replayTo(last, undefined, sealKey));
  for (const part of parts) {
    try {
      const at = replayTo(part, seq, sealKey);
      // A rotated recording whose older segments are gone starts after seq: no state before it.
      if (at.state.seq >= seq)
        throw new CliError(
          `${part.name}: seq ${seq} is before the first event this recording keeps (seq ${at.state.seq + 1})`,
        );
      return at;
    } catch (error) {
      if (error instanceof CliError) throw error;
      if (error instanceof MidStepError && error.stepStart !== undefined) {
        const start = error.stepStart;
        return readingLog(part.name, () => replayTo(part, start, sealKey));
      }
      const endsBefore =
        error instanceof SegmentError && /the log ends before seq/.test(error.message);
      if (!endsBefore || part === last)
        return readingLog(part.name, () => {
          throw error;
        });
    }
  }
  throw new CliError(`the log ends before seq ${seq}`);
}

/** `--log LOG [--seq N]`: the group as of just before seq N (or the log's end), with its machine's path. */
function explainLogged(
  name: [string, string],
  path: string,
  seq: number | undefined,
  sealKey: SealKey | undefined,
  api: string | undefined,
): GroupExplainDocument {
  const parts = readingLog(path, () => logParts(path));
  // Reads the whole log once with its integrity checks (the group's name stands for the pod).
  const history = readingLog(path, () => podHistory(parts, name.join('/'), sealKey));
  if (seq !== undefined && seq > history.lastSeq)
    throw new CliError(`${path}: the log ends at seq ${history.lastSeq}, before seq ${seq}`);
  const at = stateBefore(parts, seq, sealKey);
  let config: BerthConfig;
  try {
    config = parseConfig(at.header.config);
  } catch (error) {
    throw new CliError(`${path}: line 1: bad config in the header: ${(error as Error).message}`);
  }
  const scheduler = coreAt(at.state, config, at.header.seed);
  const key = resolveGroup(scheduler.state, name, api, path);
  const explanation = scheduler.explainGroup(key);
  const before = at.state.seq + 1;
  const trace = readingLog(path, () => traceGroupPath(parts, key, before, sealKey));
  const notes = [apiNote(explanation)];
  if (seq !== undefined && before !== seq)
    notes.push(
      `seq ${seq} is inside a scheduling step: explained from where the step starts (seq ${before})`,
    );
  notes.push(integrityNote({ file: path, ...history }));
  return {
    name: name.join('/'),
    mode: 'log',
    source: path,
    asOf: { kind: 'end', seq: at.state.seq, time: at.state.time },
    notes,
    explanation,
    trace,
  };
}

/** Runs `berth explain group NS/NAME` in the mode its flags choose. */
export async function explainGroupCommand(argv: string[]): Promise<void> {
  const f = explainFlags(argv);
  const name = groupNameOf(f.positional);
  let doc: GroupExplainDocument;
  if (f.mode === 'log') doc = explainLogged(name, f.log as string, f.seq, f.sealKey, f.api);
  else if (f.mode === 'simulated') doc = explainSimulated(name, f.cluster, f.seed, f.config, f.api);
  else {
    const { explainGroupLive } = await import('./explain-group-live.ts');
    const { state, server, scheduler } = await explainGroupLive({
      ...f.live,
      seed: f.seed,
      config: f.config,
    });
    const key = resolveGroup(state, name, f.api, `the cluster at ${server}`);
    const explanation = scheduler.explainGroup(key);
    doc = {
      name: name.join('/'),
      mode: 'live',
      source: server,
      asOf: { kind: 'now' },
      notes: [
        apiNote(explanation),
        'as a fresh berth would see it after listing: no hold, machine or backoff from a running berth',
      ],
      explanation,
      trace: null,
    };
  }
  process.stdout.write(f.json ? `${JSON.stringify(doc)}\n` : renderGroupExplanation(doc));
}
