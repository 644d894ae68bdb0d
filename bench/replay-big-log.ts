// Replays logs of growing length through `berth replay`'s streaming path and reports wall
// time and peak RSS, to show that replay memory does not grow with the log (not a unit test:
// a 1 GB log takes minutes to record and to replay). Each log is recorded by `berth
// simulate` with every bind failing, so the same cluster writes a longer log the longer the
// horizon; each replay runs in a child process of its own.
//
//   npx tsx bench/replay-big-log.ts                      200 nodes, 20000 pods, horizons 5m,31m
//   npx tsx bench/replay-big-log.ts --horizons 10m,2h --nodes 20 --pods 200 --keep DIR
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { replayLogFile } from '../src/runtime/replay-file.ts';

interface Options {
  nodes: number;
  pods: number;
  horizons: string[];
  /** Directory to keep the logs in (and reuse them from); a temporary one otherwise. */
  keep: string | undefined;
}

/** What the child measured. */
interface Replayed {
  events: number;
  ms: number;
  peakRssMiB: number;
  matches: boolean;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'src', 'cli', 'main.ts');

function parseArgs(argv: string[]): Options {
  const o: Options = { nodes: 200, pods: 20_000, horizons: ['5m', '31m'], keep: undefined };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--nodes') o.nodes = Number(value);
    else if (flag === '--pods') o.pods = Number(value);
    else if (flag === '--horizons') o.horizons = value.split(',');
    else if (flag === '--keep') o.keep = value;
    else throw new Error(`unknown flag ${flag}`);
  }
  return o;
}

function record(o: Options, horizon: string, path: string): number {
  const started = performance.now();
  execFileSync(
    process.execPath,
    [
      ...process.execArgv,
      cli,
      'simulate',
      ...['--nodes', String(o.nodes), '--pods', String(o.pods), '--seed', '1'],
      ...['--bind-failure-rate', '1', '--horizon', horizon, '--record', path, '--json'],
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], cwd: root },
  );
  return performance.now() - started;
}

function replayInChild(path: string): Replayed {
  const self = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, [...process.execArgv, self, '--child', path], {
    encoding: 'utf8',
    cwd: root,
  });
  return JSON.parse(out) as Replayed;
}

function main(): void {
  const o = parseArgs(process.argv.slice(2));
  const dir = o.keep ?? mkdtempSync(join(tmpdir(), 'berth-big-log-'));
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  console.log(
    `replay of growing logs: ${o.nodes} nodes, ${o.pods} pods, every bind failing (node ${process.version})`,
  );
  try {
    for (const horizon of o.horizons) {
      const path = join(dir, `n${o.nodes}-p${o.pods}-fail-${horizon}.jsonl`);
      const recordMs = existsSync(path) ? undefined : record(o, horizon, path);
      const mib = statSync(path).size / 2 ** 20;
      const r = replayInChild(path);
      if (!r.matches) throw new Error(`${path}: replay did not match the recording`);
      const made =
        recordMs === undefined ? 'kept' : `recorded in ${(recordMs / 1000).toFixed(0)} s`;
      console.log(
        `horizon ${horizon.padEnd(4)} ${mib.toFixed(0).padStart(6)} MiB (${made}), ${r.events} events: ` +
          `replayed in ${(r.ms / 1000).toFixed(1)} s (${Math.round(r.events / (r.ms / 1000))} events/s), ` +
          `peak RSS ${r.peakRssMiB} MiB`,
      );
    }
  } finally {
    if (o.keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  const started = performance.now();
  const result = replayLogFile(process.argv[3] as string);
  const replayed: Replayed = {
    events: result.lastSeq,
    ms: performance.now() - started,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    matches: result.matches,
  };
  process.stdout.write(`${JSON.stringify(replayed)}\n`);
} else {
  main();
}
