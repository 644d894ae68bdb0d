// Tampered logs are refused by line, through the streaming replay of a file, never accepted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/core/config.ts';
import { LogError } from '../../src/events/reader.ts';
import { type FileReplayResult, replayLogFile } from '../../src/runtime/replay-file.ts';
import { simulate } from '../../src/runtime/simulate.ts';

const work = mkdtempSync(join(tmpdir(), 'berth-tamper-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Line = Record<string, unknown> & { seq?: number; event?: Record<string, unknown> };

/** A small recorded run with bind failures, as parsed lines. */
function recordedLines(): Line[] {
  const lines: string[] = [];
  simulate({
    nodes: ['n0', 'n1', 'n2'].map((name) => ({
      metadata: { name },
      status: { allocatable: { cpu: '4', memory: '8Gi', pods: '20' } },
    })),
    pods: Array.from({ length: 12 }, (_, i) => ({
      metadata: { name: `p${i}`, namespace: 'default', uid: `uid-${i}` },
      spec: {
        schedulerName: 'berth',
        containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }],
      },
    })),
    seed: 4,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0.3,
    record: (l) => lines.push(l),
  });
  return lines.map((l) => JSON.parse(l) as Line);
}

const original = recordedLines();
let files = 0;

function replayOf(lines: Line[]): FileReplayResult {
  const path = join(work, `log-${++files}.jsonl`);
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return replayLogFile(path);
}

function refusal(lines: Line[]): LogError {
  try {
    replayOf(lines);
  } catch (error) {
    if (error instanceof LogError) return error;
    throw error;
  }
  throw new Error('the tampered log was accepted');
}

/** Index (0-based line) of the first event of `type`, optionally matching `where`. */
function find(
  lines: Line[],
  type: string,
  where: (e: Record<string, unknown>) => boolean = () => true,
) {
  const i = lines.findIndex((l) => l.event?.type === type && where(l.event));
  if (i < 0) throw new Error(`no ${type} in the log`);
  return i;
}

/** A copy of the log with lines from `from` on renumbered to run on without a gap. */
function renumbered(lines: Line[], from: number): Line[] {
  let seq = (lines[from - 1]?.seq ?? 0) as number;
  return lines.map((l, i) => (i >= from && l.seq !== undefined ? { ...l, seq: ++seq } : l));
}

const copy = (): Line[] => structuredClone(original);
const bindSucceeded = () => find(original, 'BindSucceeded');

describe('a recorded log', () => {
  it('replays untouched, with a logDigest over its lines', () => {
    const result = replayOf(original);
    expect(result.matches).toBe(true);
    expect(result.lines?.recorded).toBe(result.lines?.read);
    expect(original.filter((l) => l.event?.type === 'BindFailed').length).toBeGreaterThan(0);
  });
});

