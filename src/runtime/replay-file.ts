// Replays a log file, or the segments of a rotated recording, as a stream of checked lines.
import { isDeepStrictEqual } from 'node:util';
import type { CoreSnapshot } from '../core/snapshot.ts';
import type { LogHeader, SegmentEnd, SnapshotLine } from '../events/log-format.ts';
import { isEnvelope, LogError, LogReader, type LogRecord } from '../events/reader.ts';
import type { SealKey } from '../events/seal.ts';
import type { SealStatus } from '../events/seal-reader.ts';
import { readLogLines } from './log-lines.ts';
import { type ReplayResult, ReplaySession, snapshotDifference } from './replay.ts';

/** A replay of one file (or of a run of segments), with where it stopped. */
export interface FileReplayResult extends ReplayResult {
  /** The file the result is about: the log, or the last segment read. */
  file: string;
  /** Line number (in `file`) of the recorded decision or input where replay diverged. */
  divergenceLine: number | undefined;
  /** The seq of the last event read (the number of events, for a log that is not a segment). */
  lastSeq: number;
  /** Line number of the closing line in `file` (0 when it has none). */
  closingLine: number;
  /** Non-fatal findings (a truncated last line, no closing digest), each `FILE: what`. */
  warnings: string[];
  /** The seal of the file (of every segment, for a run of segments: they must agree). */
  seal: SealStatus;
  /** The number of complete lines in `file` (the last one read, when it has no closing line). */
  completeLines: number;
}

/** Why a run of segments does not replay: names the file, and the line when there is one. */
export class SegmentError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    reason: string,
  ) {
    super(line === undefined ? `${file}: ${reason}` : `${file}: line ${line}: ${reason}`);
    this.name = 'SegmentError';
  }
}

/** How a segment read into an ongoing session must join the previous one. */
type JoinCheck = (header: LogHeader, snapshot: SnapshotLine | undefined) => void;

/** One file read into a session. */
interface FileRun {
  session: ReplaySession;
  reader: LogReader;
  divergenceLine: number | undefined;
}

/**
 * Reads the file at `path` line by line through a LogReader into `session`, or into a
 * session built from the file's own header (and snapshot, for a segment after the first).
 * With `join`, the file continues `session`: `join` checks its header and snapshot before
 * any of its events are fed, and the session starts a new segment digest.
 */
function runFile(
  path: string,
  key: SealKey | undefined,
  session?: ReplaySession,
  join?: JoinCheck,
): FileRun {
  const reader = new LogReader(key);
  let current: ReplaySession | undefined;
  let divergenceLine: number | undefined;
  const open = (): ReplaySession => {
    const header = reader.header as LogHeader;
    join?.(header, reader.snapshot);
    current = session ?? new ReplaySession(header, reader.snapshot);
    if (join !== undefined) current.startSegment();
    return current;
  };
  const take = (record: LogRecord | undefined): boolean => {
    if (record === undefined) return true;
    if (isEnvelope(record)) {
      if ((current ?? open()).feed(record)) return true;
      divergenceLine = reader.linesRead;
      return false;
    }
    // A session opens on the header, or on the snapshot line of a segment after the first.
    const segmented = (reader.header?.segment ?? 1) > 1;
    if (current === undefined && (record.kind === 'snapshot' || !segmented)) open();
    return true;
  };
  readLogLines(path, {
    line: (text) => take(reader.line(text)),
    lastLine: (text) => void take(reader.lastLine(text)),
  });
  if (divergenceLine === undefined) reader.end();
  if (current === undefined)
    throw new LogError(reader.linesRead, 'the segment ends before its snapshot line');
  return { session: current, reader, divergenceLine };
}

function resultOf(path: string, run: FileRun, earlier: string[]): FileReplayResult {
  const { session, reader } = run;
  const result = session.finish(reader);
  return {
    ...result,
    file: path,
    divergenceLine:
      result.divergence === undefined ? undefined : (run.divergenceLine ?? reader.closingLine),
    lastSeq: reader.lastSeq,
    closingLine: reader.closingLine,
    warnings: [...earlier, ...reader.warnings.map((w) => `${path}: ${w}`)],
    seal: reader.sealStatus,
    completeLines: reader.completeLines,
  };
}

/**
 * Replays the log at `path` in memory that does not grow with its length: the file is read
 * in chunks, each line checked by a LogReader and fed to a ReplaySession, and nothing is
 * kept once fed. A segment of a rotated recording replays on its own, from its snapshot.
 * Throws LogError naming the line for a corrupt or inconsistent log and LogFileError when
 * the file cannot be read; stops at the first divergence. With `key`, the log must be sealed
 * with it and every line's MAC must verify (a LogError names the first that does not).
 */
export function replayLogFile(path: string, key?: SealKey): FileReplayResult {
  return resultOf(path, runFile(path, key), []);
}

/** A segment file: its name (in the directory) and the number its header gives it. */
export interface SegmentFile {
  name: string;
  segment: number;
}

