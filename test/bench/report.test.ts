// The end-to-end bench's summaries: per-run medians and ratios, and p99s pooled over runs.
import { describe, expect, it } from 'vitest';
import {
  formatPooled,
  noSamples,
  poolInto,
  summarise,
  summarisePooled,
} from '../../bench/e2e/report.ts';

describe('summarise', () => {
  it("gives each scheduler's min, median and max and the ratio of medians", () => {
    const runs = [
      { scheduler: 'berth' as const, x: 3 },
      { scheduler: 'kube-scheduler' as const, x: 4 },
      { scheduler: 'berth' as const, x: 1 },
      { scheduler: 'kube-scheduler' as const, x: 8 },
      { scheduler: 'berth' as const, x: 2 },
    ];
    const [row] = summarise(runs, [{ label: 'x', unit: 'ms', of: (r) => r.x, better: 'lower' }]);
    expect(row?.berth).toMatchObject({ min: 1, median: 2, max: 3, runs: [3, 1, 2] });
    expect(row?.kube).toMatchObject({ min: 4, median: 6, max: 8 });
    expect(row?.ratio).toBe(0.33);
  });
});

describe('summarisePooled', () => {
  it('takes one p99 over every pod of every run, not a median of per-run p99s', () => {
    // berth: one run of 100 pods with a slow tail of 2, one quiet run of 100 pods.
    const slowRun = [...Array(98).fill(1), 50, 50];
    const quietRun = Array(100).fill(1);
    const kube = Array(200).fill(2);
    const p = summarisePooled(
      { latencyMs: [...slowRun, ...quietRun], schedulerShareMs: [0.5, 0.5], createToBoundMs: [3] },
      { latencyMs: kube, schedulerShareMs: [1, 1], createToBoundMs: [2] },
    );
    // Pooled: 200 pods, 2 slow = 1 %: the p99 (the 198th) is still 1 ms.
    expect(p.berth.latencyMs).toMatchObject({ n: 200, p99: 1, max: 50 });
    expect(p.p99Ratio).toEqual({ latencyMs: 0.5, schedulerShareMs: 0.5, createToBoundMs: 1.5 });
    const text = formatPooled(p);
    expect(text).toContain('pooled latency p99 (ms)');
    expect(text).toMatch(/latency p99 \(ms\)\s+1\.00 \(200 pods\)\s+2\.00 \(200 pods\)\s+0\.50×/);
    expect(text).toMatch(/create→bind p99 \(ms\)\s+3\.00 \(1 pods\)\s+2\.00 \(1 pods\)\s+1\.50×/);
  });

  it('pools every kind of sample of each run, in run order', () => {
    const pooled = noSamples();
    poolInto(pooled, { latencyMs: [1, 2], schedulerShareMs: [0.5], createToBoundMs: [3] });
    poolInto(pooled, { latencyMs: [4], schedulerShareMs: [0.7, 0.8], createToBoundMs: [] });
    expect(pooled).toEqual({
      latencyMs: [1, 2, 4],
      schedulerShareMs: [0.5, 0.7, 0.8],
      createToBoundMs: [3],
    });
  });

  it('counts a pod never bound as infinitely late', () => {
    const p = summarisePooled(
      { ...noSamples(), latencyMs: [1, Number.POSITIVE_INFINITY] },
      { ...noSamples(), latencyMs: [1, 1] },
    );
    expect(p.berth.latencyMs.p99).toBe(Number.POSITIVE_INFINITY);
  });
});
