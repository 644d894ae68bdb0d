// Pins --heap-growth-percent and --young-growth-factor: their V8 flags, and that each does bound the heap of a real process.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { heapGrowthFlag, youngGrowthFlag } from './heap-growth.ts';

const module = fileURLToPath(new URL('./heap-growth.ts', import.meta.url));

/** Module code that calls heap-growth.ts's `fn(arg)`, or nothing when `arg` is undefined. */
function applying(fn: string, arg: number | undefined): string {
  if (arg === undefined) return '';
  return `const { ${fn} } = await import(${JSON.stringify(module)}); ${fn}(${arg});`;
}

/** Runs `code` as an ES module in a fresh node (no NODE_OPTIONS) and returns the number it prints. */
function numberPrintedBy(code: string): number {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return Number(run.stdout.trim());
}

/**
 * Peak heap (MiB) of a child that keeps 200,000 small objects alive and replaces them over
 * and over, as a scheduler replaces pods: garbage piles up in the old generation.
 */
function peakHeapMiB(percent: number | undefined): number {
  const code = `${applying('applyHeapGrowth', percent)}
    const live = []; let peak = 0;
    for (let i = 0; i < 4e6; i++) {
      const o = { a: i, b: 'x' + i, c: [i, i + 1] };
      if (live.length < 200000) live.push(o); else live[i % 200000] = o;
      if (i % 20000 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    console.log(Math.round(peak / 2 ** 20));`;
  return numberPrintedBy(code);
}

describe('heap growth', () => {
  it('maps a percentage to V8’s flag; 0 keeps V8’s own policy', () => {
    expect(heapGrowthFlag(20)).toBe('--heap-growing-percent=20');
    expect(heapGrowthFlag(0)).toBeUndefined();
    expect(() => heapGrowthFlag(-1)).toThrow(RangeError);
    expect(() => heapGrowthFlag(1.5)).toThrow(RangeError);
  });

  it('keeps a process’s heap well below what V8’s own policy lets it reach', () => {
    const own = peakHeapMiB(undefined);
    const bounded = peakHeapMiB(10);
    // Measured here: ~190 MiB heap under V8’s policy, ~95 MiB at 10 %.
    expect(bounded).toBeLessThan(own * 0.8);
  }, 60_000);
});

/**
 * The young generation's size (MiB) in a child that churns through short-lived objects while
 * keeping up to 200,000 alive, after applying `factor` at start (or nothing).
 */
function youngSpaceMiB(factor: number | undefined): number {
  const code = `${applying('applyYoungGrowth', factor)}
    const v8 = await import('node:v8');
    let keep = [];
    for (let i = 0; i < 3e6; i++) {
      keep.push({ a: i, b: 'x' + i });
      if (keep.length > 200000) keep = [];
    }
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(Math.round(young.space_size / 2 ** 20));`;
  return numberPrintedBy(code);
}

describe('young generation growth', () => {
  it('maps a factor to V8’s flag; refuses what is not a whole number 1–16', () => {
    expect(youngGrowthFlag(1)).toBe('--semi-space-growth-factor=1');
    expect(youngGrowthFlag(2)).toBe('--semi-space-growth-factor=2');
    expect(() => youngGrowthFlag(0)).toThrow(RangeError);
    expect(() => youngGrowthFlag(1.5)).toThrow(RangeError);
    expect(() => youngGrowthFlag(17)).toThrow(RangeError);
  });

  it('at 1, set at run time, keeps the young generation at a fraction of what V8 grows it to', () => {
    const own = youngSpaceMiB(undefined);
    const fixed = youngSpaceMiB(1);
    // Measured here: 32 MiB under V8’s policy, 2–8 MiB at 1.
    expect(own).toBeGreaterThanOrEqual(16);
    expect(fixed).toBeLessThanOrEqual(own / 2);
  }, 60_000);
});
