// The chunked line splitter gives the same lines however the bytes are cut, and refuses bad ones.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LogError } from '../events/reader.ts';
import { LineSplitter, readLogLines } from './log-lines.ts';

interface Seen {
  lines: string[];
  last: string | undefined;
}

function split(chunks: Buffer[], maxLine?: number, stopAt?: number): Seen {
  const seen: Seen = { lines: [], last: undefined };
  const splitter = new LineSplitter(
    {
      line: (text) => {
        seen.lines.push(text);
        return seen.lines.length !== stopAt;
      },
      lastLine: (text) => {
        seen.last = text;
      },
    },
    maxLine,
  );
  for (const chunk of chunks) {
    splitter.push(chunk);
    if (splitter.done) return seen;
  }
  splitter.end();
  return seen;
}

/** `bytes` cut at the given offsets. */
function cut(bytes: Buffer, offsets: number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    if (p > from) chunks.push(bytes.subarray(from, p));
    from = Math.max(from, p);
  }
  return chunks;
}

const work = mkdtempSync(join(tmpdir(), 'berth-lines-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('LineSplitter', () => {
  it('yields the lines of String.split whatever the chunk boundaries, multi-byte text included', () => {
    const line = fc.string({ unit: fc.constantFrom('a', '{', '"', 'é', '€', '𝄞', ' ') });
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        fc.boolean(),
        fc.array(fc.nat(400), { maxLength: 20 }),
        (lines, terminated, offsets) => {
          const text = lines.join('\n') + (terminated && lines.length > 0 ? '\n' : '');
          const seen = split(cut(Buffer.from(text, 'utf8'), offsets));
          const expected = text.split('\n');
          const last = expected.pop() as string;
          expect(seen.lines).toEqual(expected);
          expect(seen.last).toBe(last === '' ? undefined : last);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a line that is not UTF-8, by number, even when its bytes span two chunks', () => {
    const bytes = Buffer.concat([
      Buffer.from('{}\n{}\n"a'),
      Buffer.from([0xc3]),
      Buffer.from('"\n'),
    ]);
    for (const offsets of [[], [7], [8], [9]]) {
      expect(() => split(cut(bytes, offsets))).toThrowError(new LogError(3, 'not UTF-8 text'));
    }
  });

  it('refuses a line longer than the limit instead of buffering it', () => {
    const bytes = Buffer.from(`{}\n${'x'.repeat(50)}\n`);
    expect(() => split(cut(bytes, [10, 20, 30]), 40)).toThrowError(
      new LogError(2, 'line longer than 40 bytes'),
    );
    expect(() => split([bytes], 40)).toThrowError(new LogError(2, 'line longer than 40 bytes'));
  });

  it('stops when the visitor says so', () => {
    const seen = split(cut(Buffer.from('a\nb\nc\nd'), [3]), undefined, 2);
    expect(seen).toEqual({ lines: ['a', 'b'], last: undefined });
  });
});

describe('readLogLines', () => {
  it('reads a file larger than one chunk line by line', () => {
    const lines = Array.from(
      { length: 30_000 },
      (_, i) => `{"i":${i},"pad":"${'€'.repeat(i % 50)}"}`,
    );
    const path = join(work, 'big.jsonl');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const seen: string[] = [];
    readLogLines(path, {
      line: (text) => void seen.push(text),
      lastLine: () => {
        throw new Error('no unterminated piece expected');
      },
    });
    expect(seen).toEqual(lines);
  });
});
