// Consumable capacity: what a request consumes of a device's capacities and whether it still fits.

import type { DeviceCapacity } from '../../../model/dra-types.ts';
import { type Amount, amountOf, formatAmount } from './quantities.ts';
import type { CapacityAmounts } from './types.ts';

/** A fatal capacity problem (kube aborts the allocation); callers add the claim and device. */
export class CapacityProblem extends Error {}

const NANOS_PER_UNIT = 1_000_000_000n;
const NANOS_PER_MILLI = 1_000_000n;
const MAX_INT64 = 2n ** 63n - 1n;
const notRepresentable = "capacity request cannot be represented in the device's range arithmetic";

/** kube's Value()/MilliValue(): divided, rounded up away from zero. */
function scaled(nanos: bigint, per: bigint): bigint {
  return nanos >= 0n ? (nanos + per - 1n) / per : -((-nanos + per - 1n) / per);
}

/** The milli value when it is exact and fits int64 (kube's safeMilliValue), else undefined. */
function exactMilli(nanos: bigint): bigint | undefined {
  if (nanos % NANOS_PER_MILLI !== 0n) return undefined;
  const milli = nanos / NANOS_PER_MILLI;
  return milli > MAX_INT64 || milli < -MAX_INT64 - 1n ? undefined : milli;
}

type Range = NonNullable<NonNullable<DeviceCapacity['requestPolicy']>['validRange']>;

function rangeAmounts(range: Range, name: string) {
  const get = (raw: string | undefined, what: string) =>
    raw === undefined ? undefined : amountOf(raw, `capacity ${JSON.stringify(name)}: ${what}`);
  return { min: get(range.min, 'min'), max: get(range.max, 'max'), step: get(range.step, 'step') };
}

/** kube's useMilli (DRAFractionalCapacityRange is on in 1.37): min, max, step all exact millis. */
function useMilli(r: ReturnType<typeof rangeAmounts>): boolean {
  for (const q of [r.min, r.max, r.step])
    if (q !== undefined && exactMilli(q.nanos) === undefined) return false;
  return r.step === undefined || (exactMilli(r.step.nanos) as bigint) >= 1n;
}

function roundUpRange(requested: Amount, range: Range, name: string): Amount {
  const r = rangeAmounts(range, name);
  const min = r.min as Amount;
  if (requested.nanos < min.nanos) return min;
  if (r.step === undefined) return requested;
  const shown = formatAmount(requested);
  const fail = (why: string) =>
    new CapacityProblem(`capacity ${JSON.stringify(name)}: ${notRepresentable}: ${why}`);
  const milli = useMilli(r);
  let req: bigint;
  if (milli) {
    const m = exactMilli(requested.nanos);
    if (m === undefined) throw fail(`request ${shown} is not a representable milli value`);
    req = m;
  } else {
    if (requested.nanos > MAX_INT64 * NANOS_PER_UNIT)
      throw fail(`request ${shown} exceeds MaxInt64`);
    req = scaled(requested.nanos, NANOS_PER_UNIT);
  }
  const per = milli ? NANOS_PER_MILLI : NANOS_PER_UNIT;
  const step = scaled(r.step.nanos, per);
  const lo = scaled(min.nanos, per);
  if (step === 0n) return requested; // API validation forbids a zero step
  const added = req - lo;
  const n = added / step + (added % step !== 0n ? 1n : 0n);
  if ((milli || lo >= 0n) && n > (MAX_INT64 - lo) / step) {
    throw fail(
      milli
        ? `rounding request ${shown} up to the next step passes the milli-value range`
        : `rounding request ${shown} up to the next step passes MaxInt64`,
    );
  }
  return { nanos: (lo + step * n) * per, format: r.step.format };
}

/** What a request consumes of one capacity: kube's calculateConsumedCapacity. */
function consumedOf(requested: string | undefined, cap: DeviceCapacity, name: string): Amount {
  const policy = cap.requestPolicy;
  if (requested === undefined) {
    return amountOf(policy?.default ?? cap.value, `capacity ${JSON.stringify(name)}`);
  }
  const amount = amountOf(requested, `capacity ${JSON.stringify(name)}: request`);
  if (policy === undefined) return amount;
  if (policy.validRange?.min !== undefined) return roundUpRange(amount, policy.validRange, name);
  if (policy.validValues !== undefined) {
    for (const v of policy.validValues) {
      const valid = amountOf(v, `capacity ${JSON.stringify(name)}: valid value`);
      if (amount.nanos <= valid.nanos) return valid;
    }
  }
  return amount;
}

/** kube's violatesPolicy (the default is always allowed). */
function violatesPolicy(consumed: bigint, cap: DeviceCapacity, name: string): boolean {
  const policy = cap.requestPolicy;
  if (policy === undefined) return false;
  if (policy.default !== undefined && amountOf(policy.default, name).nanos === consumed)
    return false;
  if (policy.validRange !== undefined) {
    const r = rangeAmounts(policy.validRange, name);
    if (r.max !== undefined && consumed > r.max.nanos) return true;
    if (r.step === undefined) return false;
    const milli = useMilli(r);
    let req: bigint;
    if (milli) {
      const m = exactMilli(consumed);
      if (m === undefined) return true;
      req = m;
    } else req = scaled(consumed, NANOS_PER_UNIT);
    const per = milli ? NANOS_PER_MILLI : NANOS_PER_UNIT;
    const step = scaled(r.step.nanos, per);
    return step !== 0n && (req - scaled(r.min?.nanos ?? 0n, per)) % step !== 0n;
  }
  const values = policy.validValues ?? [];
  return values.length > 0 && !values.some((v) => amountOf(v, name).nanos === consumed);
}

/** The capacity a request consumes of each of the device's capacities (all of them). */
export function consumedCapacity(
  requests: Readonly<Record<string, string>> | undefined,
  capacity: Readonly<Record<string, DeviceCapacity>>,
): Map<string, Amount> {
  const out = new Map<string, Amount>();
  for (const [name, cap] of Object.entries(capacity)) {
    const requested = requests && Object.hasOwn(requests, name) ? requests[name] : undefined;
    const consumed = consumedOf(requested, cap, name);
    if (consumed.nanos < 0n) {
      throw new CapacityProblem(`capacity ${JSON.stringify(name)}: capacity value is negative`);
    }
    out.set(name, consumed);
  }
  return out;
}

/**
 * kube's CmpRequestOverCapacity: false when the device lacks a requested capacity, a consumed
 * amount breaks the capacity's policy, or allocated + allocating + consumed exceeds it.
 * Throws {@link CapacityProblem} for an unrepresentable or negative amount.
 */
export function fitsCapacity(
  allocated: CapacityAmounts | undefined,
  requests: Readonly<Record<string, string>> | undefined,
  capacity: Readonly<Record<string, DeviceCapacity>> | undefined,
  allocating: CapacityAmounts | undefined,
): boolean {
  const caps = capacity ?? {};
  for (const name of Object.keys(requests ?? {})) if (!Object.hasOwn(caps, name)) return false;
  const consumed = consumedCapacity(requests, caps);
  for (const [name, cap] of Object.entries(caps)) {
    const amount = (consumed.get(name) as Amount).nanos;
    if (violatesPolicy(amount, cap, name)) return false;
    const total = (allocated?.get(name) ?? 0n) + amount + (allocating?.get(name) ?? 0n);
    if (total > amountOf(cap.value, `capacity ${JSON.stringify(name)}`).nanos) return false;
  }
  return true;
}
