// Sums up end-to-end bench runs: min and median per scheduler, and berth ÷ kube-scheduler.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../test/e2e/support/paths.ts';
import { type Latency, latency } from '../support/measure.ts';
import type { SchedulerCost } from './proc-stats.ts';
import type { SchedulerName } from './schedulers.ts';

/** One figure of a scenario, where to find it in a run and which way is better. */
export interface Figure<R> {
  label: string;
  unit: string;
  of: (run: R) => number;
  better: 'higher' | 'lower';
}

/** What a run that starts its scheduler on pods already there reports (plain or DRA). */
export interface BatchFigures extends SchedulerCost {
  scheduler: SchedulerName;
  podsPerSecFromStart: number;
  podsPerSecAfterFirstBind: number;
  firstBindS: number;
}

/** The scheduler's CPU per pod, as a figure of any run that measures it. */
export function cpuPerPodFigure<R extends { cpuMsPerPod: number }>(): Figure<R> {
  return { label: 'scheduler CPU per pod', unit: 'ms', of: (r) => r.cpuMsPerPod, better: 'lower' };
}

/** The scheduler's peak RSS, as a figure of any run that measures it. */
export function peakRssFigure<R extends { peakRssMiB: number }>(): Figure<R> {
  return { label: 'peak RSS', unit: 'MiB', of: (r) => r.peakRssMiB, better: 'lower' };
}

/**
 * The figures of a batch-like run: pods/s from start (labelled `fromStart`) and after the
 * first bind, the first bind, then `middle` (e.g. when the clock stopped), then CPU per pod,
 * apiserver CPU and peak RSS.
 */
export function batchFigures<R extends BatchFigures>(
  middle: Figure<R>[],
  fromStart = 'pods/s from start',
): Figure<R>[] {
  return [
    { label: fromStart, unit: 'pods/s', of: (r) => r.podsPerSecFromStart, better: 'higher' },
    {
      label: 'pods/s after 1st bind',
      unit: 'pods/s',
      of: (r) => r.podsPerSecAfterFirstBind,
      better: 'higher',
    },
    { label: 'first bind', unit: 's', of: (r) => r.firstBindS, better: 'lower' },
    ...middle,
    cpuPerPodFigure(),
    {
      label: 'apiserver CPU',
      unit: 's',
      of: (r) => r.cpuS['kube-apiserver'] ?? Number.NaN,
      better: 'lower',
    },
    peakRssFigure(),
  ];
}

/**
 * Writes `result` as JSON to bench/results/PREFIX-TIME.json and bench/results/PREFIX.json
 * (the latest); returns the first path.
 */
export function writeResults(prefix: string, result: unknown): string {
  const dir = join(repoRoot, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(dir, `${prefix}-${stamp}.json`);
  const text = `${JSON.stringify(result, null, 2)}\n`;
  writeFileSync(file, text);
  writeFileSync(join(dir, `${prefix}.json`), text);
  return file;
}

/** Min, median and max of one figure over a scheduler's runs. */
export interface Spread {
  min: number;
  median: number;
  max: number;
  runs: number[];
}

/** A figure's spread for both schedulers and the ratio of their medians. */
export interface FigureSummary {
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  berth: Spread;
  kube: Spread;
  /** berth's median ÷ kube-scheduler's median. */
  ratio: number;
  /** The null binder's spread and berth's and kube-scheduler's medians ÷ its median, when it ran. */
  nullBinder?: { spread: Spread; berth: number; kube: number };
}

function median(sorted: readonly number[]): number {
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const r = (x: number) => +x.toFixed(3);
  return {
    min: r(sorted[0] ?? Number.NaN),
    median: r(median(sorted)),
    max: r(sorted[sorted.length - 1] ?? Number.NaN),
    runs: values,
  };
}

/** Summarises `figures` over the runs of each scheduler. */
export function summarise<R extends { scheduler: SchedulerName }>(
  runs: readonly R[],
  figures: readonly Figure<R>[],
): FigureSummary[] {
  const of = (name: SchedulerName) => runs.filter((r) => r.scheduler === name);
  return figures.map((f) => {
    const berth = spread(of('berth').map(f.of));
    const kube = spread(of('kube-scheduler').map(f.of));
    const nulls = of('null-binder').map(f.of);
    const nb = nulls.length === 0 ? undefined : spread(nulls);
    const over = (x: Spread, y: Spread) => +(x.median / y.median).toFixed(2);
    return {
      label: f.label,
      unit: f.unit,
      better: f.better,
      berth,
      kube,
      ratio: over(berth, kube),
      ...(nb === undefined
        ? {}
        : { nullBinder: { spread: nb, berth: over(berth, nb), kube: over(kube, nb) } }),
    };
  });
}

const fmt = (x: number) =>
  !Number.isFinite(x) ? String(x) : Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2);