/** The checks that join segment `next` to the one before it, which ended with `end`. */
function joinCheck(
  first: { name: string; header: LogHeader },
  before: { name: string; path: string; end: SegmentEnd; seal: SealStatus },
  next: { name: string; path: string },
  reached: () => CoreSnapshot,
): JoinCheck {
  return (header, snapshot) => {
    if (header.seed !== first.header.seed || !isDeepStrictEqual(header.config, first.header.config))
      throw new SegmentError(next.path, 1, `the seed or config differs from ${first.name}'s`);
    const seal = sealJoin(before.seal, header, before.name);
    if (seal !== undefined) throw new SegmentError(next.path, 1, seal);
    if (before.end.next !== next.name)
      throw new SegmentError(
        before.path,
        undefined,
        `its segment-end names ${before.end.next} as the next segment, not ${next.name}`,
      );
    if (snapshot === undefined)
      throw new SegmentError(next.path, 2, 'a segment after the first has no snapshot line');
    if (snapshot.seq !== before.end.lastSeq)
      throw new SegmentError(
        next.path,
        2,
        `the snapshot is at seq ${snapshot.seq}, but ${before.name} ended at seq ${before.end.lastSeq}`,
      );
    const difference = snapshotDifference(reached(), snapshot.state as CoreSnapshot);
    if (difference !== undefined)
      throw new SegmentError(
        next.path,
        2,
        `the snapshot is not the state ${before.name} ended in: ${difference}`,
      );
  };
}

/**
 * Why a segment's header does not continue the previous segment's seal, or undefined: both
 * sealed with the same key, this one's chain starting from that one's last MAC (so a
 * segment taken out and the numbers closed up shows), or neither sealed.
 */
export function sealJoin(
  before: SealStatus,
  header: LogHeader,
  beforeName: string,
): string | undefined {
  const seal = header.seal;
  const was = before.info;
  if (was === undefined && seal === undefined) return undefined;
  if (was === undefined || seal === undefined)
    return `${seal === undefined ? 'this segment is not sealed' : 'this segment is sealed'}, but ${beforeName} is${was === undefined ? ' not' : ''}`;
  if (seal.keyId !== was.keyId)
    return `sealed with key id ${seal.keyId}, but ${beforeName} with key id ${was.keyId}`;
  if (seal.prev !== before.lastMac)
    return `its seal does not continue ${beforeName}'s: a segment between them is missing or was replaced`;
  return undefined;
}

function inFile(path: string, run: () => FileRun): FileRun {
  try {
    return run();
  } catch (error) {
    if (error instanceof LogError)
      throw new SegmentError(path, error.line, error.message.replace(/^line \d+: /, ''));
    throw error;
  }
}

/**
 * Replays consecutive segments (in order of their numbers) through one core, checking that
 * each joins the one before: same seed and config; the previous segment ended with a
 * segment-end naming this file and the seq this segment's snapshot starts from; and that
 * snapshot is the state replay reached. The first segment replays from its own snapshot
 * when it is not number 1 (older segments deleted). `pathOf` turns a name into a path.
 * Throws SegmentError naming the file (and line); stops at the first divergence.
 */
export function replaySegments(
  segments: readonly SegmentFile[],
  pathOf: (name: string) => string,
  key?: SealKey,
): FileReplayResult {
  const [head, ...rest] = segments;
  if (head === undefined) throw new SegmentError('.', undefined, 'no segments to replay');
  const headPath = pathOf(head.name);
  let run = inFile(headPath, () => runFile(headPath, key, undefined, () => {}));
  const first = { name: head.name, header: run.reader.header as LogHeader };
  let name = head.name;
  let path = headPath;
  const warnings: string[] = [];
  for (const next of rest) {
    if (run.divergenceLine !== undefined) break;
    const closing = run.reader.closing;
    if (closing?.kind !== 'segment-end')
      throw new SegmentError(
        path,
        undefined,
        closing === undefined
          ? `the segment was not closed, but ${next.name} follows it`
          : `the recording ended here with its digest, but ${next.name} follows it`,
      );
    const ended = run.session.finish(run.reader);
    if (!ended.matches) return resultOf(path, run, warnings);
    warnings.push(...run.reader.warnings.map((w) => `${path}: ${w}`));
    const nextPath = pathOf(next.name);
    const before = { name, path, end: closing, seal: run.reader.sealStatus };
    const session = run.session;
    const join = joinCheck(first, before, { name: next.name, path: nextPath }, () =>
      session.snapshot(),
    );
    run = inFile(nextPath, () => runFile(nextPath, key, session, join));
    name = next.name;
    path = nextPath;
  }
  const closing = run.reader.closing;
  if (run.divergenceLine === undefined && closing?.kind === 'segment-end')
    throw new SegmentError(
      path,
      run.reader.closingLine,
      `the next segment, ${closing.next}, is missing`,
    );
  return resultOf(path, run, warnings);
}
