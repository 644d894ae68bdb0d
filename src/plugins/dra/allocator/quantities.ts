// Quantities as the allocator reads and writes them: exact nanos in, kube's canonical strings out.

import { parseQuantity } from '../../../cluster/quantity.ts';
import { AllocatorError } from './types.ts';

/** A quantity's format, which decides how kube prints it (resource.Format). */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** An exact quantity with the format kube keeps beside it. */
export interface Amount {
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

const NANOS = 1_000_000_000n;
const decimalSuffixes = new Map<number, string>([
  [-9, 'n'],
  [-6, 'u'],
  [-3, 'm'],
  [0, ''],
  [3, 'k'],
  [6, 'M'],
  [9, 'G'],
  [12, 'T'],
  [15, 'P'],
  [18, 'E'],
]);
const binarySuffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** The format kube records for a quantity string: by its suffix. */
export function formatOf(raw: string): QuantityFormat {
  const suffix = raw.trim().replace(/^[+-]?[0-9.]*/, '');
  if (/^[KMGTPE]i$/.test(suffix)) return 'BinarySI';
  if (/^[eE]/.test(suffix)) return 'DecimalExponent';
  return 'DecimalSI';
}

/** Parses a quantity string; an unparsable one is a fatal error naming `what`. */
export function amountOf(raw: string, what: string): Amount {
  const parsed = parseQuantity(raw);
  if (!parsed.ok) throw new AllocatorError(`${what}: ${parsed.error}`);
  return { nanos: parsed.q.nanos, format: formatOf(raw) };
}

/** The exact nanos of a quantity string (see {@link amountOf}). */
export function nanosOf(raw: string, what: string): bigint {
  return amountOf(raw, what).nanos;
}

function decimalString(nanos: bigint, format: QuantityFormat): string {
  let mantissa = nanos;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  // kube lowers the exponent to a multiple of three (int64Amount.AsCanonicalBytes).
  const rest = exponent % 3;
  if (rest === 1 || rest === -2) {
    mantissa *= 10n;
    exponent -= 1;
  } else if (rest === 2 || rest === -1) {
    mantissa *= 100n;
    exponent -= 2;
  }
  const si = format === 'DecimalSI' ? decimalSuffixes.get(exponent) : undefined;
  const suffix = si ?? (exponent === 0 ? '' : `e${exponent}`);
  return `${mantissa}${suffix}`;
}

/** Prints an amount as kube's Quantity.String() does (CanonicalizeBytes). */
export function formatAmount(a: Amount): string {
  if (a.nanos === 0n) return '0';
  const small = a.nanos > -1024n * NANOS && a.nanos < 1024n * NANOS;
  if (a.format !== 'BinarySI' || small || a.nanos % NANOS !== 0n) {
    return decimalString(a.nanos, a.format === 'BinarySI' ? 'DecimalSI' : a.format);
  }
  let units = a.nanos / NANOS;
  let times = 0;
  while (units % 1024n === 0n && times < binarySuffixes.length - 1) {
    units /= 1024n;
    times++;
  }
  return `${units}${binarySuffixes[times]}`;
}