/**
 * A text table: figure, berth min/median, kube-scheduler min/median, ratio of medians; when
 * the null binder ran, its min/median and berth's and kube's medians ÷ its median too.
 */
export function formatSummary(title: string, rows: readonly FigureSummary[]): string {
  const withNull = rows.some((r) => r.nullBinder !== undefined);
  const nullHead = withNull
    ? ` ${'null min / median'.padStart(20)} ${'berth/null'.padStart(10)} ${'kube/null'.padStart(10)}`
    : '';
  const lines = [
    title,
    `  ${'figure'.padEnd(30)} ${'berth min / median'.padStart(20)} ${'kube min / median'.padStart(20)} ${'berth/kube'.padStart(11)}${nullHead}`,
  ];
  for (const r of rows) {
    const cell = (s: Spread) => `${fmt(s.min)} / ${fmt(s.median)}`.padStart(20);
    const good = r.better === 'higher' ? r.ratio >= 1 : r.ratio <= 1;
    const n = r.nullBinder;
    const nullCells =
      n === undefined
        ? ''
        : ` ${cell(n.spread)} ${`${n.berth.toFixed(2)}×`.padStart(10)} ${`${n.kube.toFixed(2)}×`.padStart(10)}`;
    lines.push(
      `  ${`${r.label} (${r.unit})`.padEnd(30)} ${cell(r.berth)} ${cell(r.kube)} ${`${r.ratio.toFixed(2)}×${good ? '' : ' !'}`.padStart(11)}${nullCells}`,
    );
  }
  return lines.join('\n');
}

/** One scheduler's per-pod samples of a steady run, or of all its runs pooled. */
export interface PooledSamples {
  /** Each pod's end-to-end latency (Infinity when never seen bound). */
  latencyMs: number[];
  /** Each audited pod's scheduler share. */
  schedulerShareMs: number[];
  /** Each audited pod's create answered → bind answered. */
  createToBoundMs: number[];
}

/** The pooled samples' percentiles, one {@link Latency} per kind of sample. */
export type PooledLatencies = { [K in keyof PooledSamples]: Latency };

/** Percentiles of the pooled samples of both schedulers and the ratio of their p99s. */
export interface PooledSummary {
  berth: PooledLatencies;
  kube: PooledLatencies;
  /** berth's pooled p99 ÷ kube-scheduler's, per kind of sample. */
  p99Ratio: { [K in keyof PooledSamples]: number };
}

const sampleKinds = ['latencyMs', 'createToBoundMs', 'schedulerShareMs'] as const;

/** Empty samples to pool into. */
export function noSamples(): PooledSamples {
  return { latencyMs: [], schedulerShareMs: [], createToBoundMs: [] };
}

/** Adds one run's samples, of every kind, to `into`. */
export function poolInto(into: PooledSamples, run: PooledSamples): void {
  for (const kind of sampleKinds) for (const x of run[kind]) into[kind].push(x);
}

/**
 * Pools each scheduler's samples over its runs: one p99 from every pod of every run is
 * steadier than the median of per-run p99s, which a single slow second can move.
 */
export function summarisePooled(berth: PooledSamples, kube: PooledSamples): PooledSummary {
  const perKind = <T>(f: (kind: keyof PooledSamples) => T) =>
    Object.fromEntries(sampleKinds.map((kind) => [kind, f(kind)])) as {
      [K in keyof PooledSamples]: T;
    };
  const b = perKind((kind) => latency(berth[kind]));
  const k = perKind((kind) => latency(kube[kind]));
  return {
    berth: b,
    kube: k,
    p99Ratio: perKind((kind) => +(b[kind].p99 / k[kind].p99).toFixed(2)),
  };
}

const pooledLabels: Record<keyof PooledSamples, string> = {
  latencyMs: 'pooled latency p99 (ms)',
  createToBoundMs: 'pooled create→bind p99 (ms)',
  schedulerShareMs: 'pooled sched. share p99 (ms)',
};

/** Lines under a steady scenario's table: each pooled p99 for both and their ratio. */
export function formatPooled(p: PooledSummary): string {
  const cell = (l: Latency) => `${fmt(l.p99)} (${l.n} pods)`.padStart(20);
  return sampleKinds
    .map(
      (kind) =>
        `  ${pooledLabels[kind].padEnd(30)} ${cell(p.berth[kind])} ${cell(p.kube[kind])} ${`${p.p99Ratio[kind].toFixed(2)}×`.padStart(11)}`,
    )
    .join('\n');
}
