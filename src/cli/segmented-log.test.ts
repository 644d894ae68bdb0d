// Rotated recordings on disk: segment names, size cuts, retention, and a live run that replays.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Subject } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { trimNode, trimPod } from '../adapters/trim.ts';
import { defaultConfig } from '../core/config.ts';
import type { InputEvent } from '../events/types.ts';
import { LiveScheduler } from '../runtime/live.ts';
import { replayLogFile } from '../runtime/replay-file.ts';
import { replayLogDirectory } from '../runtime/segments.ts';
import { openSegmentedLog, parseSize, segmentName } from './segmented-log.ts';

const work = mkdtempSync(join(tmpdir(), 'berth-segmented-'));
afterAll(() => {
  if (process.env.KEEP === undefined) rmSync(work, { recursive: true, force: true });
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A live run over in-memory watches whose binds succeed at once, recorded into `dir` with
 * segments of `maxBytes`; 60 pods arrive in three waves, so cuts fall mid-run.
 */
async function recordLiveRun(dir: string, maxBytes: number, retain = 0): Promise<void> {
  const nodes = new Subject<InputEvent>();
  const pods = new Subject<InputEvent>();
  const log = openSegmentedLog(dir, { maxBytes, retain });
  const live = new LiveScheduler({
    config: defaultConfig,
    seed: 3,
    sources: [nodes, pods],
    logger: pino({ level: 'silent' }),
    record: log.sink,
    rotation: log,
    effects: (ingest) => ({
      binder: {
        execute: (c) => {
          if (c.kind !== 'bind') return;
          const done = { type: 'BindSucceeded', ...c.attempt, node: c.node } as const;
          queueMicrotask(() => ingest(done));
        },
      },
    }),
  });
  live.start();
  nodes.next({ type: 'ResyncStarted', kind: 'Node' });
  for (const name of ['n1', 'n2', 'n3'])
    nodes.next({
      type: 'NodeUpserted',
      node: trimNode({
        metadata: { name },
        status: { allocatable: { cpu: '4', memory: '8Gi', pods: '30' } },
      }),
    });
  nodes.next({ type: 'ResyncDone', kind: 'Node' });
  pods.next({ type: 'ResyncStarted', kind: 'Pod' });
  pods.next({ type: 'ResyncDone', kind: 'Pod' });
  for (let wave = 0; wave < 3; wave++) {
    for (let i = 0; i < 20; i++) {
      const name = `p${wave}-${i}`;
      pods.next({
        type: 'PodUpserted',
        pod: trimPod({
          metadata: { name, namespace: 'default', uid: `uid-${name}` },
          spec: {
            schedulerName: 'berth',
            containers: [{ resources: { requests: { cpu: '250m' } } }],
          },
        }),
      });
    }
    for (let i = 0; i < 20; i++) await tick();
  }
  await live.stop(100);
  log.close();
}

describe('openSegmentedLog', () => {
  it('names segments so that they sort in writing order', () => {
    expect(segmentName(1)).toBe('segment-000001.jsonl');
    expect(segmentName(123456)).toBe('segment-123456.jsonl');
  });

  it('refuses a directory that already holds segments', () => {
    const dir = join(work, 'used');
    mkdirSync(dir);
    writeFileSync(join(dir, segmentName(1)), '');
    expect(() => openSegmentedLog(dir, { maxBytes: 4096, retain: 0 })).toThrow(
      /already holds 1 log segment/,
    );
  });

  it('parses sizes with quantity suffixes and refuses tiny or malformed ones', () => {
    expect(parseSize('64Mi', '--x')).toBe(64 * 1024 * 1024);
    expect(parseSize('500k', '--x')).toBe(500_000);
    expect(() => parseSize('10', '--record-segment-size')).toThrow(/at least 4Ki/);
    expect(() => parseSize('1 GB', '--record-segment-size')).toThrow(/--record-segment-size/);
  });
});

describe('a rotated live recording', () => {
  it('is cut into segments that replay one by one and as a whole', async () => {
    const dir = join(work, 'all');
    await recordLiveRun(dir, 8 * 1024);
    const files = readdirSync(dir).sort();
    expect(files.length).toBeGreaterThanOrEqual(3);
    const whole = replayLogDirectory(dir);
    expect(whole.matches).toBe(true);
    // Three 4-cpu nodes hold 48 pods of 250m; the other 12 are unschedulable.
    expect(whole.summary.scheduled).toBe(48);
    expect(whole.summary.unschedulable).toBe(12);
    for (const f of files) {
      const one = replayLogFile(join(dir, f));
      expect(one.matches, f).toBe(true);
    }
    // Every segment after the first starts from a snapshot of the core.
    const second = readFileSync(join(dir, files[1] as string), 'utf8').split('\n');
    expect(JSON.parse(second[0] as string)).toMatchObject({ kind: 'header', segment: 2 });
    expect(JSON.parse(second[1] as string)).toMatchObject({ kind: 'snapshot' });
  });

  it('keeps only the newest N segments, and what is kept still replays', async () => {
    const dir = join(work, 'retained');
    await recordLiveRun(dir, 8 * 1024, 2);
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).not.toBe(segmentName(1));
    expect(replayLogDirectory(dir).matches).toBe(true);
  });
});
