// A rotated recording: segment files in one directory, cut by size, the oldest deleted beyond N.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LineSink } from '../events/recorder.ts';
import { CliError } from './errors.ts';
import { type LogFile, openLogFile } from './log-file.ts';

/** How a recording is cut: segment size in bytes, and how many segments to keep (0 = all). */
export interface SegmentPolicy {
  maxBytes: number;
  retain: number;
}

/** The segments of one recording, as the live runtime rotates them. */
export interface SegmentedLog {
  /** Sink of the current segment. */
  sink: LineSink;
  /** True once the current segment has reached the size limit. */
  due(): boolean;
  /** Opens the next segment, deletes segments beyond the retention, returns its name and sink. */
  next(): { name: string; sink: LineSink };
  flush(): void;
  close(): void;
}

/** `segment-000001.jsonl`, … : names that sort in the order they were written. */
export function segmentName(n: number): string {
  return `segment-${String(n).padStart(6, '0')}.jsonl`;
}

const segmentPattern = /^segment-\d{6,}\.jsonl$/;

/**
 * Starts a rotated recording in `dir` (created if missing; segments of an earlier
 * recording there are an error, so two recordings never mix). Bytes are counted as lines
 * are handed to the sink, so a segment ends after the first step that takes it past
 * `maxBytes`.
 */
export function openSegmentedLog(dir: string, policy: SegmentPolicy): SegmentedLog {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new CliError(`cannot create the recording directory ${dir}: ${(error as Error).message}`);
  }
  const existing = readdirSync(dir).filter((f) => segmentPattern.test(f));
  if (existing.length > 0)
    throw new CliError(
      `${dir} already holds ${existing.length} log segment(s) (${existing[0]}…); record into an empty directory`,
    );
  let number = 1;
  let bytes = 0;
  let lines = 0;
  let file: LogFile = openLogFile(join(dir, segmentName(number)));
  // The segment being left still gets its closing line (written right after `next()`):
  // it is closed when the next segment receives its first line.
  let leaving: LogFile | undefined;
  const kept: string[] = [segmentName(number)];
  const counted = (): LineSink => {
    const target = file;
    return (line) => {
      if (leaving !== undefined && leaving !== target) {
        leaving.close();
        leaving = undefined;
      }
      lines += 1;
      // A later segment's header and snapshot do not count towards its size, so a
      // snapshot bigger than the limit cannot make every step start a segment.
      if (number === 1 || lines > 2) bytes += Buffer.byteLength(line) + 1;
      target.sink(line);
    };
  };
  const log: SegmentedLog = {
    sink: counted(),
    due: () => bytes >= policy.maxBytes,
    next: () => {
      leaving = file;
      number += 1;
      bytes = 0;
      lines = 0;
      const name = segmentName(number);
      file = openLogFile(join(dir, name));
      kept.push(name);
      while (policy.retain > 0 && kept.length > policy.retain) {
        rmSync(join(dir, kept.shift() as string), { force: true });
      }
      log.sink = counted();
      return { name, sink: log.sink };
    },
    flush: () => {
      leaving?.flush();
      file.flush();
    },
    close: () => {
      leaving?.close();
      leaving = undefined;
      file.close();
    },
  };
  return log;
}

const sizeUnits: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
};

/** Parses a size such as `64Mi`, `500k` or `1048576` (Kubernetes quantity suffixes). */
export function parseSize(text: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(k|M|G|Ki|Mi|Gi)?$/.exec(text.trim());
  const bytes = m === null ? Number.NaN : Number(m[1]) * (sizeUnits[m[2] ?? ''] ?? Number.NaN);
  if (!Number.isFinite(bytes) || bytes < 4096) {
    throw new CliError(
      `${what} must be a size of at least 4Ki, such as 64Mi or 500k, got ${JSON.stringify(text)}`,
      2,
    );
  }
  return Math.floor(bytes);
}
