// Tests for kube's reservoir-sampling host selection.
import { describe, expect, it } from 'vitest';
import { seededRng } from './rng.ts';
import { selectHost } from './select-host.ts';

/** A generator whose every draw is 1 (never replacing the pick), recording each bound. */
function boundsRecorder() {
  const bounds: number[] = [];
  const rng = {
    nextUint32: () => 0,
    nextFloat: () => 0,
    nextInt: (n: number) => {
      bounds.push(n);
      return 1;
    },
  };
  return { bounds, rng };
}

describe('selectHost', () => {
  it('picks the highest total without drawing from the rng', () => {
    const rng = seededRng(1);
    const draws = { n: 0 };
    const counting = {
      ...rng,
      nextInt: (n: number) => {
        draws.n++;
        return rng.nextInt(n);
      },
    };
    expect(selectHost([1, 5, 3], counting)).toBe(1);
    expect(draws.n).toBe(0);
  });

  it('draws once per tie after the first, with the tie count as the bound', () => {
    const { bounds, rng } = boundsRecorder();
    // every draw returns 1 (≠ 0), so the first of the top scores is kept
    expect(selectHost([7, 2, 7, 7, 1, 7], rng)).toBe(0);
    expect(bounds).toEqual([2, 3, 4]);
  });

  it('replaces the pick when the draw is 0', () => {
    const rng = { nextUint32: () => 0, nextFloat: () => 0, nextInt: () => 0 };
    expect(selectHost([7, 2, 7, 7], rng)).toBe(3);
  });

  it('restarts the tie count when a higher total appears', () => {
    const { bounds, rng } = boundsRecorder();
    expect(selectHost([3, 3, 9, 9], rng)).toBe(2);
    expect(bounds).toEqual([2, 2]);
  });

  it('is deterministic for a seed and spreads ties roughly uniformly', () => {
    const totals = [5, 5, 5, 5];
    const a = seededRng(42);
    const b = seededRng(42);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) {
      const x = selectHost(totals, a);
      expect(selectHost(totals, b)).toBe(x);
      counts[x] = (counts[x] as number) + 1;
    }
    for (const c of counts) expect(c).toBeGreaterThan(850);
  });
});
