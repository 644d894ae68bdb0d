// Scheduling throughput benchmark: SchedulingBasic-like workloads on the simulated cluster.
// Prints pods/s, decision latency p50/p99 (placed and unschedulable pods apart) and peak RSS
// beside the committed baseline (bench/baselines/); writes fresh runs to bench/results/.
//
//   npm run bench:scheduling                          every scenario once
//   npm run bench:scheduling -- --runs 3 basic-500n-5000p   one scenario, three runs, median reported
// (`npm run bench` runs this and then the other in-process benchmarks, with their defaults.)
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateWorkload } from '../src/adapters/sim/workload.ts';
import { defaultConfig } from '../src/core/config.ts';
import type { Envelope } from '../src/events/types.ts';
import type { PodObject } from '../src/model/objects.ts';
import { simulate } from '../src/runtime/simulate.ts';
import { BaselineCheck, baselineFlags } from './support/baseline.ts';
import { parseRunsAndNames } from './support/measure.ts';

interface Scenario {
  name: string;
  nodes: number;
  pods: number;
  /** Every `unschedulableEvery`-th pod asks for more cpu than any node has (8 cpu > 4). */
  unschedulableEvery?: number;
}

const scenarios: Scenario[] = [
  { name: 'basic-500n-5000p', nodes: 500, pods: 5_000 },
  { name: 'basic-5000n-10000p', nodes: 5_000, pods: 10_000 },
  { name: 'unschedulable-5000n-5000p', nodes: 5_000, pods: 5_000, unschedulableEvery: 10 },
];

/** Decision latency of one kind of cycle, in ms. */
interface Latency {
  cycles: number;
  p50: number;
  p99: number;
}

/** What one run of one scenario measured (the JSON written per scenario). */
interface Result {
  scenario: string;
  nodes: number;
  pods: number;
  scheduled: number;
  unschedulable: number;
  elapsedMs: number;
  podsPerSecond: number;
  decisionLatencyMs: { p50: number; p99: number };
  /** Cycles that placed a pod vs cycles that found no node (retries included). */
  byOutcome?: { placed: Latency; unschedulable: Latency };
  peakRssMiB: number;
  node: string;
  decisionDigest: string;
  /** With `--runs N`: pods/s of every run (this result is the median run). */
  runsPodsPerSecond?: number[];
  /** CPU time of the whole simulated run (user + system, ms). */
  cpuMs?: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}

function latency(durations: number[]): Latency {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    cycles: sorted.length,
    p50: +percentile(sorted, 50).toFixed(4),
    p99: +percentile(sorted, 99).toFixed(4),
  };
}

/** Makes every `every`-th pod (from the first) request 8 cpu, more than any 4-cpu node has. */
function oversize(pods: PodObject[], every: number): void {
  for (let i = 0; i < pods.length; i += every) {
    const container = (pods[i] as PodObject).spec?.containers?.[0];
    const requests = container?.resources?.requests;
    if (requests !== undefined) requests.cpu = '8';
  }
}

/**
 * Runs one scenario in this process. Each cycle's wall time is filed under the outcome of
 * the decision it made (seen through `inspect`), so placed and unschedulable pods are
 * measured apart.
 */
function runScenario(s: Scenario): Result {
  const { nodes, pods } = generateWorkload(s.nodes, s.pods, 42);
  if (s.unschedulableEvery !== undefined) oversize(pods, s.unschedulableEvery);
  const cycles: number[] = [];
  const placed: number[] = [];
  const unplaced: number[] = [];
  let outcome: 'placed' | 'unschedulable' | undefined;
  // simulate pushes each cycle's duration right after the cycle's decisions were applied.
  const byOutcome = Object.assign([] as number[], {
    push(ms: number): number {
      cycles.push(ms);
      if (outcome === 'placed') placed.push(ms);
      else if (outcome === 'unschedulable') unplaced.push(ms);
      outcome = undefined;
      return cycles.length;
    },
  });
  const inspect = (phase: 'before' | 'after', env: Envelope) => {
    if (phase !== 'before') return;
    if (env.event.type === 'PodReserved') outcome = 'placed';
    else if (env.event.type === 'PodUnschedulable') outcome = 'unschedulable';
  };
  const cpuStart = process.cpuUsage();
  const summary = simulate({
    nodes,
    pods,
    seed: 42,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    cycleDurations: s.unschedulableEvery === undefined ? cycles : byOutcome,
    ...(s.unschedulableEvery === undefined ? {} : { inspect }),
  });
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
  process.stdout.write(`cpu ${s.name}: ${cpuMs} ms\n`);
  const all = latency(cycles);
  return {
    scenario: s.name,
    nodes: s.nodes,
    pods: s.pods,
    scheduled: summary.scheduled,
    unschedulable: summary.unschedulable,
    elapsedMs: summary.elapsedMs,
    podsPerSecond: summary.podsPerSecond,
    decisionLatencyMs: { p50: all.p50, p99: all.p99 },
    ...(s.unschedulableEvery === undefined
      ? {}
      : { byOutcome: { placed: latency(placed), unschedulable: latency(unplaced) } }),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    node: process.version,
    decisionDigest: summary.decisionDigest,
    cpuMs,
  };
}

