// How far `berth run` lets V8's heap grow: past its live data before a full collection, and its young generation.
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

/**
 * The default of `--young-growth-factor`. V8 doubles the young generation's semi-spaces each
 * time a scavenge finds them full of survivors, up to 16 MiB each (32 MiB of RSS). At 1 they
 * keep their size: 1 MiB each, since bin/berth.js sets the factor to 1 before the bundle loads
 * (set here only, they had grown to 4 MiB by then). A steady 40 pods/s run peaked at 113 MiB
 * with V8's factor, 90 with 1 from here, 81 with 1 from the start; the batch of 3,000 pods on
 * 500 nodes kept its pods/s (794 and 778 vs 720 and 775) at 110 instead of 121–124 MiB.
 */
export const defaultYoungGrowthFactor = 1;

/** V8's own young-generation growth factor. */
export const v8YoungGrowthFactor = 2;

/** The V8 flag for a young-generation growth factor (V8's own is 2). */
export function youngGrowthFlag(factor: number): string {
  if (!Number.isInteger(factor) || factor < 1 || factor > 16)
    throw new RangeError(`young growth factor must be a whole number 1–16, not ${factor}`);
  return `--semi-space-growth-factor=${factor}`;
}

/**
 * Sets the young generation's growth factor for the rest of the process. V8 reads it each
 * time it grows the semi-spaces, so this works at run time (given as a node flag, next to
 * `--heap-growing-percent`, it did not take).
 */
export function applyYoungGrowth(factor: number): void {
  setFlagsFromString(youngGrowthFlag(factor));
}

/**
 * Gives V8 its own young-generation growth back, for the batch commands (`simulate`,
 * `replay`): bin/berth.js holds the young generation at its start-up size for `run`, and a
 * batch on a time budget is better served by V8's policy.
 */
export function releaseYoungGeneration(): void {
  applyYoungGrowth(v8YoungGrowthFactor);
}
