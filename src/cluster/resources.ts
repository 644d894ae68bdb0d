// Small helpers for resource vectors: zero values, in-place add/subtract, equality.
import { type Amount, addAmounts, subAmounts } from './amount.ts';
import { emptyRecord } from './fields.ts';

/**
 * A vector of resource amounts in integer base units: CPU in millicores, memory and
 * ephemeral storage in bytes (rounded up, as Kubernetes' `Value()` does), extended
 * resources (e.g. `nvidia.com/gpu`, `hugepages-2Mi`) in their own integer units.
 */
export interface Resources {
  milliCPU: Amount;
  memory: Amount;
  ephemeralStorage: Amount;
  /** Extended/scalar resources by name. Empty object when there are none. */
  scalar: Record<string, Amount>;
}

/** The fixed fields of {@link Resources} (everything else lives in `scalar`). */
export type ResourceField = 'milliCPU' | 'memory' | 'ephemeralStorage';

/** Kubernetes resource names that map to a fixed field of {@link Resources}. */
export const RESOURCE_FIELDS: ReadonlyMap<string, ResourceField> = new Map([
  ['cpu', 'milliCPU'],
  ['memory', 'memory'],
  ['ephemeral-storage', 'ephemeralStorage'],
]);

/** A fresh all-zero resource vector (its `scalar` map has no prototype). */
export function zeroResources(): Resources {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, scalar: emptyRecord() };
}

/**
 * Adds `sign × r` into `into`, in place, exactly (see `addAmounts`). Scalar entries that
 * return to zero are deleted, so a node's `requested.scalar` only names resources some
 * charged pod asks for.
 */
export function addResources(into: Resources, r: Resources, sign: 1 | -1): void {
  const step = sign === 1 ? addAmounts : subAmounts;
  into.milliCPU = step(into.milliCPU, r.milliCPU);
  into.memory = step(into.memory, r.memory);
  into.ephemeralStorage = step(into.ephemeralStorage, r.ephemeralStorage);
  for (const name in r.scalar) {
    const next = step(into.scalar[name] ?? 0, r.scalar[name] ?? 0);
    if (next === 0) delete into.scalar[name];
    else into.scalar[name] = next;
  }
}

/** Non-zero cpu and memory requests (kube's NonZeroRequested), as pods and nodes keep them. */
export interface NonZeroRequests {
  milliCPU: Amount;
  memory: Amount;
}

/** Adds `sign × r` into `into`, in place, exactly. */
export function addNonZero(
  into: NonZeroRequests,
  r: Readonly<NonZeroRequests>,
  sign: 1 | -1,
): void {
  const step = sign === 1 ? addAmounts : subAmounts;
  into.milliCPU = step(into.milliCPU, r.milliCPU);
  into.memory = step(into.memory, r.memory);
}

/** True when both vectors hold the same amounts (a missing scalar entry counts as zero). */
export function resourcesEqual(a: Resources, b: Resources): boolean {
  if (a.milliCPU !== b.milliCPU || a.memory !== b.memory) return false;
  if (a.ephemeralStorage !== b.ephemeralStorage) return false;
  for (const name in a.scalar) if ((a.scalar[name] ?? 0) !== (b.scalar[name] ?? 0)) return false;
  for (const name in b.scalar) if ((a.scalar[name] ?? 0) !== (b.scalar[name] ?? 0)) return false;
  return true;
}
