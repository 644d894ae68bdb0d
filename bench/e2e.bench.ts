// `npm run bench:e2e`: berth and kube-scheduler side by side on fresh real control planes.
import { type BatchResult, type BatchScenario, batchRun } from './e2e/batch-run.ts';
import {
  batchFigures,
  cpuPerPodFigure,
  type Figure,
  type FigureSummary,
  formatPooled,
  formatSummary,
  noSamples,
  type PooledSamples,
  type PooledSummary,
  peakRssFigure,
  poolInto,
  summarise,
  summarisePooled,
  writeResults,
} from './e2e/report.ts';
import { runOrder, type SchedulerName, withNullBinder } from './e2e/schedulers.ts';
import { type SteadyResult, type SteadyScenario, steadyRun } from './e2e/steady-run.ts';

const fast = { qps: 1000, burst: 2000 };
const kubeDefault = { qps: 50, burst: 100 };
/** scheduler_perf's client limits. */
const schedulerPerf = { qps: 5000, burst: 5000 };

/** kube's SchedulingBasic/5000Nodes_10000Pods (threshold 680 pods/s) at `limits`. */
const basic5000 = (name: string, limits: typeof fast, timeoutMs: number): BatchScenario => ({
  name,
  nodes: 5000,
  pods: 10_000,
  limits,
  timeoutMs,
  kubeShape: { initPods: 1000 },
});

const batchScenarios: BatchScenario[] = [
  { name: 'batch-500n-3000p', nodes: 500, pods: 3000, limits: fast, timeoutMs: 300_000 },
  { name: 'batch-2000n-5000p', nodes: 2000, pods: 5000, limits: fast, timeoutMs: 300_000 },
  basic5000('basic-5000n-10000p', schedulerPerf, 600_000),
  basic5000('basic-5000n-10000p-qps50', kubeDefault, 900_000),
  {
    // kube's SchedulingPodAntiAffinity/5000Nodes_2000Pods (threshold 180 pods/s).
    name: 'antiaffinity-5000n-2000p',
    nodes: 5000,
    pods: 2000,
    limits: schedulerPerf,
    timeoutMs: 600_000,
    kubeShape: { initPods: 1000, antiAffinity: true },
  },
  {
    // kube's TopologySpreading/5000Nodes_5000Pods (threshold 460 pods/s).
    name: 'spread-5000n-5000p',
    nodes: 5000,
    pods: 5000,
    limits: schedulerPerf,
    timeoutMs: 600_000,
    kubeShape: { initPods: 5000, spread: true },
  },
];

const steadyScenarios: SteadyScenario[] = [
  { name: 'steady-40ps-qps50', nodes: 500, perSecond: 40, seconds: 30, limits: kubeDefault },
  { name: 'steady-200ps-qps1000', nodes: 500, perSecond: 200, seconds: 20, limits: fast },
];

const batchFigureList = batchFigures<BatchResult>(
  [
    { label: 'pods/s bound', unit: 'pods/s', of: (r) => r.podsPerSecBound, better: 'higher' },
    { label: 'all bound', unit: 's', of: (r) => r.lastBindS, better: 'lower' },
    { label: 'all bound with Events', unit: 's', of: (r) => r.allDoneS, better: 'lower' },
  ],
  'pods/s bound+Events',
);

const steadyFigures: Figure<SteadyResult>[] = [
  { label: 'latency p50', unit: 'ms', of: (r) => r.latencyMs.p50, better: 'lower' },
  { label: 'latency p99', unit: 'ms', of: (r) => r.latencyMs.p99, better: 'lower' },
  { label: 'latency max', unit: 'ms', of: (r) => r.latencyMs.max, better: 'lower' },
  {
    label: 'scheduler share p50',
    unit: 'ms',
    of: (r) => r.schedulerShareMs.p50,
    better: 'lower',
  },
  {
    label: 'scheduler share p99',
    unit: 'ms',
    of: (r) => r.schedulerShareMs.p99,
    better: 'lower',
  },
  {
    label: 'create→bind answered p99',
    unit: 'ms',
    of: (r) => r.createToBoundMs.p99,
    better: 'lower',
  },
  cpuPerPodFigure(),
  {
    label: 'apiserver CPU per pod',
    unit: 'ms',
    of: (r) => r.controlPlaneCpuMsPerPod['kube-apiserver'] ?? Number.NaN,
    better: 'lower',
  },
  peakRssFigure(),
];

interface Options {
  runs: number;
  only: string[];
  /** Smoke-test sizes replacing every chosen scenario's own. */
  nodes?: number;
  pods?: number;
  init?: number;
}

const usage = 'bench:e2e [--runs N] [--nodes N] [--pods N] [--init N] [SCENARIO…]';

