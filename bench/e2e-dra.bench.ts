// `npm run bench:e2e:dra`: kube scheduler_perf's SchedulingWithResourceClaimTemplate end to end, berth beside kube-scheduler on fresh real control planes.
import { type DraResult, type DraScenario, draRun } from './e2e/dra-run.ts';
import { batchFigures, formatSummary, summarise, writeResults } from './e2e/report.ts';
import { runOrder } from './e2e/schedulers.ts';
import { perPod } from './e2e/write-audit.ts';
import { kubeDraThreshold } from './support/dra-shape.ts';

const figures = batchFigures<DraResult>([
  { label: 'all done', unit: 's', of: (r) => r.allDoneS, better: 'lower' },
  { label: 'attempt p50', unit: 'ms', of: (r) => r.attemptMs.p50, better: 'lower' },
  { label: 'attempt p99', unit: 'ms', of: (r) => r.attemptMs.p99, better: 'lower' },
  { label: 'Event lag p99', unit: 'ms', of: (r) => r.eventLagMs.p99, better: 'lower' },
]);

/** kube's scheduler_perf workloads of this test case, by nodes/pods. */
const kubeWorkloads: Record<string, string> = {
  '200/1000': "kube's 2000pods_200nodes",
  '500/2500': "kube's 5000pods_500nodes, CI threshold 56 pods/s in-process",
};

interface Options {
  runs: number;
  nodes: number;
  pods: number;
}

const usage = 'usage: bench:e2e:dra [--runs N] [--nodes N] [--pods N]';

function parseArgs(argv: string[]): Options {
  // kube's 2000pods_200nodes: 200 nodes, 1,000 init claims and 1,000 measured pods. Its
  // 5000pods_500nodes (--nodes 500 --pods 2500) took ~20 minutes a pair on the loaded 2-core
  // machine; this one ~4.
  const opts: Options = { runs: 3, nodes: 200, pods: 1000 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const key = ({ '--runs': 'runs', '--nodes': 'nodes', '--pods': 'pods' } as const)[
      flag as '--runs'
    ];
    const n = Number(argv[++i]);
    if (key === undefined) throw new Error(`unknown argument ${flag} (${usage})`);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a whole number ≥ 1`);
    opts[key] = n;
  }
  return opts;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const scenario: DraScenario = {
    name: `dra-${opts.nodes}n-${opts.pods}p`,
    nodes: opts.nodes,
    initClaims: opts.pods,
    pods: opts.pods,
    limits: { qps: 1000, burst: 2000 },
    controllerQps: 1000,
    timeoutMs: 600_000,
  };
  const workload = kubeWorkloads[`${opts.nodes}/${opts.pods}`] ?? 'a scaled shape';
  log(
    `SchedulingWithResourceClaimTemplate (${workload}) end to end: ${scenario.nodes} kwok nodes with DRA, a ResourceSlice ` +
      `of 10 devices each, a DeviceClass, ${scenario.initClaims} init claims allocated first-fit, a ` +
      `ResourceClaimTemplate, ${scenario.pods} measured pods whose claims the resourceclaim controller ` +
      `made before the scheduler starts; client qps ${scenario.limits.qps}/burst ${scenario.limits.burst}; ` +
      `${opts.runs} run(s) each, alternating which goes first`,
  );
  const runs: DraResult[] = [];
  for (let run = 0; run < opts.runs; run++)
    for (const scheduler of runOrder(run)) {
      const r = await draRun(scenario, scheduler);
      runs.push(r);
      log(
        `run ${run + 1} ${scheduler}: ${r.podsPerSecFromStart} pods/s from start ` +
          `(${r.podsPerSecAfterFirstBind} after the first bind at ${r.firstBindS} s), all done ${r.allDoneS} s (last bind ` +
          `${r.lastBindS} s, claim ${r.lastClaimS} s, Event ${r.lastEventS} s; Event lag p50 ` +
          `${r.eventLagMs.p50} p99 ${r.eventLagMs.p99} ms), attempt p50 ` +
          `${r.attemptMs.p50} p99 ${r.attemptMs.p99} ms (${r.attemptMs.n}), CPU ${r.cpuMsPerPod} ms/pod, ` +
          `apiserver ${r.cpuS['kube-apiserver']} s, peak RSS ${r.peakRssMiB} MiB (set-up ${r.setupS} s)\n` +
          `  its writes per pod: ${perPod(r.writes[scheduler], r.pods)}`,
      );
    }
  const summary = summarise(runs, figures);
  const result = {
    at: new Date().toISOString(),
    runs: opts.runs,
    scenario,
    results: runs,
    summary,
  };
  const file = writeResults('e2e-dra', result);
  log(`\nresults in ${file}\n${formatSummary(scenario.name, summary)}`);
  const ratio = summary[0]?.ratio ?? Number.NaN;
  log(
    `berth/kube-scheduler pods/s (medians, from start, all work seen): ${ratio.toFixed(2)}×; ` +
      `kube 1.37's in-process CI threshold for 5000pods_500nodes: ${kubeDraThreshold} pods/s`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:e2e:dra failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exitCode = 1;
});
