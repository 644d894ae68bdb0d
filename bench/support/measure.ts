// What the in-process benches share: env knobs, latency percentiles, forced GC, MiB.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A whole-number env knob, `fallback` when unset; throws naming the variable otherwise. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got ${raw}`);
  return n;
}

/** The nearest-rank `p`th percentile of ascending `sorted` (0 when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}

/** Latency percentiles in ms, rounded to 0.01. */
export interface Latency {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The percentiles of `ms` (any order). */
export function latency(ms: readonly number[]): Latency {
  const s = [...ms].sort((a, b) => a - b);
  const r = (x: number) => +x.toFixed(2);
  return {
    n: s.length,
    p50: r(percentile(s, 50)),
    p90: r(percentile(s, 90)),
    p99: r(percentile(s, 99)),
    max: r(s[s.length - 1] ?? 0),
  };
}

/** Forces a full GC (v8 flag set at run time, so plain `npx tsx` works). */
export const gc: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/** Bytes as whole MiB. */
export const mib = (bytes: number) => Math.round(bytes / 2 ** 20);

/**
 * A bench's command line: `--runs N` (default 1) and the names of the scenarios to run,
 * each one of `known`; throws naming what it does not know.
 */
export function parseRunsAndNames(
  argv: readonly string[],
  known: readonly string[],
): { runs: number; names: string[] } {
  let runs = 1;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--runs') {
      runs = Number(argv[++i]);
      if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number ≥ 1');
    } else if (known.includes(a)) names.push(a);
    else throw new Error(`unknown scenario ${a}; known: ${known.join(', ')}`);
  }
  return { runs, names };
}
