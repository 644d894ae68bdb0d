// Reads a JSONL log line by line, checking its integrity; a bad line is reported by number.
import { isRecord } from '../model/record.ts';
import { BindLedger } from './bind-ledger.ts';
import { LineDigest } from './digest.ts';
import { eventProblem } from './integrity.ts';
import { LogError } from './log-error.ts';
import {
  type LogDigest,
  type LogHeader,
  logFormatVersion,
  oldestReadableFormat,
  type SegmentEnd,
  type SnapshotLine,
} from './log-format.ts';
import type { SealKey } from './seal.ts';
import { SealReader, type SealStatus } from './seal-reader.ts';
import {
  type BerthEvent,
  type BindRequested,
  decisionEventTypes,
  type Envelope,
  inputEventTypes,
} from './types.ts';

export { LogError } from './log-error.ts';

/** One line of a log, parsed: the header, a segment's snapshot, an event, or a closing line. */
export type LogRecord = LogHeader | SnapshotLine | Envelope | LogDigest | SegmentEnd;

/** How a log (or a segment) ended: its closing line, where, and the digest of the lines before. */
export interface LogEnd {
  /** The digest or segment-end line; undefined when the log was not closed (a crash). */
  closing: LogDigest | SegmentEnd | undefined;
  /** Line number of the closing line (0 when there is none). */
  closingLine: number;
  /** SHA-256 over every line before the closing line, as `logDigest` records it. */
  linesDigest: string | undefined;
}

/** A parsed log. `digest` is absent when the log was not closed (e.g. a crash). */
export interface ParsedLog extends LogEnd {
  header: LogHeader;
  /** The snapshot line of a segment numbered 2 or more. */
  snapshot: SnapshotLine | undefined;
  envelopes: Envelope[];
  digest: LogDigest | undefined;
  /** Non-fatal findings, e.g. a truncated last line that was dropped. */
  warnings: string[];
  /** The log's seal, and whether it was verified. */
  seal: SealStatus;
}

const eventTypes: ReadonlySet<string> = new Set([...inputEventTypes, ...decisionEventTypes]);
const decisionTypes: ReadonlySet<string> = new Set(decisionEventTypes);

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isHex(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

function checkHeader(value: unknown): LogHeader {
  if (!isRecord(value) || value.kind !== 'header') {
    throw new LogError(1, 'the first line is not a berth log header');
  }
  const format = value.format;
  if (typeof format !== 'number' || format < oldestReadableFormat || format > logFormatVersion) {
    const older =
      typeof value.format === 'number' && value.format < oldestReadableFormat
        ? ` A format ${value.format} log names pods by namespace/name and records one decision per cycle; it cannot be replayed by this berth (record the run again, or replay it with the berth version that wrote it: ${String(value.berthVersion ?? 'unknown')}).`
        : '';
    throw new LogError(
      1,
      `unsupported log format ${String(value.format)}: this berth reads formats ${oldestReadableFormat}–${logFormatVersion}.${older}`,
    );
  }
  if (typeof value.seed !== 'number' || !Number.isInteger(value.seed)) {
    throw new LogError(1, 'header has no integer seed');
  }
  if (!isRecord(value.config)) throw new LogError(1, 'header has no config object');
  const segment = value.segment;
  if (segment !== undefined && (!isCount(segment) || segment < 1))
    throw new LogError(1, `header "segment" must be a positive integer, got ${String(segment)}`);
  return value as unknown as LogHeader;
}

function isOpenBind(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.uid === 'string' &&
    typeof value.key === 'string' &&
    typeof value.node === 'string' &&
    isCount(value.attempt)
  );
}

function checkSnapshot(value: unknown, line: number): SnapshotLine {
  if (!isRecord(value) || value.kind !== 'snapshot')
    throw new LogError(line, 'a segment after the first must have its snapshot line here');
  if (!isCount(value.seq)) throw new LogError(line, 'snapshot has no integer "seq"');
  if (typeof value.time !== 'number' || !Number.isFinite(value.time))
    throw new LogError(line, 'snapshot has no numeric "time"');
  if (!Array.isArray(value.openBinds) || !value.openBinds.every(isOpenBind))
    throw new LogError(line, 'snapshot "openBinds" must list {uid, key, attempt, node}');
  if (!isRecord(value.state)) throw new LogError(line, 'snapshot has no "state" object');
  return value as unknown as SnapshotLine;
}

/**
 * Reads a log one line at a time and checks, as it goes: the header; for a segment after
 * the first, its snapshot line; that seqs run 1, 2, 3… (or on from the snapshot's) with no
 * gap or reorder; that time never goes back; that each event is well formed for its type;
 * that each bind result answers one open BindRequested of the same attempt and node; and
 * that the closing line counts the decisions seen. Throws LogError naming the line.
 * Pure: the caller splits the text into lines (a file is never held whole).
 */
