// In-process kube 1.37.2 scheduler_perf workloads (performance-config.yaml shapes) printed beside each workload's threshold.
// Each workload runs in a process of its own: its nodes, its init pods, then its measured
// pods (and churn), from kube's templates (bench/support/scheduler-perf-workloads.ts). It
// prints the measured pods/s beside kube's threshold, the ratio, and the issue-38 goal (10×).
//
//   npx tsx bench/scheduler-perf.bench.ts                          every workload once
//   npx tsx bench/scheduler-perf.bench.ts TopologySpreading/5000Nodes_5000Pods   one workload
//   BERTH_BENCH_SCALE=0.1 npx tsx bench/scheduler-perf.bench.ts     every count × 0.1 (development)
//   … --update-baseline / --strict     write bench/baselines/ / exit 1 on a REGRESSION line
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../src/core/config.ts';
import { simulate } from '../src/runtime/simulate.ts';
import { BaselineCheck, baselineFlags } from './support/baseline.ts';
import { decisionWindow } from './support/decision-window.ts';
import { percentile } from './support/measure.ts';
import { buildWorkload } from './support/scheduler-perf-build.ts';
import { type Workload, workloads } from './support/scheduler-perf-workloads.ts';

/** The goal issue 38 sets in-process: this many times kube's threshold. */
const goal = 10;

/** What one run of one workload measured. */
export interface PerfResult {
  workload: string;
  scale: number;
  nodes: number;
  initPods: number;
  measurePods: number;
  churnTicks: number;
  measuredScheduled: number;
  measuredUnschedulable: number;
  podsPerSecond: number;
  /** Measured pods bound per second: the window extended to the last bind result ingested. */
  boundPerSecond: number;
  podsPerCpuSecond: number;
  threshold: number;
  timesThreshold: number;
  decisionP50Ms: number;
  decisionP99Ms: number;
  peakRssMiB: number;
  decisionDigest: string;
  missing?: string;
}

/** The scale factor for every count (`BERTH_BENCH_SCALE`, default 1). */
function scaleOf(): number {
  const raw = process.env.BERTH_BENCH_SCALE ?? '1';
  const s = Number(raw);
  if (!(s > 0 && s <= 1)) throw new Error(`BERTH_BENCH_SCALE must be in (0, 1], got ${raw}`);
  return s;
}

/** Runs one workload: the window runs from the first measured decision's cycle to the last. */
function run(w: Workload, scale: number): PerfResult {
  const built = buildWorkload(w, scale, defaultConfig.schedulerName);
  const window = decisionWindow((key) => key.startsWith(`${w.measure.namespace}/`));
  const summary = simulate({
    nodes: built.nodes,
    pods: built.pods,
    ...(built.objects === undefined ? {} : { objects: built.objects }),
    script: built.script,
    seed: 42,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    cycleDurations: window.cycles,
    inspect: window.inspect,
    // Churn pods that fit nowhere back off until the horizon: stop a minute after the last.
    horizonMs: built.lastScriptedMs + 60_000,
  });
  const sorted = [...window.durations].sort((a, b) => a - b);
  const podsPerSecond = window.podsPerSecond();
  const { scheduled, unschedulable } = window.counts();
  return {
    workload: w.name,
    scale,
    nodes: built.nodes.length,
    initPods: built.initPods,
    measurePods: built.measurePods,
    churnTicks: built.churnTicks,
    measuredScheduled: scheduled,
    measuredUnschedulable: unschedulable,
    podsPerSecond,
    boundPerSecond: window.boundPerSecond(),
    podsPerCpuSecond: window.podsPerCpuSecond(),
    threshold: w.threshold,
    timesThreshold: +(podsPerSecond / w.threshold).toFixed(1),
    decisionP50Ms: +percentile(sorted, 50).toFixed(3),
    decisionP99Ms: +percentile(sorted, 99).toFixed(3),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    decisionDigest: summary.decisionDigest,
    ...(w.churn?.missing === undefined ? {} : { missing: w.churn.missing }),
  };
}

/** Two lines per workload: the figure beside the threshold and the goal, then the details. */
export function report(r: PerfResult): string {
  const churn = r.churnTicks === 0 ? '' : `, ${r.churnTicks} churn ticks`;
  const scale = r.scale === 1 ? '' : ` [scale ${r.scale}]`;
  const lines = [
    `${r.workload}${scale}: ${r.podsPerSecond} pods/s — threshold ${r.threshold}: ` +
      `${r.timesThreshold}×threshold (goal ${goal}× = ${goal * r.threshold})`,
    `  ${r.nodes} nodes, ${r.initPods} init + ${r.measurePods} measured pods${churn}; ` +
      `measured ${r.measuredScheduled} scheduled, ${r.measuredUnschedulable} unschedulable; ` +
      `${r.podsPerCpuSecond} pods/cpu-s; ${r.boundPerSecond} bound/s; decision p50 ${r.decisionP50Ms} ms, ` +
      `p99 ${r.decisionP99Ms} ms; peak RSS ${r.peakRssMiB} MiB`,
  ];
  if (r.measuredScheduled !== r.measurePods)
    lines.push(`  NOT ALL MEASURED PODS PLACED: ${r.measuredScheduled}/${r.measurePods}`);
  if (r.missing !== undefined) lines.push(`  not simulated: ${r.missing}`);
  return `${lines.join('\n')}\n`;
}

if (process.argv[2] === '--child') {
  const w = workloads.find((x) => x.name === process.argv[3]);
  if (w === undefined) throw new Error(`unknown workload ${process.argv[3]}`);
  process.stdout.write(`${JSON.stringify(run(w, scaleOf()))}\n`);
} else {
  const flags = baselineFlags(process.argv.slice(2));
  const names = flags.rest;
  const baselines = new BaselineCheck('scheduler-perf', flags);
  for (const n of names)
    if (!workloads.some((w) => w.name === n))
      throw new Error(`unknown workload ${n}; known: ${workloads.map((w) => w.name).join(', ')}`);
  const self = fileURLToPath(import.meta.url);
  for (const w of workloads) {
    if (names.length > 0 && !names.includes(w.name)) continue;
    // One workload per process, so peak RSS belongs to that workload alone.
    const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--child', w.name], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    const r = JSON.parse(out.trim().split('\n').pop() as string) as PerfResult;
    process.stdout.write(report(r));
    baselines.check(w.name, {
      shape: `scale ${r.scale}`,
      figures: [
        { name: 'pods/s', value: r.podsPerSecond },
        { name: 'pods/cpu-s', value: r.podsPerCpuSecond },
        { name: 'bound pods/s', value: r.boundPerSecond },
      ],
      decisionDigest: r.decisionDigest,
    });
  }
  baselines.finish();
}
