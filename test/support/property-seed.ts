// The fast-check seed of a property file: FC_SEED, else fixed under CI, else a fresh one per run.

/** A property file's seed and the rule that chose it. */
export interface PropertySeed {
  seed: number;
  source: 'FC_SEED' | 'CI' | 'clock';
}

/**
 * Chooses the seed of a property file. `FC_SEED` replays one run; under CI (`CI` set to
 * anything but `false`, `0` or empty) the file's own `ciSeed` keeps every CI run on the same
 * cases, so a rare seed cannot fail one run and pass the next; elsewhere the clock gives
 * each local run new cases to explore. fast-check prints the seed of a failing run, and
 * `FC_SEED=<it>` replays it.
 */
export function propertySeed(
  ciSeed: number,
  env: Readonly<Record<string, string | undefined>> = process.env,
  nowMs: () => number = Date.now,
): PropertySeed {
  const given = env.FC_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got '${given}'`);
    return { seed, source: 'FC_SEED' };
  }
  const ci = env.CI;
  if (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0') {
    return { seed: ciSeed, source: 'CI' };
  }
  return { seed: nowMs() % 2 ** 31, source: 'clock' };
}
