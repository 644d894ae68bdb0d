// Kubernetes resource quantities ("100m", "1.5Gi", "1e3"): exact parsing and kube-style rounding.
import { type Amount, saturateInt64 } from './amount.ts';

/**
 * An exact quantity: an integer number of nano-units (10^-9 of the base unit).
 *
 * Kubernetes rounds every parsed quantity up (away from zero) to a whole nano-unit, so this
 * representation keeps everything Kubernetes keeps: "0.1" is exactly 10^8 nanos, "1.5Gi" is
 * exactly 1.5 × 2^30 × 10^9. Magnitudes are capped at 2^63 − 1 whole units, the largest
 * quantity Kubernetes represents.
 */
export interface Quantity {
  /** The value × 10^9, exact. */
  readonly nanos: bigint;
}

/** The result of {@link parseQuantity}: a quantity or a reason it is not one. */
export type ParsedQuantity = { ok: true; q: Quantity } | { ok: false; error: string };

const NANOS_PER_UNIT = 1_000_000_000n;
const NANOS_PER_MILLI = 1_000_000n;
/** 2^63 − 1 units, in nanos: the cap applied to every parsed magnitude. */
const MAX_NANOS = (2n ** 63n - 1n) * NANOS_PER_UNIT;
/** Decimal digits of MAX_NANOS (9.2 × 10^27); anything with more digits is capped. */
const MAX_NANOS_DIGITS = 28;
const LOG10_2 = Math.log10(2);

/** Suffix → [power of ten, power of two]. Exponent suffixes ("e3") are handled separately. */
const SUFFIXES: ReadonlyMap<string, readonly [number, number]> = new Map([
  ['', [0, 0]],
  ['n', [-9, 0]],
  ['u', [-6, 0]],
  ['m', [-3, 0]],
  ['k', [3, 0]],
  ['M', [6, 0]],
  ['G', [9, 0]],
  ['T', [12, 0]],
  ['P', [15, 0]],
  ['E', [18, 0]],
  ['Ki', [0, 10]],
  ['Mi', [0, 20]],
  ['Gi', [0, 30]],
  ['Ti', [0, 40]],
  ['Pi', [0, 50]],
  ['Ei', [0, 60]],
]);

/** Nanos per unit of each suffix that the fast path accepts (integer digits + suffix). */
const FAST_SUFFIX_NANOS: ReadonlyMap<string, bigint> = new Map([
  ['', NANOS_PER_UNIT],
  ['m', NANOS_PER_MILLI],
  ['k', 10n ** 12n],
  ['M', 10n ** 15n],
  ['G', 10n ** 18n],
  ['Ki', 2n ** 10n * NANOS_PER_UNIT],
  ['Mi', 2n ** 20n * NANOS_PER_UNIT],
  ['Gi', 2n ** 30n * NANOS_PER_UNIT],
  ['Ti', 2n ** 40n * NANOS_PER_UNIT],
]);

const ZERO: Quantity = Object.freeze({ nanos: 0n });

/** Parsed strings (quantity or error reason), bounded: cleared when it reaches the limit. */
const memo = new Map<string, Quantity | string>();
const MEMO_LIMIT = 4096;

const MAX: Quantity = Object.freeze({ nanos: MAX_NANOS });
const MIN: Quantity = Object.freeze({ nanos: -MAX_NANOS });

/** Wraps nanos in a quantity, capping the magnitude. */
function quantity(nanos: bigint): Quantity {
  if (nanos > MAX_NANOS) return MAX;
  if (nanos < -MAX_NANOS) return MIN;
  return nanos === 0n ? ZERO : Object.freeze({ nanos });
}