/** `fresh (baseline)` when a baseline exists, else `fresh`. */
function beside(fresh: number, base: number | undefined): string {
  return base === undefined ? String(fresh) : `${fresh} (${base})`;
}

function report(r: Result, base: Result | undefined): string {
  const lines = [
    `${r.scenario}: ${beside(r.podsPerSecond, base?.podsPerSecond)} pods/s` +
      (r.runsPodsPerSecond === undefined ? '' : ` [runs: ${r.runsPodsPerSecond.join(' · ')}]`),
    `  decision p50 ${beside(r.decisionLatencyMs.p50, base?.decisionLatencyMs.p50)} ms, ` +
      `p99 ${beside(r.decisionLatencyMs.p99, base?.decisionLatencyMs.p99)} ms; ` +
      `peak RSS ${beside(r.peakRssMiB, base?.peakRssMiB)} MiB; ` +
      `${r.scheduled}/${r.pods} scheduled in ${r.elapsedMs} ms`,
  ];
  for (const kind of ['placed', 'unschedulable'] as const) {
    const l = r.byOutcome?.[kind];
    if (l === undefined) continue;
    const b = base?.byOutcome?.[kind];
    lines.push(
      `  ${kind.padEnd(13)} ${l.cycles} cycles, p50 ${beside(l.p50, b?.p50)} ms, ` +
        `p99 ${beside(l.p99, b?.p99)} ms`,
    );
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[2] === '--child') {
  // Child mode: one scenario per process so peak RSS belongs to that scenario alone.
  const scenario = scenarios.find((s) => s.name === process.argv[3]);
  if (scenario === undefined) throw new Error(`unknown scenario ${process.argv[3]}`);
  process.stdout.write(`${JSON.stringify(runScenario(scenario))}\n`);
} else {
  const flags = baselineFlags(process.argv.slice(2));
  const { runs, names } = parseRunsAndNames(
    flags.rest,
    scenarios.map((s) => s.name),
  );
  const baselines = new BaselineCheck('scheduling', flags);
  const self = fileURLToPath(import.meta.url);
  const outDir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(outDir, { recursive: true });
  for (const s of scenarios) {
    if (names.length > 0 && !names.includes(s.name)) continue;
    const results: Result[] = [];
    for (let i = 0; i < runs; i++) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--child', s.name], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      for (const line of out.trim().split('\n').slice(0, -1)) process.stdout.write(`${line}\n`);
      results.push(JSON.parse(out.trim().split('\n').pop() as string) as Result);
    }
    const sorted = [...results].sort((a, b) => a.podsPerSecond - b.podsPerSecond);
    const median = sorted[(sorted.length - 1) >> 1] as Result;
    if (runs > 1) median.runsPodsPerSecond = results.map((r) => r.podsPerSecond);
    writeFileSync(`${outDir}${s.name}.json`, `${JSON.stringify(median, null, 2)}\n`);
    process.stdout.write(report(median, baselines.baseline(s.name)?.detail as Result | undefined));
    baselines.check(s.name, {
      shape: `${s.nodes}n ${s.pods}p`,
      figures: [
        { name: 'pods/s', value: median.podsPerSecond },
        // Pods per CPU-second of the whole run: what a core of its own would give.
        { name: 'pods/cpu-s', value: Math.round(median.scheduled / ((median.cpuMs ?? 0) / 1000)) },
      ],
      decisionDigest: median.decisionDigest,
      detail: median,
    });
  }
  baselines.finish();
}
