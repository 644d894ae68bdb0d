// Scheduling throughput benchmark: SchedulingBasic-like workloads on the simulated cluster.
// Prints pods/s, per-pod decision latency p50/p99 and peak RSS; writes bench/results/*.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateWorkload } from '../src/adapters/sim/workload.ts';
import { defaultConfig } from '../src/core/config.ts';
import { simulate } from '../src/runtime/simulate.ts';

interface Scenario {
  name: string;
  nodes: number;
  pods: number;
}

const scenarios: Scenario[] = [
  { name: 'basic-500n-5000p', nodes: 500, pods: 5_000 },
  { name: 'basic-5000n-10000p', nodes: 5_000, pods: 10_000 },
];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}

/** Runs one scenario in this process and returns its figures. */
function runScenario(s: Scenario) {
  const { nodes, pods } = generateWorkload(s.nodes, s.pods, 42);
  const cycles: number[] = [];
  const summary = simulate({
    nodes,
    pods,
    seed: 42,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    cycleDurations: cycles,
  });
  cycles.sort((a, b) => a - b);
  return {
    scenario: s.name,
    nodes: s.nodes,
    pods: s.pods,
    scheduled: summary.scheduled,
    unschedulable: summary.unschedulable,
    elapsedMs: summary.elapsedMs,
    podsPerSecond: summary.podsPerSecond,
    decisionLatencyMs: {
      p50: +percentile(cycles, 50).toFixed(4),
      p99: +percentile(cycles, 99).toFixed(4),
    },
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    node: process.version,
    decisionDigest: summary.decisionDigest,
  };
}

const only = process.argv[2];
if (only !== undefined) {
  // Child mode: one scenario per process so peak RSS belongs to that scenario alone.
  const scenario = scenarios.find((s) => s.name === only);
  if (scenario === undefined) throw new Error(`unknown scenario ${only}`);
  process.stdout.write(`${JSON.stringify(runScenario(scenario))}\n`);
} else {
  const self = fileURLToPath(import.meta.url);
  const outDir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(outDir, { recursive: true });
  for (const s of scenarios) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', self, s.name], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    const result = JSON.parse(out.trim().split('\n').pop() as string);
    writeFileSync(`${outDir}${s.name}.json`, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `${s.name.padEnd(22)} ${String(result.podsPerSecond).padStart(7)} pods/s  ` +
        `p50 ${result.decisionLatencyMs.p50} ms  p99 ${result.decisionLatencyMs.p99} ms  ` +
        `peak RSS ${result.peakRssMiB} MiB  (${result.scheduled}/${result.pods} scheduled in ${result.elapsedMs} ms)\n`,
    );
  }
}
