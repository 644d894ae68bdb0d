// Exact resource amounts: plain numbers while they are safe integers, bigints beyond 2^53.

/**
 * An exact integer amount of a resource (millicores, bytes, units). Canonical form: a
 * `number` when |x| ≤ 2^53 − 1 (`Number.MAX_SAFE_INTEGER`), else a `bigint`, so `===`
 * compares amounts exactly and the common case costs what plain numbers cost. Relational
 * operators (`<`, `<=`, …) compare numbers with bigints exactly; arithmetic must go through
 * {@link addAmounts} / {@link subAmounts}, which never round and never overflow.
 */
export type Amount = number | bigint;

/** kube's math.MaxInt64: Value() and MilliValue() saturate here (kubernetes#141305). */
export const MAX_INT64 = 2n ** 63n - 1n;
/** kube's math.MinInt64, where Value() saturates a negative quantity. */
export const MIN_INT64 = -(2n ** 63n);

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MAX_SAFE_BIG = BigInt(MAX_SAFE);

/** The canonical amount of an exact integer: a number when it is safe, else the bigint. */
export function amountOf(x: bigint): Amount {
  return x <= MAX_SAFE_BIG && x >= -MAX_SAFE_BIG ? Number(x) : x;
}

/** Clamps `x` to kube's int64 range [MinInt64, MaxInt64], as its accessors saturate. */
export function saturateInt64(x: bigint): Amount {
  if (x > MAX_INT64) return MAX_INT64;
  if (x < MIN_INT64) return MIN_INT64;
  return amountOf(x);
}

/** Whether `a` is a number that is not an integer (NaN, ±Infinity, a fraction): not an amount. */
function notInteger(a: Amount): boolean {
  return typeof a === 'number' && !Number.isInteger(a);
}

/**
 * a + b, exact. Two safe numbers whose float sum is safe (the common case) cost one
 * addition: the float sum of integers is exact below 2^53 and, rounding being monotone,
 * lands above 2^53 − 1 whenever the true sum does. A number that is not an integer (only
 * corrupt data holds one) makes the result the float sum, as plain numbers would give.
 */
export function addAmounts(a: Amount, b: Amount): Amount {
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (s <= MAX_SAFE && s >= -MAX_SAFE) return s;
  }
  if (notInteger(a) || notInteger(b)) return Number(a) + Number(b);
  return amountOf(BigInt(a) + BigInt(b));
}

/** a − b, exact (see {@link addAmounts}). */
export function subAmounts(a: Amount, b: Amount): Amount {
  if (typeof a === 'number' && typeof b === 'number') {
    const d = a - b;
    if (d <= MAX_SAFE && d >= -MAX_SAFE) return d;
  }
  if (notInteger(a) || notInteger(b)) return Number(a) - Number(b);
  return amountOf(BigInt(a) - BigInt(b));
}

/** The larger of two amounts. */
export function maxAmount(a: Amount, b: Amount): Amount {
  return a >= b ? a : b;
}

/** The smaller of two amounts. */
export function minAmount(a: Amount, b: Amount): Amount {
  return a <= b ? a : b;
}

/** The nearest float64 to `a` (round half to even), as Go's `float64(int64)` gives. */
export function amountToFloat(a: Amount): number {
  return typeof a === 'number' ? a : Number(a);
}

/**
 * `floor(part × 100 / whole)` for 0 ≤ part ≤ whole, whole > 0, exactly as kube's int64
 * arithmetic gives it (and without its overflow past 9.2 × 10^16). Floats are exact while
 * `whole` ≤ 2^46 (part × 100 stays below 2^53 and the truncated quotient is then exact);
 * larger wholes go through bigints.
 */
export function percentOf(part: Amount, whole: Amount): number {
  if (typeof part === 'number' && typeof whole === 'number' && whole <= FLOAT_PERCENT_MAX)
    return Math.trunc((part * 100) / whole);
  if (notInteger(part) || notInteger(whole))
    return Math.trunc((Number(part) * 100) / Number(whole));
  return Number((BigInt(part) * 100n) / BigInt(whole));
}

/** Largest whole {@link percentOf} divides in floats: 2^46 (part × 100 < 2^53). */
export const FLOAT_PERCENT_MAX = 2 ** 46;

/** A JSON-safe form of an amount: the number, or a bigint as its decimal digits. */
export type AmountData = number | string;

/** `a` as JSON can hold it exactly (a bigint becomes its decimal string). */
export function amountData(a: Amount): AmountData {
  return typeof a === 'number' ? a : a.toString();
}

/**
 * An amount from its JSON form ({@link amountData}): a number as it is, a string of decimal
 * digits (optionally signed) as its exact value; anything else is undefined.
 */
export function amountFromData(d: unknown): Amount | undefined {
  if (typeof d === 'number') return d;
  if (typeof d === 'string' && /^-?[0-9]{1,400}$/.test(d)) return amountOf(BigInt(d));
  return undefined;
}

/** JSON.stringify of `value` with every bigint written as its decimal string (for messages). */
export function amountsJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** `r[key]` when `r` has it as its own key, else 0 (an absent resource has none). */
export function ownAmount(r: Readonly<Record<string, Amount>>, key: string): Amount {
  return Object.hasOwn(r, key) ? (r[key] as Amount) : 0;
}
