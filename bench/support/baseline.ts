// Regression check of the in-process benches: fresh figures against committed bench/baselines/<bench>-<scenario>.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How far (in %) a figure may fall below its baseline before it is a REGRESSION. This
 * machine's two cores are shared: single runs of one commit lie 0.65–1.1× their median
 * (bench/results/2026-11-28-issue34/summary.txt: basic-5000n-10000p 4,805–8,036 pods/s
 * around 7,342; unschedulable 2,448–4,055 around 3,572), so 40 % lets that noise through
 * and still catches a 2× regression, let alone issue 38's 4× one of replay.
 */
export const defaultTolerancePct = 40;

/** One measured figure; `lowerIsBetter` for latencies and memory (default: higher is better). */
export interface Figure {
  name: string;
  value: number;
  lowerIsBetter?: boolean;
}

/** A committed baseline: one scenario of one bench. */
export interface Baseline {
  bench: string;
  scenario: string;
  /** What the figures depend on beyond the code (sizes, scale): compared only when equal. */
  shape: string;
  figures: Record<string, number>;
  decisionDigest?: string;
  /** The commit measured and when; `note` says on what and how. */
  commit: string;
  date: string;
  note?: string;
  /** The bench's own full result, for benches that print it beside the fresh one. */
  detail?: unknown;
}

/** What a bench measured of one scenario. */
export interface Fresh {
  shape: string;
  figures: Figure[];
  decisionDigest?: string;
  detail?: unknown;
}

/**
 * The lines comparing `fresh` with `base`: a `REGRESSION:` line for each figure worse than
 * its baseline by more than `tolerancePct`, and for a decision digest that differs; a
 * note when there is no baseline or it was measured on another shape. Pure.
 */
export function compareWithBaseline(
  scenario: string,
  fresh: Fresh,
  base: Baseline | undefined,
  tolerancePct: number = defaultTolerancePct,
): { regressions: string[]; notes: string[] } {
  if (base === undefined) return { regressions: [], notes: [`${scenario}: no baseline`] };
  if (base.shape !== fresh.shape)
    return {
      regressions: [],
      notes: [`${scenario}: baseline is of shape ${base.shape}, not ${fresh.shape}: not compared`],
    };
  const regressions: string[] = [];
  for (const f of fresh.figures) {
    const b = base.figures[f.name];
    if (b === undefined || b === 0) continue;
    const change = ((f.value - b) / b) * 100;
    const worse = f.lowerIsBetter === true ? change : -change;
    if (worse > tolerancePct) {
      const signed = `${change < 0 ? '−' : '+'}${Math.abs(change).toFixed(0)} %`;
      regressions.push(
        `REGRESSION: ${scenario} ${f.name} ${f.value} vs baseline ${b} ` +
          `(${signed}, tolerance ${tolerancePct} %)`,
      );
    }
  }
  const digest = fresh.decisionDigest;
  if (digest !== undefined && base.decisionDigest !== undefined && digest !== base.decisionDigest)
    regressions.push(
      `REGRESSION: ${scenario} decisionDigest ${digest.slice(0, 12)} vs baseline ` +
        `${base.decisionDigest.slice(0, 12)} (the decisions differ)`,
    );
  return { regressions, notes: [] };
}

/** `--update-baseline` and `--strict`, taken out of `argv`; the rest is the bench's own. */
export function baselineFlags(argv: readonly string[]): {
  update: boolean;
  strict: boolean;
  rest: string[];
} {
  const flags = new Set(['--update-baseline', '--strict']);
  return {
    update: argv.includes('--update-baseline'),
    strict: argv.includes('--strict'),
    rest: argv.filter((a) => !flags.has(a)),
  };
}

/** `bench/baselines/<bench>-<scenario>.json` (characters other than [A-Za-z0-9._-] as `_`). */
export function baselinePath(bench: string, scenario: string): string {
  const file = `${bench}-${scenario}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  return fileURLToPath(new URL(`../baselines/${file}.json`, import.meta.url));
}

/** The committed baseline of a scenario, if there is one. */
export function readBaseline(bench: string, scenario: string): Baseline | undefined {
  const file = baselinePath(bench, scenario);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Baseline) : undefined;
}

/** The checkout's commit (short), with `+dirty` when the work tree has changes. */
function commitOf(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  try {
    const dirty = git('status', '--porcelain', '--untracked-files=no') === '' ? '' : '+dirty';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty}`;
  } catch {
    return 'unknown';
  }
}

/** Tracks one bench's checks: prints them, writes baselines on `--update-baseline`. */
export class BaselineCheck {
  private regressions = 0;

  constructor(
    private readonly bench: string,
    private readonly flags: { update: boolean; strict: boolean },
    private readonly tolerancePct: number = defaultTolerancePct,
  ) {}

  /** The committed baseline of `scenario` (for printing beside the fresh figures). */
  baseline(scenario: string): Baseline | undefined {
    return readBaseline(this.bench, scenario);
  }

  /** Compares `fresh` with the baseline and prints the outcome; writes it with `--update-baseline`. */
  check(scenario: string, fresh: Fresh): void {
    const base = readBaseline(this.bench, scenario);
    const { regressions, notes } = compareWithBaseline(scenario, fresh, base, this.tolerancePct);
    for (const line of notes) process.stdout.write(`  baseline: ${line}\n`);
    for (const line of regressions) process.stdout.write(`  ${line}\n`);
    this.regressions += regressions.length;
    if (!this.flags.update) return;
    const written: Baseline = {
      bench: this.bench,
      scenario,
      shape: fresh.shape,
      figures: Object.fromEntries(fresh.figures.map((f) => [f.name, f.value])),
      ...(fresh.decisionDigest === undefined ? {} : { decisionDigest: fresh.decisionDigest }),
      commit: commitOf(),
      date: new Date().toISOString(),
      note: `written by --update-baseline on ${process.version}; single run on a shared 2-core machine`,
      ...(fresh.detail === undefined ? {} : { detail: fresh.detail }),
    };
    const file = baselinePath(this.bench, scenario);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`);
    process.stdout.write(`  baseline written: ${baselinePath(this.bench, scenario)}\n`);
  }

  /** Prints the count of regressions; sets a failing exit code only with `--strict`. */
  finish(): void {
    if (this.regressions === 0) return;
    process.stdout.write(
      `${this.bench}: ${this.regressions} REGRESSION line(s) against bench/baselines/` +
        `${this.flags.strict ? ' (--strict: exit code 1)' : ''}\n`,
    );
    if (this.flags.strict) process.exitCode = 1;
  }
}
