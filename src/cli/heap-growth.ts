// How far `berth run` lets V8's heap grow past its live data before a full collection.
import { setFlagsFromString } from 'node:v8';

/**
 * The default of `--heap-growth-percent`. V8's own policy lets the old generation grow to
 * up to 2–4× what the last full collection kept, so a scheduler whose live data is ~60 MiB
 * peaked at 240–260 MiB RSS while binding 5,000 pods; at 20 % it stays near 190 MiB, for a
 * few more full collections (each ~10–25 ms at that size).
 */
export const defaultHeapGrowthPercent = 20;

/** The V8 flag that sets the growth, or undefined for 0 (V8's own policy). */
export function heapGrowthFlag(percent: number): string | undefined {
  if (!Number.isInteger(percent) || percent < 0)
    throw new RangeError(`heap growth must be a whole percentage ≥ 0, not ${percent}`);
  return percent === 0 ? undefined : `--heap-growing-percent=${percent}`;
}

/**
 * Sets the growth for the rest of the process. V8 reads the flag at every full collection, so
 * setting it after start-up works; it is set after the bundle was compiled from its code
 * cache, whose check covers the V8 flags in force at compile time.
 */
export function applyHeapGrowth(percent: number): void {
  const flag = heapGrowthFlag(percent);
  if (flag !== undefined) setFlagsFromString(flag);
}