export class LogReader {
  /** The header, once line 1 has been read. */
  header: LogHeader | undefined;
  /** A segment's snapshot line, once read. */
  snapshot: SnapshotLine | undefined;
  /** The closing line (digest or segment-end), once read. */
  closing: LogDigest | SegmentEnd | undefined;
  closingLine = 0;
  /** SHA-256 over the lines before the closing line (set when the closing line is read). */
  linesDigest: string | undefined;
  /** Non-fatal findings, e.g. a truncated last line that was dropped. */
  readonly warnings: string[] = [];
  private lineNo = 0;
  private dropped = 0;
  private previousSeq = 0;
  private previousTime = Number.NEGATIVE_INFINITY;
  private decisions = 0;
  private binds = new BindLedger();
  private readonly lines = new LineDigest();
  private readonly seal: SealReader;

  /** With `key`, the log must be sealed with it and every line's MAC must verify. */
  constructor(key?: SealKey) {
    this.seal = new SealReader(key);
  }

  /** The log's seal, as far as it has been read. */
  get sealStatus(): SealStatus {
    return this.seal.status;
  }

  /** Number of lines read so far. */
  get linesRead(): number {
    return this.lineNo;
  }

  /** Number of complete lines read (a cut-short last line that was dropped is not one). */
  get completeLines(): number {
    return this.lineNo - this.dropped;
  }

  /** The seq of the last event read (the snapshot's seq before any). */
  get lastSeq(): number {
    return this.previousSeq;
  }

