// A rotated recording replays segment by segment and as a whole, and its joins are checked.
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replayLogFile, SegmentError } from '../../src/runtime/replay-file.ts';
import { replayLogDirectory } from '../../src/runtime/segments.ts';
import { rotatedRun, segmentName } from './rotated-run.ts';

const work = mkdtempSync(join(tmpdir(), 'berth-segments-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const { wholeLog, wholeReplay, rotate } = rotatedRun(work);

describe('a rotated recording', () => {
  const { dir, names } = rotate(40);

  it('has several segments, each opening with a header and a snapshot line', () => {
    expect(names.length).toBeGreaterThanOrEqual(4);
    const second = readFileSync(join(dir, names[1] as string), 'utf8').split('\n');
    expect(JSON.parse(second[0] as string)).toMatchObject({ kind: 'header', segment: 2 });
    expect(JSON.parse(second[1] as string)).toMatchObject({ kind: 'snapshot' });
  });

  it('replays as a whole to the decisions of the unrotated run', () => {
    const result = replayLogDirectory(dir);
    expect(result.matches).toBe(true);
    expect(result.summary.decisionDigest).toBe(wholeLog.digest?.digest);
    expect(result.summary.placements).toEqual(wholeReplay.summary.placements);
    expect(result.summary.pending).toEqual(wholeReplay.summary.pending);
    expect(result.file).toBe(join(dir, names.at(-1) as string));
  });

  it('replays segment by segment, each on its own from its snapshot', () => {
    for (const name of names) {
      const result = replayLogFile(join(dir, name));
      expect(result.matches, name).toBe(true);
      expect(result.lines?.read, name).toBe(result.lines?.recorded);
    }
  });

  it('replays from the oldest segment kept when earlier ones were deleted (retention)', () => {
    const kept = rotate(40);
    unlinkSync(join(kept.dir, kept.names[0] as string));
    unlinkSync(join(kept.dir, kept.names[1] as string));
    const result = replayLogDirectory(kept.dir);
    expect(result.matches).toBe(true);
    expect(result.summary.pending).toEqual(wholeReplay.summary.pending);
  });
});

/** A rotated copy with `edit` applied to the lines of segment `n` (1-based). */
function tampered(n: number, edit: (lines: string[]) => string[]): string {
  const { dir, names } = rotate(40);
  const path = join(dir, names[n - 1] as string);
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  writeFileSync(path, `${edit(lines).join('\n')}\n`);
  return dir;
}

function refusal(dir: string): SegmentError {
  try {
    replayLogDirectory(dir);
  } catch (error) {
    if (error instanceof SegmentError) return error;
    throw error;
  }
  throw new Error('the tampered segments were accepted');
}

function editJson(line: string, change: (value: Record<string, unknown>) => void): string {
  const value = JSON.parse(line) as Record<string, unknown>;
  change(value);
  return JSON.stringify(value);
}

describe('segments that do not join up are refused, naming the file and line', () => {
  it('a missing segment in the middle', () => {
    const { dir, names } = rotate(40);
    unlinkSync(join(dir, names[2] as string));
    expect(refusal(dir).message).toBe(
      `${dir}: segment 3 is missing (between ${names[1]} and ${names[3]})`,
    );
  });

  it('a snapshot that is not the state the previous segment ended in', () => {
    const dir = tampered(3, (lines) => [
      lines[0] as string,
      editJson(lines[1] as string, (v) => {
        (v.state as { rng: { state: number } }).rng.state += 1;
      }),
      ...lines.slice(2),
    ]);
    const error = refusal(dir);
    expect(error.file).toBe(join(dir, segmentName(3)));
    expect(error.line).toBe(2);
    expect(error.message).toMatch(
      new RegExp(
        `the snapshot is not the state ${segmentName(2)} ended in: rng\\.state: \\d+ ≠ \\d+$`,
      ),
    );
  });

  it('a segment-end naming another next segment', () => {
    const dir = tampered(2, (lines) => [
      ...lines.slice(0, -1),
      editJson(lines.at(-1) as string, (v) => {
        v.next = 'elsewhere.jsonl';
      }),
    ]);
    expect(refusal(dir).message).toBe(
      `${join(dir, segmentName(2))}: its segment-end names elsewhere.jsonl as the next segment, not ${segmentName(3)}`,
    );
  });

  it('a segment-end whose last seq is not the segment’s', () => {
    const dir = tampered(2, (lines) => [
      ...lines.slice(0, -1),
      editJson(lines.at(-1) as string, (v) => {
        v.lastSeq = (v.lastSeq as number) + 1;
      }),
    ]);
    const error = refusal(dir);
    expect(error.file).toBe(join(dir, segmentName(2)));
    expect(error.message).toMatch(/segment-end says the last seq is \d+, the segment's is \d+$/);
  });

  it('a segment whose first event does not follow its snapshot', () => {
    const dir = tampered(3, (lines) => [...lines.slice(0, 2), ...lines.slice(3)]);
    const error = refusal(dir);
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/seq \d+ does not follow \d+: expected \d+/);
  });

  it('a lone segment with an edited snapshot seq', () => {
    const dir = tampered(2, (lines) => [
      lines[0] as string,
      editJson(lines[1] as string, (v) => {
        v.seq = (v.seq as number) - 1;
      }),
      ...lines.slice(2),
    ]);
    expect(() => replayLogFile(join(dir, segmentName(2)))).toThrow(
      /^line 2: snapshot line says seq \d+ at \d+, its state seq \d+ at \d+$/,
    );
  });
});
