// Compiled runner (A) against XState's transition() (B), alternated in one sitting, on the scheduling and replay benches.
//
//   npx tsx bench/machine-runner.bench.ts --runs 3                      every scenario
//   npx tsx bench/machine-runner.bench.ts --runs 3 basic-500n-5000p retry-50n-500p
//
// Each measurement is a child process of the benchmark it belongs to (scheduling.bench.ts or
// replay.bench.ts in `--child` mode), with bench/support/machine-runner-env.ts preloaded to
// pick the runner. A replay log is recorded once per scenario (compiled runner) and replayed
// by both. Runs alternate A B A B …; the medians, their ratio and whether the decisions
// matched are printed and written to bench/results/machine-runner.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MachineRunnerKind } from '../src/core/machine-runner.ts';
import { recordScenario, replayScenarios } from './support/replay-scenarios.ts';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const preload = here('./support/machine-runner-env.ts');
const kinds: readonly MachineRunnerKind[] = ['compiled', 'xstate'];

/** The scheduling bench's scenarios (pods/s); the replay bench's are in support/replay-scenarios.ts. */
const scheduling = ['basic-500n-5000p', 'basic-5000n-10000p', 'unschedulable-5000n-5000p'];

interface Sample {
  value: number;
  /** What the run decided (digest) or whether the replay matched its log. */
  check: string;
}

function child(kind: MachineRunnerKind, args: string[]): unknown {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--import', preload, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, BERTH_BENCH_MACHINE_RUNNER: kind },
  });
  return JSON.parse(out.trim().split('\n').pop() as string);
}

function schedulingSample(kind: MachineRunnerKind, name: string): Sample {
  const r = child(kind, [here('./scheduling.bench.ts'), '--child', name]) as {
    podsPerSecond: number;
    decisionDigest: string;
  };
  return { value: r.podsPerSecond, check: r.decisionDigest };
}

function replaySample(kind: MachineRunnerKind, path: string): Sample {
  const r = child(kind, [here('./replay.bench.ts'), '--child', 'replay', path]) as {
    events: number;
    ms: number;
    matches: boolean;
  };
  return { value: r.events / (r.ms / 1000), check: r.matches ? 'matches' : 'DIVERGED' };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1] as number;
};

/** Runs `measure` for A and B alternately `runs` times; prints and returns the comparison. */
function compare(
  name: string,
  unit: string,
  runs: number,
  measure: (k: MachineRunnerKind) => Sample,
) {
  const samples: Record<MachineRunnerKind, Sample[]> = { compiled: [], xstate: [] };
  for (let r = 0; r < runs; r++)
    for (const kind of kinds) {
      const s = measure(kind);
      samples[kind].push(s);
      console.log(`  ${name} run ${r + 1} ${kind}: ${Math.round(s.value)} ${unit} (${s.check})`);
    }
  const a = median(samples.compiled.map((s) => s.value));
  const b = median(samples.xstate.map((s) => s.value));
  const checks = new Set([...samples.compiled, ...samples.xstate].map((s) => s.check));
  console.log(
    `${name}: compiled ${Math.round(a)} ${unit}, xstate ${Math.round(b)} ${unit}, ` +
      `xstate/compiled ${(b / a).toFixed(3)}; checks ${[...checks].join(', ')}`,
  );
  return { name, unit, compiled: a, xstate: b, ratio: b / a, checks: [...checks], samples };
}

function main(): void {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--runs');
  const runs = at < 0 ? 3 : Number(argv[at + 1]);
  const names = argv.filter((a, i) => a !== '--runs' && i !== at + 1);
  const chosen = (n: string) => names.length === 0 || names.includes(n);
  console.log(
    `machine runner benchmark (node ${process.version}, ${runs} runs each, A B alternated)`,
  );
  const results = [];
  for (const name of scheduling.filter(chosen))
    results.push(compare(name, 'pods/s', runs, (k) => schedulingSample(k, name)));
  const dir = mkdtempSync(join(tmpdir(), 'berth-runner-bench-'));
  try {
    for (const s of replayScenarios.filter((r) => chosen(r.name))) {
      const path = join(dir, `${s.name}.jsonl`);
      recordScenario(s, path);
      results.push(compare(`replay ${s.name}`, 'events/s', runs, (k) => replaySample(k, path)));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  mkdirSync(here('./results/'), { recursive: true });
  writeFileSync(here('./results/machine-runner.json'), `${JSON.stringify(results, null, 2)}\n`);
}

main();
