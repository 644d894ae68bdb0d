// Finds the segments of a rotated recording in a directory, in order, by their headers.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LogError, LogReader } from '../events/reader.ts';
import type { SealKey } from '../events/seal.ts';
import { LogFileError, readLogLines } from './log-lines.ts';
import {
  type FileReplayResult,
  replaySegments,
  SegmentError,
  type SegmentFile,
} from './replay-file.ts';

/** The segment number in the header of the log at `path` (1 for a log that was not rotated). */
function segmentNumber(path: string): number {
  const reader = new LogReader();
  let header: number | undefined;
  readLogLines(path, {
    line: (text) => {
      reader.line(text);
      header = reader.header?.segment ?? 1;
      return false;
    },
    lastLine: (text) => {
      reader.lastLine(text);
      header = reader.header?.segment ?? 1;
    },
  });
  if (header === undefined) throw new LogError(1, 'the log is empty');
  return header;
}

/**
 * The `*.jsonl` files of `dir` as segments, sorted by the number in their headers. Throws
 * SegmentError naming the file for one that is not a berth log, for two files with the same
 * number, and for a gap in the numbers (a segment missing in the middle); the first may be
 * any number (older segments deleted by retention).
 */
export function listSegments(dir: string): SegmentFile[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new LogFileError(e.code ?? e.message);
  }
  const segments = names.map((name) => {
    try {
      return { name, segment: segmentNumber(join(dir, name)) };
    } catch (error) {
      if (error instanceof LogError)
        throw new SegmentError(
          join(dir, name),
          error.line,
          error.message.replace(/^line \d+: /, ''),
        );
      throw error;
    }
  });
  if (segments.length === 0)
    throw new SegmentError(dir, undefined, 'the directory holds no *.jsonl log segments');
  segments.sort((a, b) => a.segment - b.segment || (a.name < b.name ? -1 : 1));
  for (let i = 1; i < segments.length; i++) {
    const [a, b] = [segments[i - 1] as SegmentFile, segments[i] as SegmentFile];
    if (a.segment === b.segment)
      throw new SegmentError(
        dir,
        undefined,
        `${a.name} and ${b.name} are both segment ${a.segment}`,
      );
    if (b.segment !== a.segment + 1)
      throw new SegmentError(
        dir,
        undefined,
        `segment ${a.segment + 1} is missing (between ${a.name} and ${b.name})`,
      );
  }
  return segments;
}

/**
 * Replays every segment in `dir`, in order, checking that consecutive segments join up
 * (with `key`, that each is sealed with it and its MACs verify).
 */
export function replayLogDirectory(dir: string, key?: SealKey): FileReplayResult {
  return replaySegments(listSegments(dir), (name) => join(dir, name), key);
}
