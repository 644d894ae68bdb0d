// Property tests of quantity parsing: exact against BigInt arithmetic, and total on any input.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuantity, type Quantity, toMilli, toUnits } from '../../src/cluster/quantity.ts';

function parsed(raw: unknown): Quantity {
  const r = parseQuantity(raw);
  if (!r.ok) throw new Error(r.error);
  return r.q;
}

/** The cap on any quantity, 2^63 − 1 whole units. */
const CAP = 2n ** 63n - 1n;
const min = (a: bigint, b: bigint) => (a < b ? a : b);
/** An exact integer as an amount holds it: a number while safe, else the bigint. */
const exact = (x: bigint): number | bigint =>
  x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x;

/** ceil(n / d) for non-negative BigInts. */
const ceilDiv = (n: bigint, d: bigint) => (n + d - 1n) / d;

const DECIMAL: [string, number][] = [
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
];
const BINARY: [string, number][] = [
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
];

describe('parseQuantity (properties)', () => {
  it('matches exact arithmetic for decimal numbers with decimal suffixes', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{1,12}$/),
        fc.stringMatching(/^[0-9]{0,9}$/),
        fc.constantFrom(...DECIMAL),
        (int, frac, [suffix, exp]) => {
          const q = parsed(`${int}.${frac}${suffix}`);
          // value = (int·frac as an integer) × 10^(exp − frac.length)
          const digits = BigInt(int + frac);
          const scale = exp - frac.length;
          const at = (unitExp: number) => {
            const e = scale + unitExp;
            return e >= 0 ? digits * 10n ** BigInt(e) : ceilDiv(digits, 10n ** BigInt(-e));
          };
          // Both saturate at int64, as kube's MilliValue()/Value() do (kubernetes#141305).
          expect(toMilli(q)).toBe(exact(min(at(3), CAP)));
          expect(toUnits(q)).toBe(exact(min(at(0), CAP)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('matches exact arithmetic for binary suffixes', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{1,6}$/),
        fc.stringMatching(/^[0-9]{0,4}$/),
        fc.constantFrom(...BINARY),
        (int, frac, [suffix, pow]) => {
          const q = parsed(`${int}.${frac}${suffix}`);
          const n = BigInt(int + frac) << BigInt(pow);
          expect(toUnits(q)).toBe(exact(min(ceilDiv(n, 10n ** BigInt(frac.length)), CAP)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads a JSON number like its decimal string', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e15, noNaN: true }), (x) => {
        expect(parsed(x)).toEqual(parsed(String(x)));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.stringMatching(/^[-+.0-9eEinumkKMGTP]{0,8}$/), fc.anything()),
        (raw) => {
          const r = parseQuantity(raw);
          expect(typeof r.ok).toBe('boolean');
        },
      ),
      { numRuns: 500 },
    );
  });
});
