// Finds a pod's decisions in a recorded log and replays the core to just before one (or to the end).

import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreSnapshot } from '../core/snapshot.ts';
import type { LogHeader } from '../events/log-format.ts';
import { isEnvelope, LogError, LogReader, type LogRecord } from '../events/reader.ts';
import type { SealKey } from '../events/seal.ts';
import type { SealStatus } from '../events/seal-reader.ts';
import type { CycleFailed, Envelope, PodReserved, PodUnschedulable } from '../events/types.ts';
import { podKey } from '../model/keys.ts';
import { type LineVisitor, readLogLines } from './log-lines.ts';
import { ReplaySession } from './replay.ts';
import { SegmentError, sealJoin } from './replay-file.ts';
import { listSegments } from './segments.ts';

/** One file of a log: a whole log, a segment of a rotated recording, or lines in memory. */
export interface LogPart {
  /** For messages: the file's path, or what the lines are. */
  name: string;
  /** Feeds the part's lines to `visitor`, stopping when it returns false. */
  read(visitor: LineVisitor): void;
}

/** A log file (`berth replay`'s LOG) or the segments of a rotated recording (DIR), in order. */
export function logParts(path: string): LogPart[] {
  let directory = false;
  try {
    directory = statSync(path).isDirectory();
  } catch {
    // A path that cannot be read fails in readLogLines, with the reason.
  }
  const paths = directory ? listSegments(path).map((s) => join(path, s.name)) : [path];
  return paths.map((p) => ({ name: p, read: (visitor) => readLogLines(p, visitor) }));
}

/** Lines held in memory (a run recorded to an array) as a log part. */
export function memoryPart(name: string, lines: readonly string[]): LogPart {
  return {
    name,
    read(visitor) {
      for (const line of lines) if (visitor.line(line) === false) return;
    },
  };
}

/** The decisions a scheduling cycle makes first: a reservation, a rejection or an error. */
export type CycleDecision = PodReserved | PodUnschedulable | CycleFailed;

/** A cycle's decision about the pod, where it is in the log. */
export interface PodDecision extends Envelope<CycleDecision> {
  /** Index of the part (segment) that holds it. */
  part: number;
}

/** What a log says about one pod (by `namespace/name`). */
export interface PodHistory {
  header: LogHeader;
  /** The cycle decisions about the pod, in log order. */
  decisions: PodDecision[];
  /** Whether the pod appears in the log at all (an upsert or a decision). */
  seen: boolean;
  /** The seq of the log's last event. */
  lastSeq: number;
  /** The seal of the log's parts (they agree: each continues the one before). */
  seal: SealStatus;
  /** False when the log's last part has no closing line (cut short, or still being written). */
  closed: boolean;
  /** The number of complete lines in the last part. */
  completeLines: number;
}

const cycleDecisions: ReadonlySet<string> = new Set([
  'PodReserved',
  'PodUnschedulable',
  'CycleFailed',
]);

function keyOfPod(pod: unknown): string | undefined {
  const meta = (pod as { metadata?: { name?: unknown; namespace?: unknown } } | undefined)
    ?.metadata;
  if (typeof meta?.name !== 'string') return undefined;
  return podKey(typeof meta.namespace === 'string' ? meta.namespace : undefined, meta.name);
}

/** Runs `read` with LogErrors named by the part's file (as `berth replay` names them). */
function inPart<T>(part: LogPart, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof LogError)
      throw new SegmentError(part.name, error.line, error.message.replace(/^line \d+: /, ''));
    throw error;
  }
}

/**
 * Reads every part with the log's integrity checks and collects the cycle decisions about
 * the pod called `key`; with `sealKey`, every part must be sealed with it, each continuing
 * the one before, and every line's MAC must verify. Throws SegmentError naming the file and
 * line for a corrupt log, LogFileError when a file cannot be read.
 */
