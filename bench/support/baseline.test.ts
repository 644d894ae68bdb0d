// Tests the benches' regression check: which fresh figures are REGRESSION lines against a baseline.
import { describe, expect, it } from 'vitest';
import { type Baseline, baselineFlags, compareWithBaseline, type Fresh } from './baseline.ts';

const base = (figures: Record<string, number>, extra: Partial<Baseline> = {}): Baseline => ({
  bench: 'replay',
  scenario: 's',
  shape: 'x',
  figures,
  commit: 'abc',
  date: '2026-11-29',
  ...extra,
});
const fresh = (figures: Fresh['figures'], extra: Partial<Fresh> = {}): Fresh => ({
  shape: 'x',
  figures,
  ...extra,
});

describe('compareWithBaseline', () => {
  it("says REGRESSION for replay at 30k events/s against a 128k baseline (issue 38's 4× drop)", () => {
    const { regressions } = compareWithBaseline(
      'retry-200n-20000p',
      fresh([{ name: 'replay events/s', value: 30_000 }]),
      base({ 'replay events/s': 128_000 }),
      40,
    );
    expect(regressions).toEqual([
      'REGRESSION: retry-200n-20000p replay events/s 30000 vs baseline 128000 (−77 %, tolerance 40 %)',
    ]);
  });

  it('lets a drop within the tolerance through, and any rise', () => {
    const figures = [
      { name: 'a', value: 61 },
      { name: 'b', value: 300 },
    ];
    const { regressions } = compareWithBaseline('s', fresh(figures), base({ a: 100, b: 100 }), 40);
    expect(regressions).toEqual([]);
  });

  it('says REGRESSION just beyond the tolerance', () => {
    const { regressions } = compareWithBaseline(
      's',
      fresh([{ name: 'a', value: 59 }]),
      base({ a: 100 }),
      40,
    );
    expect(regressions).toHaveLength(1);
  });

  it('counts a rise as worse for a figure where lower is better', () => {
    const { regressions } = compareWithBaseline(
      's',
      fresh([{ name: 'p99 ms', value: 2, lowerIsBetter: true }]),
      base({ 'p99 ms': 1 }),
      40,
    );
    expect(regressions).toEqual(['REGRESSION: s p99 ms 2 vs baseline 1 (+100 %, tolerance 40 %)']);
  });

  it('says REGRESSION when the decision digest differs, and not when it is the same', () => {
    const b = base({}, { decisionDigest: 'aaaaaaaaaaaaaaaa' });
    expect(
      compareWithBaseline('s', fresh([], { decisionDigest: 'bbbbbbbbbbbbbbbb' }), b).regressions,
    ).toEqual([
      'REGRESSION: s decisionDigest bbbbbbbbbbbb vs baseline aaaaaaaaaaaa (the decisions differ)',
    ]);
    expect(
      compareWithBaseline('s', fresh([], { decisionDigest: 'aaaaaaaaaaaaaaaa' }), b).regressions,
    ).toEqual([]);
  });

  it('does not compare a baseline of another shape, and says so', () => {
    const r = compareWithBaseline(
      's',
      fresh([{ name: 'a', value: 1 }], { shape: 'scale 0.1' }),
      base({ a: 100 }, { shape: 'scale 1' }),
    );
    expect(r.regressions).toEqual([]);
    expect(r.notes).toEqual(['s: baseline is of shape scale 1, not scale 0.1: not compared']);
  });

  it('notes a missing baseline without a regression', () => {
    const r = compareWithBaseline('s', fresh([{ name: 'a', value: 1 }]), undefined);
    expect(r).toEqual({ regressions: [], notes: ['s: no baseline'] });
  });
});

describe('baselineFlags', () => {
  it('takes --update-baseline and --strict out of the arguments', () => {
    expect(baselineFlags(['--runs', '3', '--strict', 'x', '--update-baseline'])).toEqual({
      update: true,
      strict: true,
      rest: ['--runs', '3', 'x'],
    });
  });
});
