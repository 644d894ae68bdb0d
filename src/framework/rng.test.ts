// Pins the seeded generator: same seed, same sequence; values stay in range.
import { describe, expect, it } from 'vitest';
import { seededRng } from './rng.ts';

describe('seededRng', () => {
  it('repeats the same sequence for the same seed', () => {
    const a = seededRng(7);
    const b = seededRng(7);
    for (let i = 0; i < 100; i++) expect(a.nextUint32()).toBe(b.nextUint32());
  });
  it('differs between seeds', () => {
    expect(seededRng(1).nextUint32()).not.toBe(seededRng(2).nextUint32());
  });
  it('keeps nextInt within [0, n)', () => {
    const r = seededRng(3);
    for (let i = 0; i < 1000; i++) {
      const v = r.nextInt(5);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(5);
    }
  });
});
