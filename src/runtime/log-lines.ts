// Splits a log file into lines in fixed-size chunks, so a log of any length is never held whole.

import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { LogError } from '../events/reader.ts';

/** Where the lines of a log go: complete lines, then at most one unterminated last piece. */
export interface LineVisitor {
  /** A line that ended with a newline (the newline stripped). Return false to stop reading. */
  line(text: string): boolean | undefined;
  /** The bytes after the last newline, when there are any. */
  lastLine(text: string): void;
}

/** Bytes read from the file at a time. */
const chunkBytes = 1 << 20;

/** The longest line accepted; a longer one is refused by number rather than buffered. */
export const maxLineBytes = 64 << 20;

/**
 * Feeds Buffers of a log through `visitor` line by line. Lines are decoded as UTF-8 and
 * refused (by line number) when they are not UTF-8 or are longer than `maxLineBytes`.
 */
export class LineSplitter {
  private carry: Buffer[] = [];
  private carryBytes = 0;
  private lineNo = 0;
  private stopped = false;

  constructor(
    private readonly visitor: LineVisitor,
    private readonly maxLine = maxLineBytes,
  ) {}

  /** True once the visitor asked to stop. */
  get done(): boolean {
    return this.stopped;
  }

  /** Splits one chunk (the chunk may be reused by the caller afterwards). */
  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(10);
    if (nl !== -1 && this.carryBytes > 0) {
      this.carry.push(chunk.subarray(0, nl));
      const joined = Buffer.concat(this.carry, this.carryBytes + nl);
      this.carry = [];
      this.carryBytes = 0;
      if (!this.emit(joined, 0, joined.length)) return;
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (nl !== -1) {
      const lastNl = chunk.lastIndexOf(10);
      const whole = isUtf8(chunk.subarray(start, lastNl));
      for (; nl !== -1; nl = chunk.indexOf(10, start)) {
        if (!(whole ? this.emitTrusted(chunk, start, nl) : this.emit(chunk, start, nl))) return;
        start = nl + 1;
      }
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
  }

  /** Ends the input: hands over the unterminated last piece, if any. */
  end(): void {
    if (this.stopped || this.carryBytes === 0) return;
    const rest = Buffer.concat(this.carry, this.carryBytes);
    this.carry = [];
    this.carryBytes = 0;
    this.lineNo++;
    if (!isUtf8(rest)) throw new LogError(this.lineNo, 'not UTF-8 text');
    this.visitor.lastLine(rest.toString('utf8'));
  }

  private keep(piece: Buffer): void {
    this.carryBytes += piece.length;
    if (this.carryBytes > this.maxLine)
      throw new LogError(this.lineNo + 1, `line longer than ${this.maxLine} bytes`);
    this.carry.push(Buffer.from(piece));
  }

  private emit(buf: Buffer, start: number, end: number): boolean {
    if (!isUtf8(buf.subarray(start, end))) throw new LogError(this.lineNo + 1, 'not UTF-8 text');
    return this.emitTrusted(buf, start, end);
  }

  private emitTrusted(buf: Buffer, start: number, end: number): boolean {
    this.lineNo++;
    if (end - start > this.maxLine)
      throw new LogError(this.lineNo, `line longer than ${this.maxLine} bytes`);
    if (this.visitor.line(buf.toString('utf8', start, end)) === false) this.stopped = true;
    return !this.stopped;
  }
}

/** An error reading the file itself (not its content). */
export class LogFileError extends Error {
  override name = 'LogFileError';
}

/**
 * Reads the file at `path` through `visitor`, one chunk at a time, synchronously; stops
 * early when the visitor returns false. Throws LogError for a bad line, LogFileError when
 * the file cannot be read.
 */
export function readLogLines(path: string, visitor: LineVisitor): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new LogFileError(describe(error));
  }
  try {
    const splitter = new LineSplitter(visitor);
    const chunk = Buffer.allocUnsafe(chunkBytes);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunkBytes, null);
      } catch (error) {
        throw new LogFileError(describe(error));
      }
      if (n === 0) break;
      splitter.push(n === chunkBytes ? chunk : chunk.subarray(0, n));
      if (splitter.done) return;
    }
    splitter.end();
  } finally {
    closeSync(fd);
  }
}

/** `ENOENT: no such file or directory, open 'x'` → `ENOENT (no such file or directory)`. */
function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === undefined) return e.message;
  const description = /^[A-Z_]+: ([^,]+)/.exec(e.message)?.[1];
  return description === undefined ? e.code : `${e.code} (${description})`;
}
