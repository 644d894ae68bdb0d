// The path one pod's machine took in a recorded log, observed while berth's own core replays it.

import type { ClusterState } from '../cluster/types.ts';
import type { LogHeader } from '../events/log-format.ts';
import { isEnvelope, LogError, LogReader, type LogRecord } from '../events/reader.ts';
import type { SealKey } from '../events/seal.ts';
import type { Envelope } from '../events/types.ts';
import { podKeyOfObject } from '../model/keys.ts';
import { type LogPart, logParts, podHistory } from '../runtime/explain-log.ts';
import { LogFileError } from '../runtime/log-lines.ts';
import { ReplaySession } from '../runtime/replay.ts';
import { SegmentError } from '../runtime/replay-file.ts';
import { CliError, FlagError } from './errors.ts';
import { podKeyOf } from './explain-inputs.ts';

/** One step of a machine's path: the state it entered, after which log event, and when. */
export interface TraceStep {
  /** The state before (null for the machine's first state). */
  from: string | null;
  /** The state the machine is in after the event was applied. */
  state: string;
  /** The type of the log event whose application moved it. */
  event: string;
  seq: number;
  /** The event's logical time (ms), as recorded. */
  time: number;
}

/** The path of one pod (one uid: a pod recreated under the same name is another). */
export interface UidPath {
  uid: string;
  steps: TraceStep[];
}

/** What `berth export-machines --trace` prints. */
export interface PodTrace {
  /** `namespace/name`. */
  pod: string;
  /** The log it was replayed from. */
  log: string;
  /** The machine the path is in (machines/pod.machine.ts). */
  machine: 'pod';
  /** Each uid the name had in the log, in order of appearance. */
  uids: UidPath[];
}

/** A bad or unreadable log as a one-line usage error (exit 2) naming the file. */
function readingLog<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof SegmentError) throw new CliError(error.message, 2);
    if (error instanceof LogError) throw new CliError(`${name}: ${error.message}`, 2);
    if (error instanceof LogFileError)
      throw new CliError(`cannot read ${name}: ${error.message}`, 2);
    throw error;
  }
}

/** The uid of the pod an event is about, when it is about the pod called `key`. */
function uidFor(key: string, env: Envelope): string | undefined {
  const e = env.event as { type: string; pod?: unknown; key?: unknown; uid?: unknown };
  if (e.type === 'PodUpserted') {
    if (podKeyOfObject(e.pod) !== key) return undefined;
    const uid = (e.pod as { metadata: { uid?: unknown } }).metadata.uid;
    return typeof uid === 'string' && uid !== '' ? uid : undefined;
  }
  return e.key === key && typeof e.uid === 'string' ? e.uid : undefined;
}

/** Watches the machines of one pod name's uids after every envelope the core applies. */
class PathObserver {
  readonly paths = new Map<string, { path: UidPath; last: string | undefined; ended: boolean }>();
  session: ReplaySession | undefined;

  constructor(private readonly key: string) {}

  /**
   * Records each watched uid's state when it changed. A machine stops on reaching a final
   * state: the core sends BOUND when the pod is seen with a node and DELETED otherwise, so
   * a machine that is gone ended in `bound` if its pod has a node, else in `deleted`.
   */
  applied(env: Envelope, state: ClusterState): void {
    const uid = uidFor(this.key, env);
    if (uid !== undefined && !this.paths.has(uid))
      this.paths.set(uid, { path: { uid, steps: [] }, last: undefined, ended: false });
    for (const [id, watched] of this.paths) {
      if (watched.ended) continue;
      let now = this.session?.machineState(id);
      if (now === undefined && watched.last !== undefined) {
        now = state.pods.get(id)?.info.nodeName === undefined ? 'deleted' : 'bound';
        watched.ended = true;
      }
      if (now === undefined || now === watched.last) continue;
      const { seq, time } = env;
      watched.path.steps.push({
        from: watched.last ?? null,
        state: now,
        event: env.event.type,
        seq,
        time,
      });
      watched.last = now;
    }
  }
}

/** What watches a replay: told the session once it is open, then each envelope applied. */
export interface ReplayObserver {
  session: ReplaySession | undefined;
  applied(env: Envelope, state: ClusterState): void;
}

/** Replays one part (a log, or a segment from its snapshot) through a fresh core. */
export function replayPart(
  part: LogPart,
  observer: ReplayObserver,
  sealKey: SealKey | undefined,
): void {
  const reader = new LogReader(sealKey);
  let session: ReplaySession | undefined;
  const open = (): ReplaySession => {
    session ??= new ReplaySession(reader.header as LogHeader, reader.snapshot, (env, state) =>
      observer.applied(env, state),
    );
    observer.session = session;
    return session;
  };
  const take = (record: LogRecord | undefined): boolean => {
    if (record === undefined) return true;
    if (isEnvelope(record)) return open().feed(record);
    const segmented = (reader.header?.segment ?? 1) > 1;
    if (session === undefined && (record.kind === 'snapshot' || !segmented)) open();
    return true;
  };
  part.read({
    line: (text) => take(reader.line(text)),
    lastLine: (text) => void take(reader.lastLine(text)),
  });
  const d = session?.divergence;
  if (d !== undefined)
    throw new SegmentError(
      part.name,
      reader.linesRead,
      `the log does not replay: at seq ${d.seq} it recorded "${d.expected}", replay decided "${d.actual}"`,
    );
}

/**
 * The path pod `podArg` (`NS/POD`, or `POD` in namespace default) took through the pod
 * machine in the log (or rotated recording) at `path`: the log is checked as `berth
 * replay` checks it (with `sealKey`, its seal too), then replayed through berth's core,
 * and each of the pod's uids' machine state is read after every envelope the core applies.
 * A malformed pod, an unknown pod, or a log that cannot be read or does not replay is a
 * one-line CliError with exit code 2.
 */
export function tracePodPath(podArg: string, path: string, sealKey?: SealKey): PodTrace {
  if (podArg === '') throw new FlagError('--trace needs a pod: NAMESPACE/NAME');
  const key = podKeyOf(podArg);
  const parts = readingLog(path, () => logParts(path));
  const history = readingLog(path, () => podHistory(parts, key, sealKey));
  if (!history.seen) throw new CliError(`${path}: no pod ${key} in the log`, 2);
  const observer = new PathObserver(key);
  for (const part of parts) readingLog(part.name, () => replayPart(part, observer, sealKey));
  const uids = [...observer.paths.values()].map((w) => w.path);
  if (uids.every((u) => u.steps.length === 0))
    throw new CliError(
      `${path}: ${key} never had a machine in berth (it was bound when berth saw it, or it is not berth's)`,
      2,
    );
  return { pod: key, log: path, machine: 'pod', uids };
}