export function podHistory(parts: readonly LogPart[], key: string, sealKey?: SealKey): PodHistory {
  const decisions: PodDecision[] = [];
  let header: LogHeader | undefined;
  let seen = false;
  let lastSeq = 0;
  let before: { name: string; reader: LogReader } | undefined;
  parts.forEach((part, index) => {
    const reader = new LogReader(sealKey);
    const take = (record: LogRecord | undefined): boolean => {
      if (record === undefined || !isEnvelope(record)) return true;
      lastSeq = record.seq;
      const e = record.event;
      if (cycleDecisions.has(e.type) && (e as CycleDecision).key === key) {
        decisions.push({ ...(record as Envelope<CycleDecision>), part: index });
        seen = true;
      } else if (!seen && e.type === 'PodUpserted' && keyOfPod(e.pod) === key) seen = true;
      return true;
    };
    inPart(part, () => {
      part.read({
        line: (text) => take(reader.line(text)),
        lastLine: (text) => void take(reader.lastLine(text)),
      });
      reader.end();
    });
    const joined =
      before === undefined
        ? undefined
        : sealJoin(before.reader.sealStatus, reader.header as LogHeader, before.name);
    if (joined !== undefined) throw new SegmentError(part.name, 1, joined);
    header ??= reader.header;
    before = { name: part.name, reader };
  });
  if (header === undefined || before === undefined)
    throw new SegmentError(parts[0]?.name ?? '.', 1, 'the log is empty');
  const last = before.reader;
  return {
    header,
    decisions,
    seen,
    lastSeq,
    seal: last.sealStatus,
    closed: last.closing !== undefined,
    completeLines: last.completeLines,
  };
}

/**
 * `replayTo` was asked for a point inside a step's decisions (a gang step decides several
 * pods in a row); `stepStart` is the seq the step starts at, when known.
 */
export class MidStepError extends SegmentError {
  constructor(
    file: string,
    line: number | undefined,
    message: string,
    readonly stepStart: number | undefined,
  ) {
    super(file, line, message);
  }
}

/** The core's state at a point of the log, and the header it was recorded with. */
export interface CoreAt {
  header: LogHeader;
  state: CoreSnapshot;
}

/**
 * Replays `part` from its start (its header, or a segment's snapshot line) through a fresh
 * core, checking every decision against the recorded one as `berth replay` does, and returns
 * the core's state just before the event `beforeSeq` (or after the part's last event when
 * undefined). Throws SegmentError naming the line where replay diverged, or when the state
 * there is in the middle of a cycle's decisions. With `sealKey`, the part's MACs are
 * verified as they are read (podHistory has verified them once already; this keeps a file
 * changed between the two reads from being explained).
 */
export function replayTo(part: LogPart, beforeSeq?: number, sealKey?: SealKey): CoreAt {
  const reader = new LogReader(sealKey);
  let session: ReplaySession | undefined;
  /** The last seq before which the core was between cycles (where a step starts). */
  let stepStart: number | undefined;
  let divergedAt: number | undefined;
  let reached = false;
  const open = (): ReplaySession => {
    session ??= new ReplaySession(reader.header as LogHeader, reader.snapshot);
    return session;
  };
  const take = (record: LogRecord | undefined): boolean => {
    if (record === undefined) return true;
    if (!isEnvelope(record)) {
      const segmented = (reader.header?.segment ?? 1) > 1;
      if (session === undefined && (record.kind === 'snapshot' || !segmented)) open();
      return true;
    }
    if (beforeSeq !== undefined && record.seq >= beforeSeq) {
      reached = true;
      return false;
    }
    if (open().settled) stepStart = record.seq;
    if (open().feed(record)) return true;
    divergedAt = reader.linesRead;
    return false;
  };
  inPart(part, () =>
    part.read({
      line: (text) => take(reader.line(text)),
      lastLine: (text) => void take(reader.lastLine(text)),
    }),
  );
  const current = session;
  if (current === undefined)
    throw new SegmentError(part.name, reader.linesRead, 'the log ends before its first event');
  const d = current.divergence;
  if (d !== undefined)
    throw new SegmentError(
      part.name,
      divergedAt,
      `the log does not replay: at seq ${d.seq} it recorded "${d.expected}", replay decided "${d.actual}"`,
    );
  if (beforeSeq !== undefined && !reached)
    throw new SegmentError(part.name, undefined, `the log ends before seq ${beforeSeq}`);
  if (beforeSeq !== undefined && !current.settled)
    throw new MidStepError(
      part.name,
      reader.linesRead,
      `seq ${beforeSeq} is not where a scheduling cycle starts`,
      stepStart,
    );
  return { header: reader.header as LogHeader, state: current.snapshot() };
}