  /** Reads one complete line (its newline stripped). Returns what it holds. */
  line(text: string): LogRecord {
    const lineNo = ++this.lineNo;
    if (lineNo === 1) return this.headerLine(text);
    const body = this.seal.body(text, lineNo);
    if (body === undefined)
      throw new LogError(lineNo, 'the line has no seal ("mac"), but the log is sealed');
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      throw new LogError(lineNo, 'not valid JSON');
    }
    return this.record(value, text, lineNo);
  }

  /** Line 1: the header, with its MAC split off and checked when the log is sealed. */
  private headerLine(text: string): LogHeader {
    const split = this.seal.splitHeader(text);
    let value: unknown;
    try {
      value = JSON.parse(split?.body ?? text);
    } catch {
      throw new LogError(1, 'not valid JSON');
    }
    this.header = checkHeader(value);
    this.seal.header(this.header.seal, split);
    this.lines.add(text);
    return this.header;
  }

  /**
   * Reads the last piece of the input when it has no newline. A piece that is not valid
   * JSON is taken as a write cut short by a crash: it is dropped with a warning and
   * undefined is returned (on line 1 it is an error: there is no prefix to replay).
   */
  lastLine(text: string): LogRecord | undefined {
    if (this.lineNo === 0) return this.line(text);
    // A sealed line cut short has lost its MAC: that is the same crash as cut-short JSON.
    const body = this.seal.body(text, this.lineNo + 1);
    let value: unknown;
    try {
      if (body === undefined) throw new SyntaxError('no MAC');
      value = JSON.parse(body);
    } catch {
      const lineNo = ++this.lineNo;
      this.dropped = 1;
      this.warnings.push(
        `line ${lineNo}: truncated last line dropped (the recording was cut short)`,
      );
      return undefined;
    }
    return this.record(value, text, ++this.lineNo);
  }

  /** Ends the input: an empty log is an error; a log without closing line gets a warning. */
  end(): void {
    if (this.lineNo === 0) throw new LogError(1, 'the log is empty');
    if (this.closing === undefined)
      this.warnings.push('no closing digest: the recording did not end cleanly');
  }

  private record(value: unknown, text: string, lineNo: number): LogRecord {
    if (this.closing !== undefined) {
      const what = this.closing.kind === 'digest' ? 'the closing digest' : 'the segment end';
      throw new LogError(lineNo, `content after ${what}`);
    }
    if (lineNo === 2 && (this.header?.segment ?? 1) > 1) {
      const snapshot = checkSnapshot(value, lineNo);
      this.snapshot = snapshot;
      this.previousSeq = snapshot.seq;
      this.previousTime = snapshot.time;
      this.binds = new BindLedger(snapshot.openBinds);
      this.lines.add(text);
      return snapshot;
    }
    if (isRecord(value) && typeof value.kind === 'string') return this.closingRecord(value, lineNo);
    const env = this.envelope(value, lineNo);
    this.lines.add(text);
    return env;
  }

  private closingRecord(value: Record<string, unknown>, lineNo: number): LogDigest | SegmentEnd {
    const { kind } = value;
    if (kind !== 'digest' && kind !== 'segment-end')
      throw new LogError(lineNo, `unexpected ${JSON.stringify(kind)} line`);
    if (!isHex(value.digest) || !isCount(value.decisions))
      throw new LogError(lineNo, `malformed ${kind} line`);
    if (value.logDigest !== undefined && !isHex(value.logDigest))
      throw new LogError(lineNo, `malformed ${kind} line: "logDigest" is not a SHA-256`);
    if (kind === 'segment-end') {
      if (typeof value.next !== 'string' || value.next === '' || /[/\\]/.test(value.next))
        throw new LogError(lineNo, 'segment-end "next" must be a file name');
      if (value.lastSeq !== this.previousSeq)
        throw new LogError(
          lineNo,
          `segment-end says the last seq is ${String(value.lastSeq)}, the segment's is ${this.previousSeq}`,
        );
    }
    if (value.decisions !== this.decisions)
      throw new LogError(
        lineNo,
        `the ${kind} line counts ${value.decisions} decisions; the log holds ${this.decisions}`,
      );
    this.closing = value as unknown as LogDigest | SegmentEnd;
    this.closingLine = lineNo;
    this.linesDigest = this.lines.hex();
    return this.closing;
  }

  private envelope(value: unknown, line: number): Envelope {
    if (!isRecord(value)) throw new LogError(line, 'not a JSON object');
    const { seq, time, event } = value;
    if (typeof seq !== 'number' || !Number.isInteger(seq))
      throw new LogError(line, 'missing integer "seq"');
    const previous = this.previousSeq;
    if (seq !== previous + 1) {
      const gap = seq > previous ? `: expected ${previous + 1} (an event is missing or moved)` : '';
      throw new LogError(line, `seq ${seq} does not follow ${previous}${gap}`);
    }
    if (typeof time !== 'number' || !Number.isFinite(time))
      throw new LogError(line, 'missing numeric "time"');
    if (time < this.previousTime)
      throw new LogError(
        line,
        `time ${time} goes back (seq ${previous} was at ${this.previousTime})`,
      );
    if (!isRecord(event) || typeof event.type !== 'string')
      throw new LogError(line, 'missing "event"');
    const type = event.type;
    if (!eventTypes.has(type))
      throw new LogError(line, `unknown event type ${JSON.stringify(type)}`);
    const problem = eventProblem(event as unknown as BerthEvent);
    if (problem !== undefined) throw new LogError(line, `${type} ${problem}`);
    if (decisionTypes.has(type)) {
      this.decisions++;
      if (type === 'BindRequested') this.binds.request(event as unknown as BindRequested);
    } else if (type === 'BindSucceeded' || type === 'BindFailed') {
      const unanswered = this.binds.answer(event as never);
      if (unanswered !== undefined) throw new LogError(line, unanswered);
    } else if (type === 'ClaimsReserved') {
      // PreBind's claims written: the bind stays open until its result.
      const unanswered = this.binds.check(event as never);
      if (unanswered !== undefined) throw new LogError(line, unanswered);
    }
    this.previousSeq = seq;
    this.previousTime = time;
    return value as unknown as Envelope;
  }
}

/** True for a record that is an event line. */
export function isEnvelope(record: LogRecord): record is Envelope {
  return (record as { kind?: unknown }).kind === undefined;
}

/**
 * Parses a whole log held as a string (small logs and tests; files are read as streams).
 * Throws LogError naming the line for a corrupt header, a corrupt line in the middle or a
 * failed integrity check; a corrupt *last* line without a trailing newline is taken as a
 * write cut short by a crash: it is dropped with a warning and the prefix is returned.
 * With `key`, the log must be sealed with it (see LogReader).
 */
export function parseLog(text: string, key?: SealKey): ParsedLog {
  const reader = new LogReader(key);
  const envelopes: Envelope[] = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    const record = reader.line(text.slice(start, nl));
    if (isEnvelope(record)) envelopes.push(record);
    start = nl + 1;
  }
  if (start < text.length) {
    const record = reader.lastLine(text.slice(start));
    if (record !== undefined && isEnvelope(record)) envelopes.push(record);
  }
  reader.end();
  const closing = reader.closing;
  return {
    header: reader.header as LogHeader,
    snapshot: reader.snapshot,
    envelopes,
    digest: closing?.kind === 'digest' ? closing : undefined,
    closing,
    closingLine: reader.closingLine,
    linesDigest: reader.linesDigest,
    warnings: reader.warnings,
    seal: reader.sealStatus,
  };
}
