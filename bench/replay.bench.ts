// Replay throughput benchmark: events/s reading a recorded log, and replaying it through the core.
// Each log is recorded once by the simulator into a temporary file; each measurement runs in a
// child process of its own (so peak RSS is that of the replay alone). Prints, per scenario:
// events/s of the reader alone (split, parse, integrity checks, line digest), of the full
// streaming replay (`berth replay`), and the share of replay time spent in the core.
//
//   npm run bench                                  (after the scheduling benchmark)
//   npx tsx bench/replay.bench.ts --runs 5 fit-200n-2000p
//   npx tsx bench/replay.bench.ts --sealed        (logs sealed with a key, verified on replay)
//   … --update-baseline / --strict     write bench/baselines/ / exit 1 on a REGRESSION line
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { LogReader } from '../src/events/reader.ts';
import { type SealKey, sealKey } from '../src/events/seal.ts';
import { readLogLines } from '../src/runtime/log-lines.ts';
import { replayLogFile } from '../src/runtime/replay-file.ts';
import { BaselineCheck, baselineFlags } from './support/baseline.ts';
import { recordScenario, replayScenarios } from './support/replay-scenarios.ts';

/** What a child measured over one log. */
interface Measurement {
  mode: 'read' | 'replay';
  events: number;
  ms: number;
  peakRssMiB: number;
  matches?: boolean;
  cpuMs?: number;
}

/** The key of `--sealed` runs (a benchmark's key: fixed, never a secret). */
const benchKey = sealKey(Buffer.alloc(32, 7));

function measure(mode: Measurement['mode'], path: string, key: SealKey | undefined): Measurement {
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  let events: number;
  let matches: boolean | undefined;
  if (mode === 'read') {
    const reader = new LogReader(key);
    readLogLines(path, {
      line: (text) => void reader.line(text),
      lastLine: (text) => void reader.lastLine(text),
    });
    reader.end();
    events = reader.lastSeq;
  } else {
    const result = replayLogFile(path, key);
    matches = result.matches;
    events = result.lastSeq;
  }
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  return { mode, events, ms, peakRssMiB, matches, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function child(mode: Measurement['mode'], path: string, sealed: boolean): Measurement {
  const self = fileURLToPath(import.meta.url);
  const args = [self, '--child', mode, path, ...(sealed ? ['--sealed'] : [])];
  const out = execFileSync(process.execPath, [...process.execArgv, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out) as Measurement;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function parseArgs(argv: string[]): { runs: number; names: string[]; sealed: boolean } {
  let runs = 3;
  let sealed = false;
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--runs') runs = Number(argv[++i]);
    else if (a === '--sealed') sealed = true;
    else names.push(a);
  }
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
  for (const n of names)
    if (!replayScenarios.some((s) => s.name === n)) throw new Error(`unknown scenario ${n}`);
  return { runs, names, sealed };
}

function main(): void {
  const flags = baselineFlags(process.argv.slice(2));
  const { runs, names, sealed } = parseArgs(flags.rest);
  const baselines = new BaselineCheck('replay', flags);
  const chosen =
    names.length === 0 ? replayScenarios : replayScenarios.filter((s) => names.includes(s.name));
  const dir = mkdtempSync(join(tmpdir(), 'berth-replay-bench-'));
  const k = (n: number) => `${Math.round(n / 1000)}k`;
  console.log(
    `replay benchmark (node ${process.version}, median of ${runs} runs${sealed ? ', sealed logs verified with their key' : ''})`,
  );
  try {
    for (const s of chosen) {
      const path = join(dir, `${s.name}.jsonl`);
      const digest = recordScenario(s, path, sealed ? benchKey : undefined);
      const mib = statSync(path).size / 2 ** 20;
      const reads: Measurement[] = [];
      const replays: Measurement[] = [];
      // Alternate the two modes so that machine noise falls on both alike.
      for (let r = 0; r < runs; r++) {
        reads.push(child('read', path, sealed));
        replays.push(child('replay', path, sealed));
      }
      if (replays.some((m) => m.matches !== true)) throw new Error(`${s.name}: replay diverged`);
      const events = replays[0]?.events ?? 0;
      const readRate = median(reads.map((m) => m.events / (m.ms / 1000)));
      const replayRate = median(replays.map((m) => m.events / (m.ms / 1000)));
      const coreShare = 1 - replayRate / readRate;
      console.log(
        `${s.name.padEnd(18)} ${events} events, ${mib.toFixed(1)} MiB: ` +
          `read+check ${k(readRate)} events/s, replay ${k(replayRate)} events/s ` +
          `(core ${Math.round(coreShare * 100)}% of replay time), ` +
          `peak RSS ${median(replays.map((m) => m.peakRssMiB))} MiB`,
      );
      const cpuMs = median(replays.map((m) => m.cpuMs ?? 0));
      console.log(`cpu ${s.name}: ${Math.round(cpuMs)} ms`);
      baselines.check(s.name, {
        shape: `${events} events${sealed ? ', sealed' : ''}`,
        figures: [
          { name: 'replay events/s', value: Math.round(replayRate) },
          { name: 'replay events/cpu-s', value: Math.round(events / (cpuMs / 1000)) },
          { name: 'read+check events/s', value: Math.round(readRate) },
        ],
        decisionDigest: digest,
      });
    }
    baselines.finish();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  const mode = process.argv[3] as Measurement['mode'];
  const key = process.argv[5] === '--sealed' ? benchKey : undefined;
  process.stdout.write(`${JSON.stringify(measure(mode, process.argv[4] as string, key))}\n`);
} else {
  main();
}
