// A small seeded pseudo-random generator (mulberry32): the core's only source of randomness.

/** Deterministic random source. The same seed always yields the same sequence. */
export interface Rng {
  /** Next value, uniformly in [0, 2^32). */
  nextUint32(): number;
  /** Next value, uniformly in [0, 1). */
  nextFloat(): number;
  /** Next integer, uniformly in [0, n). `n` must be ≥ 1. */
  nextInt(n: number): number;
}

/** Creates a mulberry32 generator from a 32-bit seed. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  const nextUint32 = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return {
    nextUint32,
    nextFloat: () => nextUint32() / 4294967296,
    nextInt: (n) => Math.floor((nextUint32() / 4294967296) * n),
  };
}