describe('tampered logs are refused naming the line', () => {
  it.each<[string, () => Line[], number, RegExp]>([
    [
      'a deleted BindSucceeded line',
      () => copy().filter((_, i) => i !== bindSucceeded()),
      bindSucceeded() + 1,
      /^seq (\d+) does not follow \d+: expected \d+ \(an event is missing or moved\)$/,
    ],
    [
      'a renumbered seq',
      () => {
        const l = copy();
        (l[5] as Line).seq = 500;
        return l;
      },
      6,
      /^seq 500 does not follow 4: expected 5/,
    ],
    [
      'two lines swapped',
      () => {
        const l = copy();
        [l[6], l[7]] = [l[7] as Line, l[6] as Line];
        return l;
      },
      7,
      /^seq 7 does not follow 5: expected 6/,
    ],
    [
      'time going backwards',
      () => {
        const l = copy();
        const i = l.findIndex((x) => (x.time as number) > 0);
        (l[i] as Line).time = -1;
        return l;
      },
      copy().findIndex((x) => (x.time as number) > 0) + 1,
      /^time -1 goes back \(seq \d+ was at \d+\)$/,
    ],
    [
      'a PodUpserted with pod: null',
      () => {
        const l = copy();
        (l[find(l, 'PodUpserted')] as Line).event = { type: 'PodUpserted', pod: null };
        return l;
      },
      find(original, 'PodUpserted') + 1,
      /^PodUpserted has "pod" null, not an object$/,
    ],
    [
      'a BindSucceeded without key',
      () => {
        const l = copy();
        delete (l[bindSucceeded()] as Line).event?.key;
        return l;
      },
      bindSucceeded() + 1,
      /^BindSucceeded has no "key" \(a namespace\/name string\)$/,
    ],
    [
      'an attempt that is not a number',
      () => {
        const l = copy();
        ((l[bindSucceeded()] as Line).event as Record<string, unknown>).attempt = '1';
        return l;
      },
      bindSucceeded() + 1,
      /^BindSucceeded has "attempt" "1", not a positive integer$/,
    ],
    [
      'a bind result for an attempt never requested',
      () => {
        const l = copy();
        ((l[bindSucceeded()] as Line).event as Record<string, unknown>).attempt = 7;
        return l;
      },
      bindSucceeded() + 1,
      /^BindSucceeded of default\/p\d+ \(uid uid-\d+\) attempt 7 answers no open BindRequested/,
    ],
    [
      'a bind result naming another node',
      () => {
        const l = copy();
        ((l[bindSucceeded()] as Line).event as Record<string, unknown>).node = 'n9';
        return l;
      },
      bindSucceeded() + 1,
      /^BindSucceeded of .* names node n9, but its BindRequested named n\d$/,
    ],
    [
      'a bind answered twice',
      () => {
        const l = copy();
        const i = bindSucceeded();
        return renumbered(
          [...l.slice(0, i + 1), structuredClone(l[i] as Line), ...l.slice(i + 1)],
          i + 1,
        );
      },
      bindSucceeded() + 2,
      /^BindSucceeded of .* answers no open BindRequested \(never requested, or already answered\)$/,
    ],
    [
      'a digest line with the wrong decision count',
      () => {
        const l = copy();
        (l[l.length - 1] as Line).decisions = 99;
        return l;
      },
      original.length,
      /^the digest line counts 99 decisions; the log holds \d+$/,
    ],
    [
      'a bad config in the header',
      () => {
        const l = copy();
        (l[0] as Line).config = { percentageOfNodesToScore: 500 };
        return l;
      },
      1,
      /^bad config in the header: percentageOfNodesToScore must be an integer 0–100, got 500$/,
    ],
  ])('%s', (_name, tamper, line, message) => {
    const error = refusal(tamper());
    expect(error.line).toBe(line);
    expect(error.message.slice(`line ${line}: `.length)).toMatch(message);
  });
});

describe('tampered logs that are well formed are caught by replay', () => {
  it('a decision edited: the first decision that differs', () => {
    const l = copy();
    const i = find(l, 'PodReserved');
    ((l[i] as Line).event as Record<string, unknown>).node = 'n9';
    const result = replayOf(l);
    expect(result.matches).toBe(false);
    expect(result.divergenceLine).toBe(i + 1);
    expect(result.divergence?.expected).toMatch(/reserved default\/p\d+ uid-\d+ #1 n9$/);
  });

  it('a BindSucceeded edited into a BindFailed: the logDigest no longer matches', () => {
    const l = copy();
    const i = bindSucceeded();
    Object.assign((l[i] as Line).event as object, {
      type: 'BindFailed',
      reason: 'Error',
      message: 'edited',
    });
    const result = replayOf(l);
    expect(result.matches).toBe(false);
    // The watch shows the pod bound before its backoff would fire, so no decision changes:
    // only the digest of the log's lines tells.
    expect(result.divergence).toBeUndefined();
    expect(result.lines?.line).toBe(l.length);
    expect(result.lines?.read).not.toBe(result.lines?.recorded);
  });

  it('a deleted BindSucceeded with later seqs renumbered to hide the gap', () => {
    const i = bindSucceeded();
    const l = renumbered(
      copy().filter((_, j) => j !== i),
      i,
    );
    const last = l[l.length - 1] as Line;
    const result = replayOf(l);
    expect(result.matches).toBe(false);
    expect(last.kind).toBe('digest');
    expect(result.divergence !== undefined || result.lines?.read !== result.lines?.recorded).toBe(
      true,
    );
  });
});
