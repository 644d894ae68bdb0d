// A sealed rotated recording: each segment's chain goes on from the last, alone or as a whole.
import { mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sealKey } from '../../src/events/seal.ts';
import { replayLogFile, SegmentError } from '../../src/runtime/replay-file.ts';
import { replayLogDirectory } from '../../src/runtime/segments.ts';
import { rotatedRun } from './rotated-run.ts';

const work = mkdtempSync(join(tmpdir(), 'berth-sealed-segments-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const key = sealKey(Buffer.from('segment-key-'.repeat(3)));
const { wholeLog, rotate } = rotatedRun(work);

function refusal(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('the segments were accepted');
}

describe('a sealed rotated recording', () => {
  const { dir, names } = rotate(40, key);

  it('chains each segment to the one before: its header names the last MAC of that one', () => {
    expect(names.length).toBeGreaterThanOrEqual(4);
    const lastMacOf = (name: string) =>
      (readFileSync(join(dir, name), 'utf8').trimEnd().split('\n').at(-1) as string).slice(-66, -2);
    const headerOf = (name: string) =>
      JSON.parse(readFileSync(join(dir, name), 'utf8').split('\n')[0] as string);
    expect(headerOf(names[0] as string).seal.prev).toBeUndefined();
    for (let i = 1; i < names.length; i++)
      expect(headerOf(names[i] as string).seal).toEqual({
        alg: 'HMAC-SHA-256',
        keyId: key.id,
        prev: lastMacOf(names[i - 1] as string),
      });
  });

  it('replays as a whole with the key, every segment verified', () => {
    const result = replayLogDirectory(dir, key);
    expect(result.matches).toBe(true);
    expect(result.summary.decisionDigest).toBe(wholeLog.digest?.digest);
    expect(result.seal.verified).toBe(true);
  });

  it('replays segment by segment with the key, each on its own', () => {
    for (const name of names) {
      const result = replayLogFile(join(dir, name), key);
      expect(result.matches, name).toBe(true);
      expect(result.seal.verified, name).toBe(true);
    }
  });

  it('replays from the oldest segment kept after retention', () => {
    const kept = rotate(40, key);
    unlinkSync(join(kept.dir, kept.names[0] as string));
    expect(replayLogDirectory(kept.dir, key).matches).toBe(true);
  });
});

describe('sealed segments that were tampered with are refused with the key', () => {
  it('a segment taken out and the later ones renumbered to close the gap', () => {
    const { dir, names } = rotate(40, key);
    // Without the key the header's segment number cannot be changed: the MAC would break.
    // So the forger renames files instead; the numbers in the headers still show the gap,
    // and were they equal the chain would: segment 4's header continues segment 3's MAC.
    unlinkSync(join(dir, names[2] as string));
    renameSync(join(dir, names[3] as string), join(dir, names[2] as string));
    const error = refusal(() => replayLogDirectory(dir, key));
    expect(error).toBeInstanceOf(SegmentError);
    expect(error.message).toMatch(/segment 3 is missing/);
  });

  it('a segment replaced by another sealed segment of the same number: the chain breaks', () => {
    const a = rotate(40, key);
    const b = rotate(30, key);
    // Segment 3 of another recording with the same key, under the name the segment-end expects.
    writeFileSync(
      join(a.dir, a.names[2] as string),
      readFileSync(join(b.dir, b.names[2] as string)),
    );
    const error = refusal(() => replayLogDirectory(a.dir, key));
    expect(error.message).toContain(join(a.dir, a.names[2] as string));
    expect(error.message).toMatch(/line 1: its seal does not continue seg-002\.jsonl's/);
  });

  it('an edited line in a middle segment, named by file and line', () => {
    const { dir, names } = rotate(40, key);
    const path = join(dir, names[1] as string);
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    lines[5] = (lines[5] as string).replace('"time":', '"time":1e9,"was":');
    writeFileSync(path, `${lines.join('\n')}\n`);
    const error = refusal(() => replayLogDirectory(dir, key));
    expect(error.message).toBe(
      `${path}: line 6: the seal does not verify (key id ${key.id}): this line was changed, or a line before it was removed, added or moved`,
    );
  });

  it('a sealed segment followed by an unsealed one', () => {
    const sealed = rotate(40, key);
    const plain = rotate(40);
    writeFileSync(
      join(sealed.dir, sealed.names[1] as string),
      readFileSync(join(plain.dir, plain.names[1] as string)),
    );
    expect(refusal(() => replayLogDirectory(sealed.dir)).message).toMatch(
      /line 1: this segment is not sealed, but seg-001\.jsonl is$/,
    );
  });
});
