// Kubernetes' CEL quantity library (quantity(), isQuantity(), compareTo, add, ...) for DRA device selectors.
//
// Values follow k8s.io/apimachinery's ParseQuantity: the same grammar and error texts, the
// value rounded up (away from zero) to a whole nano, binary-suffixed values capped at 2^63 − 1.
// Differences, by design: isInteger()/asInteger() look at the value, not at kube's internal
// representation (kube answers false for "1.0" or "1000m", whose int64 form keeps a negative
// scale; berth answers true); decimal exponents are clamped to ±400 so that "1e999999999"
// cannot allocate a huge number (kube keeps them exact).
import type { Environment } from '@marcbachmann/cel-js';
import { functionDefiner } from './cel-define.ts';

/** The opaque CEL type name kube gives quantities. */
export const quantityTypeName = 'kubernetes.Quantity';

const NANOS_PER_UNIT = 1_000_000_000n;
const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
const EXPONENT_CLAMP = 400;

/** kube's ParseQuantity error texts. */
export const quantityErrors = {
  formatWrong:
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  suffix: "unable to parse quantity's suffix",
  notInteger: 'cannot convert value to integer',
} as const;

/** A quantity inside CEL: its exact value in nano-units. */
export class CelQuantity {
  constructor(readonly nanos: bigint) {}

  /** -1, 0 or 1, as kube's Quantity.Cmp. */
  compare(other: CelQuantity): bigint {
    if (this.nanos === other.nanos) return 0n;
    return this.nanos > other.nanos ? 1n : -1n;
  }
}

/** Decimal SI suffixes → power of ten. */
const DECIMAL: ReadonlyMap<string, number> = new Map([
  ['', 0],
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
/** Binary SI suffixes → power of two. */
const BINARY: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);

/** The parts of a quantity string, split as kube's parseQuantityString does. */
interface QuantityParts {
  negative: boolean;
  digits: string;
  fractionLength: number;
  suffix: string;
}

/** Splits `sign digits [. digits] suffix`; the suffix must match `[eEinumkKMGTP]*[-+]?[0-9]*`. */
function splitQuantity(s: string): QuantityParts | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/s.exec(s);
  if (m === null) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = m;
  if (!/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) return undefined;
  return {
    negative: sign === '-',
    digits: whole + fraction,
    fractionLength: fraction.length,
    suffix,
  };
}

/** Suffix → [power of ten, power of two, capped], or undefined for an unknown suffix. */
function interpretSuffix(suffix: string): [number, number, boolean] | undefined {
  const dec = DECIMAL.get(suffix);
  if (dec !== undefined) return [dec, 0, false];
  const bin = BINARY.get(suffix);
  if (bin !== undefined) return [0, bin, true];
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    if (!/^[+-]?[0-9]+$/.test(suffix.slice(1))) return undefined;
    const exp = Number(suffix.slice(1));
    return [Math.max(-EXPONENT_CLAMP, Math.min(EXPONENT_CLAMP, exp)), 0, false];
  }
  return undefined;
}

/** Parses a quantity as kube's `quantity()` does: the value, or kube's error text. */
export function parseCelQuantity(s: string): CelQuantity | { error: string } {
  if (s.length === 0) return { error: quantityErrors.formatWrong };
  const parts = splitQuantity(s);
  if (parts === undefined) return { error: quantityErrors.formatWrong };
  const interpreted = interpretSuffix(parts.suffix);
  if (interpreted === undefined) return { error: quantityErrors.suffix };
  const [exp10, exp2, capped] = interpreted;
  const mantissa = BigInt(parts.digits === '' ? '0' : parts.digits) << BigInt(exp2);
  const scale = exp10 - parts.fractionLength + 9;
  let nanos: bigint;
  if (scale >= 0) {
    nanos = mantissa * 10n ** BigInt(scale);
  } else {
    const d = 10n ** BigInt(-scale);
    nanos = (mantissa + d - 1n) / d; // kube rounds a non-zero value up to a whole nano
  }
  if (capped && nanos > MAX_INT64 * NANOS_PER_UNIT) nanos = MAX_INT64 * NANOS_PER_UNIT;
  return new CelQuantity(parts.negative ? -nanos : nanos);
}

/** The whole-unit value when it is an integer that fits int64, else undefined. */
function asInt64(q: CelQuantity): bigint | undefined {
  if (q.nanos % NANOS_PER_UNIT !== 0n) return undefined;
  const v = q.nanos / NANOS_PER_UNIT;
  return v >= MIN_INT64 && v <= MAX_INT64 ? v : undefined;
}

function toQuantity(s: string): CelQuantity {
  const q = parseCelQuantity(s);
  if (q instanceof CelQuantity) return q;
  throw new Error(q.error);
}

/** Registers the quantity type, `quantity()`, `isQuantity()`, `sign()` and the Quantity methods. */
export function registerQuantityLibrary(env: Environment): void {
  const Q = quantityTypeName;
  env.registerType(Q, CelQuantity);
  env.registerOperator(`${Q} == ${Q}`, (a: CelQuantity, b: CelQuantity) => a.nanos === b.nanos);
  const fn = functionDefiner(env);
  fn('quantity', ['string'], Q, (s: string) => toQuantity(s));
  fn('isQuantity', ['string'], 'bool', (s: string) => parseCelQuantity(s) instanceof CelQuantity);
  // kube declares sign as a global function (cel.Overload), not a member.
  fn('sign', [Q], 'int', (q: CelQuantity) => q.compare(new CelQuantity(0n)));
  const unit = (delta: bigint) => new CelQuantity(delta * NANOS_PER_UNIT);
  const methods: [string, string[], string, (...args: never[]) => unknown][] = [
    ['isGreaterThan', [Q], 'bool', (a: CelQuantity, b: CelQuantity) => a.compare(b) === 1n],
    ['isLessThan', [Q], 'bool', (a: CelQuantity, b: CelQuantity) => a.compare(b) === -1n],
    ['compareTo', [Q], 'int', (a: CelQuantity, b: CelQuantity) => a.compare(b)],
    ['asApproximateFloat', [], 'double', (q: CelQuantity) => Number(q.nanos) / 1e9],
    ['isInteger', [], 'bool', (q: CelQuantity) => asInt64(q) !== undefined],
    ['asInteger', [], 'int', (q: CelQuantity) => asInt64(q) ?? fail(quantityErrors.notInteger)],
    ['add', [Q], Q, (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.nanos + b.nanos)],
    ['add', ['int'], Q, (a: CelQuantity, b: bigint) => new CelQuantity(a.nanos + unit(b).nanos)],
    ['sub', [Q], Q, (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.nanos - b.nanos)],
    ['sub', ['int'], Q, (a: CelQuantity, b: bigint) => new CelQuantity(a.nanos - unit(b).nanos)],
  ];
  for (const [name, params, returnType, handler] of methods)
    fn(name, params, returnType, handler, Q);
}

function fail(message: string): never {
  throw new Error(message);
}
