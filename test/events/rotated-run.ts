// Test support: a simulated run with retries, and its rotation into segments (sealed or not).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { defaultConfig } from '../../src/core/config.ts';
import { type ParsedLog, parseLog } from '../../src/events/reader.ts';
import { Recorder } from '../../src/events/recorder.ts';
import type { SealKey } from '../../src/events/seal.ts';
import { type ReplayResult, ReplaySession, replay } from '../../src/runtime/replay.ts';
import { simulate } from '../../src/runtime/simulate.ts';

/** A recorded run with bind failures, retries and backoff (30 pods, 4 small nodes), as log text. */
export function recordedRun(): string {
  const lines: string[] = [];
  simulate({
    nodes: ['n0', 'n1', 'n2', 'n3'].map((name) => ({
      metadata: { name },
      status: { allocatable: { cpu: '2', memory: '8Gi', pods: '20' } },
    })),
    pods: Array.from({ length: 30 }, (_, i) => ({
      metadata: { name: `p${i}`, namespace: 'default', uid: `uid-${i}` },
      spec: {
        schedulerName: 'berth',
        containers: [{ name: 'c', resources: { requests: { cpu: '300m' } } }],
      },
    })),
    seed: 11,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0.3,
    record: (l) => lines.push(l),
  });
  return `${lines.join('\n')}\n`;
}

/** The file name of segment `n` in a rotated copy. */
export const segmentName = (n: number) => `seg-${String(n).padStart(3, '0')}.jsonl`;

/** The run, parsed and replayed, and a way to rotate it into segment files under `work`. */
export interface RotatedRun {
  wholeLog: ParsedLog;
  wholeReplay: ReplayResult;
  /**
   * Rotates the recorded run into segments in a new directory, as a live recorder would: a
   * replay core stands for the live one, and a segment ends every `every` events, at the
   * first point between steps; with `key`, the segments are sealed. Returns the directory
   * and the segment files' names.
   */
  rotate(every: number, key?: SealKey): { dir: string; names: string[] };
}

/** Records the run once; `rotate` writes rotated copies of it under `work`. */
export function rotatedRun(work: string): RotatedRun {
  const wholeLog = parseLog(recordedRun());
  const rotate = (every: number, key?: SealKey) => {
    const dir = mkdtempSync(join(work, 'rec-'));
    const segments: { name: string; lines: string[] }[] = [{ name: segmentName(1), lines: [] }];
    const sinkOf = (lines: string[]) => (l: string) => void lines.push(l);
    const session = new ReplaySession(wholeLog.header);
    const first = segments[0] as { lines: string[] };
    const recorder = new Recorder(sinkOf(first.lines), { ...wholeLog.header, segment: 1 }, key);
    let sinceRotation = 0;
    for (const env of wholeLog.envelopes) {
      expect(session.feed(env)).toBe(true);
      recorder.record(env);
      if (++sinceRotation >= every && session.settled) {
        const next = { name: segmentName(segments.length + 1), lines: [] };
        recorder.rotate(next.name, sinkOf(next.lines), session.snapshot());
        segments.push(next);
        sinceRotation = 0;
      }
    }
    recorder.close();
    for (const s of segments) writeFileSync(join(dir, s.name), `${s.lines.join('\n')}\n`);
    return { dir, names: segments.map((s) => s.name) };
  };
  return { wholeLog, wholeReplay: replay(wholeLog), rotate };
}
