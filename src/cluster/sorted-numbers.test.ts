// SortedNumbers against a plain sorted array: inserts, removals, replacements and counts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedNumbers } from './sorted-numbers.ts';

type Step =
  | { op: 'insert'; v: number }
  | { op: 'remove'; v: number }
  | { op: 'replace'; old: number; v: number };

const value = fc.integer({ min: -3, max: 12 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), v: value }),
  fc.record({ op: fc.constant('remove' as const), v: value }),
  fc.record({ op: fc.constant('replace' as const), old: value, v: value }),
);

describe('SortedNumbers', () => {
  it('holds the same values, in order, as a sorted array model, and counts below any bound', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200, size: 'max' }), (steps) => {
        const sorted = new SortedNumbers();
        const model: number[] = [];
        for (const s of steps) {
          if (s.op === 'insert') {
            sorted.insert(s.v);
            model.push(s.v);
          } else if (s.op === 'remove') {
            const i = model.indexOf(s.v);
            expect(sorted.remove(s.v)).toBe(i >= 0);
            if (i >= 0) model.splice(i, 1);
          } else {
            sorted.replace(s.old, s.v);
            const i = model.indexOf(s.old);
            if (i >= 0) model[i] = s.v;
            else model.push(s.v);
          }
          model.sort((a, b) => a - b);
          expect(sorted.toArray()).toEqual(model);
          expect(sorted.size).toBe(model.length);
        }
        for (let x = -4; x <= 13; x++) {
          expect(sorted.countBelow(x)).toBe(model.filter((v) => v < x).length);
        }
      }),
      { numRuns: 300, seed: 8 },
    );
  });

  it('splits and drops blocks as it grows and shrinks, with runs of equal values across blocks', () => {
    const sorted = new SortedNumbers();
    const model: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const v = (i * 7919) % 13; // long runs of the same few values
      sorted.insert(v);
      model.push(v);
    }
    for (let i = 0; i < 2000; i++) {
      const old = (i * 31) % 13;
      sorted.replace(old, old + 0.5);
      model[model.indexOf(old)] = old + 0.5;
    }
    for (let i = 0; i < 2900; i++) expect(sorted.remove(model.pop() as number)).toBe(true);
    model.sort((a, b) => a - b);
    expect(sorted.toArray()).toEqual(model);
    for (let x = 0; x <= 14; x += 0.5) {
      expect(sorted.countBelow(x)).toBe(model.filter((v) => v < x).length);
    }
  });
});