/** Shows a raw value in an error message, short and without ever throwing. */
function describeRaw(raw: unknown): string {
  if (typeof raw === 'string') {
    return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
  }
  if (typeof raw === 'number' || typeof raw === 'boolean' || typeof raw === 'bigint') {
    return String(raw);
  }
  if (raw === null || raw === undefined) return String(raw);
  if (Array.isArray(raw)) return 'a list';
  return typeof raw === 'object' ? 'an object' : `a ${typeof raw}`;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Fast path for the forms nearly every manifest uses: up to 15 integer digits and one of a
 * few suffixes ("100m", "500Mi", "2", "4Gi"). Returns undefined when the form is anything else.
 */
function parseFast(s: string): Quantity | undefined {
  const n = s.length;
  if (n === 0 || n > 17) return undefined;
  let i = 0;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  if (i === 0 || i > 15) return undefined;
  const perUnit = FAST_SUFFIX_NANOS.get(i === n ? '' : s.slice(i));
  if (perUnit === undefined) return undefined;
  return quantity(BigInt(Number.parseInt(s.slice(0, i), 10)) * perUnit);
}

/** Parses the general grammar. `s` is already trimmed and non-empty. Returns a reason on error. */
function parseGeneral(s: string): Quantity | string {
  const n = s.length;
  let i = 0;
  let negative = false;
  if (s[0] === '+' || s[0] === '-') {
    negative = s[0] === '-';
    i = 1;
  }
  const intStart = i;
  while (i < n && isDigit(s.charCodeAt(i))) i++;
  const intDigits = s.slice(intStart, i);
  let fracDigits = '';
  if (s[i] === '.') {
    const fracStart = ++i;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
    fracDigits = s.slice(fracStart, i);
  }
  if (intDigits.length + fracDigits.length === 0) return 'no digits';
  const suffix = s.slice(i);
  let exp10: number;
  let exp2 = 0;
  const known = SUFFIXES.get(suffix);
  if (known !== undefined) {
    [exp10, exp2] = known;
  } else if (/^[eE][+-]?[0-9]+$/.test(suffix)) {
    // Beyond ±(length + 100) the exponent can only mean "capped" or "rounds up to one
    // nano"; clamping it there keeps the arithmetic below small without changing results.
    const bound = n + 100;
    exp10 = Math.max(-bound, Math.min(bound, Number(suffix.slice(1))));
  } else {
    return `unknown suffix ${describeRaw(suffix)}`;
  }
  const digits = (intDigits + fracDigits).replace(/^0+/, '');
  if (digits.length === 0) return ZERO;
  // value = digits × 10^scale nanos × 2^exp2
  const scale = exp10 - fracDigits.length + 9;
  const magnitude = digits.length + scale + exp2 * LOG10_2;
  let nanos: bigint;
  if (magnitude > MAX_NANOS_DIGITS + 1) {
    nanos = MAX_NANOS;
  } else if (magnitude < -1) {
    nanos = 1n; // a positive amount below one nano rounds up to one nano, as in Kubernetes
  } else {
    const m = BigInt(digits) << BigInt(exp2);
    if (scale >= 0) {
      nanos = m * 10n ** BigInt(scale);
    } else {
      const d = 10n ** BigInt(-scale);
      nanos = (m + d - 1n) / d;
    }
  }
  return quantity(negative ? -nanos : nanos);
}

/** Parses a raw value, returning the quantity or the reason it is not one. */
function parseRaw(raw: unknown): Quantity | string {
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return 'not a finite number';
    // An integral float is taken at its exact value (2^60 is 2^60, not String()'s digits).
    if (Number.isInteger(raw)) return quantity(BigInt(raw) * NANOS_PER_UNIT);
    // String() of any other finite number is in the grammar ("1.5", "5e-7").
    return parseGeneral(String(raw));
  }
  if (typeof raw !== 'string') return `expected a string or a number, got ${describeRaw(raw)}`;
  const cached = memo.get(raw);
  if (cached !== undefined) return cached;
  const s = raw.trim();
  const r = parseFast(s) ?? (s.length === 0 ? 'empty' : parseGeneral(s));
  // Manifests repeat the same few short strings; a bounded memo of a pure function is safe.
  if (raw.length <= 32) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(raw, r);
  }
  return r;
}

/** The raw value for an error message: shown when it is a string or number, else omitted. */
function shown(raw: unknown): string {
  return typeof raw === 'string' || typeof raw === 'number' ? ` ${describeRaw(raw)}` : '';
}

/**
 * Parses a Kubernetes quantity: a string in the resource.Quantity grammar (optional sign,
 * decimal number, then an SI suffix n/u/m/k/M/G/T/P/E, a binary suffix Ki…Ei, or a decimal
 * exponent e±N), or a finite JSON number. Leading/trailing whitespace is ignored, as in
 * Kubernetes' JSON decoding. Never throws: anything else is an error value.
 */
export function parseQuantity(raw: unknown): ParsedQuantity {
  const r = parseRaw(raw);
  if (typeof r === 'string') return { ok: false, error: `invalid quantity${shown(raw)}: ${r}` };
  return { ok: true, q: r };
}

/**
 * Parses a quantity found at a manifest field path, for use in explanations. Negative amounts
 * are errors here: no request, overhead or allocatable may be negative. Errors read like
 * `invalid quantity "abc" at spec.containers[1].resources.requests.cpu: no digits`.
 */
export function parseQuantityAt(raw: unknown, path: string): ParsedQuantity {
  const r = parseRaw(raw);
  if (typeof r === 'string') {
    return { ok: false, error: `invalid quantity${shown(raw)} at ${path}: ${r}` };
  }
  if (r.nanos < 0n) return { ok: false, error: `negative quantity ${describeRaw(raw)} at ${path}` };
  return { ok: true, q: r };
}

/** Divides, rounding the magnitude up (away from zero), as Kubernetes' ScaledValue does. */
function divideAwayFromZero(n: bigint, d: bigint): bigint {
  if (n >= 0n) return (n + d - 1n) / d;
  return -((-n + d - 1n) / d);
}

/**
 * The quantity in thousandths, rounded up away from zero and saturated at ±2^63: kube's
 * MilliValue() (saturating since kubernetes#141305; earlier releases wrapped). Used for CPU.
 * Exact: a number up to 2^53 − 1, a bigint beyond.
 */
export function toMilli(q: Quantity): Amount {
  return saturateInt64(divideAwayFromZero(q.nanos, NANOS_PER_MILLI));
}

/**
 * The quantity in whole units, rounded up away from zero and saturated at ±2^63: kube's
 * Value() (saturating since kubernetes#141305). Used for memory, storage, pods and extended
 * resources: "1.5" bytes is 2, "100m" bytes is 1, "16Ei" is 2^63 − 1. Exact (see toMilli).
 */
export function toUnits(q: Quantity): Amount {
  return saturateInt64(divideAwayFromZero(q.nanos, NANOS_PER_UNIT));
}

/** Nanos to thousandths, as {@link toMilli} (for sums of quantities). */
export function nanosToMilli(nanos: bigint): Amount {
  return toMilli({ nanos });
}

/** Nanos to whole units, as {@link toUnits} (for sums of quantities). */
export function nanosToUnits(nanos: bigint): Amount {
  return toUnits({ nanos });
}
