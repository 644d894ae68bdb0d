// A line sink that appends to a file with buffered synchronous writes (crash leaves a prefix).
import { closeSync, openSync, writeSync } from 'node:fs';
import type { LineSink } from '../events/recorder.ts';
import { CliError } from './errors.ts';

/** A file-backed log sink; call `close()` once the recorder is closed. */
export interface LogFile {
  sink: LineSink;
  /** Writes buffered lines now. */
  flush(): void;
  close(): void;
}

/** Opens (truncates) `path` for a recording. Lines are flushed every `batch` lines. */
export function openLogFile(path: string, batch = 512): LogFile {
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (error) {
    throw new CliError(`cannot write log ${path}: ${(error as Error).message}`);
  }
  let buffer: string[] = [];
  const flush = () => {
    if (buffer.length === 0) return;
    writeSync(fd, `${buffer.join('\n')}\n`);
    buffer = [];
  };
  return {
    sink: (line) => {
      buffer.push(line);
      if (buffer.length >= batch) flush();
    },
    flush,
    close: () => {
      flush();
      closeSync(fd);
    },
  };
}