function parseArgs(argv: string[]): Options {
  const opts: Options = { runs: 3, only: [] };
  const count = (flag: string, value: string | undefined) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a whole number ≥ 1`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--runs') opts.runs = count(arg, argv[++i]);
    else if (arg === '--nodes') opts.nodes = count(arg, argv[++i]);
    else if (arg === '--pods') opts.pods = count(arg, argv[++i]);
    else if (arg === '--init') opts.init = count(arg, argv[++i]);
    else if (arg.startsWith('-')) throw new Error(`unknown flag ${arg} (usage: ${usage})`);
    else opts.only.push(arg);
  }
  const known = [...batchScenarios, ...steadyScenarios].map((s) => s.name);
  for (const name of opts.only)
    if (!known.includes(name))
      throw new Error(`unknown scenario ${name}; known: ${known.join(', ')}`);
  return opts;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const wanted = (name: string) => opts.only.length === 0 || opts.only.includes(name);
  const resized = <S extends { nodes: number }>(s: S) =>
    opts.nodes === undefined ? s : { ...s, nodes: opts.nodes };
  const batch = batchScenarios
    .filter((s) => wanted(s.name))
    .map((s) => resized(opts.pods === undefined ? s : { ...s, pods: opts.pods }))
    .map((s) =>
      opts.init === undefined || s.kubeShape === undefined
        ? s
        : { ...s, kubeShape: { ...s.kubeShape, initPods: opts.init } },
    );
  const steady = steadyScenarios.filter((s) => wanted(s.name)).map(resized);
  const batchRuns = new Map<string, BatchResult[]>(batch.map((s) => [s.name, []]));
  const steadyRuns = new Map<string, SteadyResult[]>(steady.map((s) => [s.name, []]));
  const emptySamples = (): Record<SchedulerName, PooledSamples> => ({
    berth: noSamples(),
    'kube-scheduler': noSamples(),
    'null-binder': noSamples(),
  });
  const steadySamples = new Map(steady.map((s) => [s.name, emptySamples()]));
  for (let run = 0; run < opts.runs; run++) {
    for (const scenario of batch)
      for (const scheduler of runOrder(run, withNullBinder)) {
        const r = await batchRun(scenario, scheduler);
        batchRuns.get(scenario.name)?.push(r);
        log(
          `${scenario.name} run ${run + 1} ${scheduler}: bound ${r.podsPerSecBound} pods/s ` +
            `(last ${r.lastBindS} s), bound with Events ${r.podsPerSecFromStart} pods/s ` +
            `(last ${r.allDoneS} s; Event lag p99 ${r.eventLagMs.p99} ms), ` +
            `${r.podsPerSecAfterFirstBind} after the first bind (${r.firstBindS} s), ` +
            `CPU ${r.cpuMsPerPod} ms/pod, apiserver ${r.cpuS['kube-apiserver']} s, peak RSS ${r.peakRssMiB} MiB; ` +
            `${r.placementsChecked} placements checked`,
        );
      }
    for (const scenario of steady)
      for (const scheduler of runOrder(run, withNullBinder)) {
        const { result: r, samples } = await steadyRun(scenario, scheduler);
        steadyRuns.get(scenario.name)?.push(r);
        const pooled = steadySamples.get(scenario.name)?.[scheduler];
        if (pooled !== undefined) poolInto(pooled, samples);
        log(
          `${scenario.name} run ${run + 1} ${scheduler}: ${r.bound}/${r.created} bound at ${r.arrivalRate}/s, ` +
            `latency p50 ${r.latencyMs.p50} p99 ${r.latencyMs.p99} max ${r.latencyMs.max} ms, ` +
            `scheduler share p50 ${r.schedulerShareMs.p50} p99 ${r.schedulerShareMs.p99} ms ` +
            `(${r.schedulerShareMs.n} pods), create→bind answered p99 ${r.createToBoundMs.p99} ms, ` +
            `CPU ${r.cpuMsPerPod} ms/pod, apiserver ${r.controlPlaneCpuMsPerPod['kube-apiserver']} ms/pod, ` +
            `peak RSS ${r.peakRssMiB} MiB` +
            (r.unseenBound > 0 ? ` (${r.unseenBound} bound but not seen by the watch)` : ''),
        );
      }
  }
  const summaries: Record<string, FigureSummary[]> = {};
  for (const s of batch)
    summaries[s.name] = summarise(batchRuns.get(s.name) ?? [], batchFigureList);
  const pooled: Record<string, PooledSummary> = {};
  for (const s of steady) {
    summaries[s.name] = summarise(steadyRuns.get(s.name) ?? [], steadyFigures);
    const samples = steadySamples.get(s.name) ?? emptySamples();
    pooled[s.name] = summarisePooled(samples.berth, samples['kube-scheduler']);
  }
  const result = {
    at: new Date().toISOString(),
    runs: opts.runs,
    scenarios: { batch, steady },
    results: { batch: Object.fromEntries(batchRuns), steady: Object.fromEntries(steadyRuns) },
    summaries,
    pooled,
  };
  const file = writeResults('e2e', result);
  log('');
  log(`${opts.runs} run(s) each, rotating which scheduler goes first; results in ${file}`);
  for (const [name, rows] of Object.entries(summaries)) {
    log(`\n${formatSummary(name, rows)}`);
    const p = pooled[name];
    if (p !== undefined) log(formatPooled(p));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:e2e failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exitCode = 1;
});
