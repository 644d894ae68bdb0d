// Parses a JSONL log back into header, envelopes and digest, reporting bad lines by number.
import { type LogDigest, type LogHeader, logFormatVersion } from './log-format.ts';
import { type BerthEvent, decisionEventTypes, type Envelope, inputEventTypes } from './types.ts';

/** A parsed log. `digest` is absent when the log was not closed (e.g. a crash). */
export interface ParsedLog {
  header: LogHeader;
  envelopes: Envelope[];
  digest: LogDigest | undefined;
  /** Non-fatal findings, e.g. a truncated last line that was dropped. */
  warnings: string[];
}

/** Why a log could not be read; `line` is 1-based. */
export class LogError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'LogError';
  }
}

const eventTypes: ReadonlySet<string> = new Set([...inputEventTypes, ...decisionEventTypes]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkHeader(value: unknown): LogHeader {
  if (!isObject(value) || value.kind !== 'header') {
    throw new LogError(1, 'the first line is not a berth log header');
  }
  if (value.format !== logFormatVersion) {
    const older =
      typeof value.format === 'number' && value.format < logFormatVersion
        ? ` A format ${value.format} log names pods by namespace/name and records one decision per cycle; it cannot be replayed by this berth (record the run again, or replay it with the berth version that wrote it: ${String(value.berthVersion ?? 'unknown')}).`
        : '';
    throw new LogError(
      1,
      `unsupported log format ${String(value.format)}: this berth reads format ${logFormatVersion}.${older}`,
    );
  }
  if (typeof value.seed !== 'number' || !Number.isInteger(value.seed)) {
    throw new LogError(1, 'header has no integer seed');
  }
  if (!isObject(value.config)) throw new LogError(1, 'header has no config object');
  return value as unknown as LogHeader;
}

function checkEnvelope(value: unknown, line: number, previousSeq: number): Envelope {
  if (!isObject(value)) throw new LogError(line, 'not a JSON object');
  const { seq, time, event } = value;
  if (typeof seq !== 'number' || !Number.isInteger(seq))
    throw new LogError(line, 'missing integer "seq"');
  if (seq <= previousSeq) throw new LogError(line, `seq ${seq} does not follow ${previousSeq}`);
  if (typeof time !== 'number' || !Number.isFinite(time))
    throw new LogError(line, 'missing numeric "time"');
  if (!isObject(event) || typeof event.type !== 'string')
    throw new LogError(line, 'missing "event"');
  if (!eventTypes.has(event.type as BerthEvent['type'])) {
    throw new LogError(line, `unknown event type ${JSON.stringify(event.type)}`);
  }
  return value as unknown as Envelope;
}

/**
 * Parses a whole log. Throws LogError naming the line for a corrupt header or a corrupt
 * line in the middle; a corrupt *last* line without a trailing newline is taken as a
 * write cut short by a crash: it is dropped with a warning and the prefix is returned.
 */
export function parseLog(text: string): ParsedLog {
  const lines = text.split('\n');
  const endsWithNewline = lines.length > 0 && lines[lines.length - 1] === '';
  if (endsWithNewline) lines.pop();
  if (lines.length === 0) throw new LogError(1, 'the log is empty');
  const warnings: string[] = [];
  let header: LogHeader | undefined;
  let digest: LogDigest | undefined;
  const envelopes: Envelope[] = [];
  let previousSeq = 0;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i] as string;
    const isLast = i === lines.length - 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      if (isLast && !endsWithNewline && lineNo > 1) {
        warnings.push(`line ${lineNo}: truncated last line dropped (the recording was cut short)`);
        break;
      }
      throw new LogError(lineNo, 'not valid JSON');
    }
    if (lineNo === 1) {
      header = checkHeader(value);
      continue;
    }
    if (digest !== undefined) throw new LogError(lineNo, 'content after the closing digest');
    if (isObject(value) && value.kind === 'digest') {
      if (typeof value.digest !== 'string' || typeof value.decisions !== 'number') {
        throw new LogError(lineNo, 'malformed digest line');
      }
      digest = value as unknown as LogDigest;
      continue;
    }
    const env = checkEnvelope(value, lineNo, previousSeq);
    previousSeq = env.seq;
    envelopes.push(env);
  }
  if (digest === undefined) warnings.push('no closing digest: the recording did not end cleanly');
  return { header: header as LogHeader, envelopes, digest, warnings };
}
