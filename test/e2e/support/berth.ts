// berth as a separate process: `berth run` against a cluster, one-shot commands, and their output.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { chartAccess } from './chart-access.ts';
import type { Cluster } from './control-plane.ts';
import { berthBin, berthNodeFlags, repoRoot } from './paths.ts';
import { type CommandResult, runProcess } from './process.ts';

export type { CommandResult } from './process.ts';

import { GiveUp, waitFor } from './wait.ts';

/** A pino log line of berth (any JSON object on stdout). */
export type LogEntry = Record<string, unknown>;

/** How a berth process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const running = new Set<BerthRun>();
let counter = 0;
// Last resort if the test process ends without its afterAll hooks: no berth outlives it.
process.once('exit', () => {
  for (const run of running) run.kill();
});

/** A running `berth run` process whose stdout/stderr go to files (and memory). */
export class BerthRun {
  readonly stdoutPath: string;
  readonly stderrPath: string;
  readonly exited: Promise<Exit>;
  private exit: Exit | undefined;
  private stdoutText = '';
  private stderrText = '';

  constructor(
    private readonly child: ChildProcess,
    dir: string,
    readonly name: string,
  ) {
    this.stdoutPath = join(dir, `${name}.stdout.log`);
    this.stderrPath = join(dir, `${name}.stderr.log`);
    const out = createWriteStream(this.stdoutPath);
    const err = createWriteStream(this.stderrPath);
    const pipe = (from: NodeJS.ReadableStream | null, to: WriteStream, into: 'out' | 'err') => {
      from?.on('data', (b: Buffer) => {
        to.write(b);
        if (into === 'out') this.stdoutText += b.toString('utf8');
        else this.stderrText += b.toString('utf8');
      });
    };
    pipe(child.stdout, out, 'out');
    pipe(child.stderr, err, 'err');
    this.exited = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        this.exit = { code, signal };
        out.end();
        err.end();
        running.delete(this);
        resolve(this.exit);
      });
    });
  }

  /** The process id. */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Whether the process has ended (and how). */
  get exitStatus(): Exit | undefined {
    return this.exit;
  }

  /** Everything written to stderr so far. */
  get stderr(): string {
    return this.stderrText;
  }

  /** Everything written to stdout so far. */
  get stdout(): string {
    return this.stdoutText;
  }

  /** stdout's JSON lines parsed so far (non-JSON lines are skipped). */
  logs(): LogEntry[] {
    const entries: LogEntry[] = [];
    for (const line of this.stdoutText.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        entries.push(JSON.parse(line) as LogEntry);
      } catch {
        // A line still being written.
      }
    }
    return entries;
  }

  /** Last lines of stdout and stderr, for failure messages. */
  tail(lines = 15): string {
    const last = (s: string) => s.trimEnd().split('\n').slice(-lines).join('\n');
    return `${this.name} stdout (${this.stdoutPath}):\n${last(this.stdoutText)}\n${this.name} stderr:\n${last(this.stderrText)}`;
  }

  /**
   * Waits until a log line satisfies `match`; fails at once if berth exits first, and after
   * `timeoutMs` with the tail of its output.
   */
  async waitForLog(
    what: string,
    match: (e: LogEntry) => boolean,
    timeoutMs = 60_000,
  ): Promise<LogEntry | string> {
    return waitFor<LogEntry | string>(
      `berth (${this.name}) to log ${what}`,
      async () => {
        const hit = this.logs().find(match);
        if (hit !== undefined) return { ok: true, seen: hit };
        this.checkAlive();
        return { ok: false, seen: this.tail() };
      },
      { timeoutMs, intervalMs: 200 },
    );
  }

  /** Throws GiveUp (ending any `waitFor`) with the output's tail if berth has exited. */
  checkAlive(): void {
    if (this.exit !== undefined)
      throw new GiveUp(`berth exited (${JSON.stringify(this.exit)})\n${this.tail()}`);
  }

  /** Sends SIGKILL now, without waiting. */
  kill(): void {
    if (this.exit === undefined) this.child.kill('SIGKILL');
  }

  /** Sends `signal` (SIGTERM by default) and waits for the exit; SIGKILL after `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 30_000): Promise<Exit> {
    if (this.exit !== undefined) return this.exit;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Short leader-election timings for tests: lease 4 s, renew deadline 3 s, retry 1 s. */
export const fastLeaseFlags = [
  '--leader-elect-lease-duration',
  '4s',
  '--leader-elect-renew-deadline',
  '3s',
  '--leader-elect-retry-period',
  '1s',
];

/** Options of `startBerth`. */
export interface StartOptions {
  /** Extra flags after `run --kubeconfig PATH`. */
  args?: string[];
  /**
   * Run with this kubeconfig instead of the chart's ServiceAccount (e.g. the cluster's
   * admin one). Only for a test that needs what the chart does not grant: say why there.
   */
  kubeconfig?: string;
  /** Directory for the stdout/stderr files (the cluster's dir by default). */
  dir?: string;
  /** Name of the output files (`berth-N` by default). */
  name?: string;
  /** Flags for node itself, before the entry point (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Wait for the `"msg":"scheduling"` line (default true). */
  waitForScheduling?: boolean;
}

/**
 * Flags every test run gets unless it sets them itself: no leader election (a restarted
 * berth would wait out its own lease), no HTTPS server (its default port 10259 is one per
 * machine), the plain status server, by its loopback opt-in, on a free port, and
 * `--emulated-version` of the cluster's Kubernetes minor, so berth schedules as the
 * kube-scheduler of the same release (the oracle the tests compare it with) does.
 */
function testDefaults(args: string[], kubeVersion: string): string[] {
  const has = (flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
  return [
    ...(has('--emulated-version') ? [] : ['--emulated-version', kubeVersion]),
    ...(has('--leader-elect') ? [] : ['--leader-elect=false']),
    ...(has('--secure-port') ? [] : ['--secure-port=0']),
    ...(has('--metrics-bind-address') ? [] : ['--metrics-bind-address', '127.0.0.1:0']),
  ];
}

/**
 * Spawns `node FLAGS bin/berth.js run --kubeconfig KUBECONFIG ...args` against `cluster` as a
 * child process, sends its output to files in `dir`, and (by default) waits for its
 * "scheduling" log line. KUBECONFIG is the chart's ServiceAccount (`chartAccess`: the
 * chart's rendered RBAC, as installed) unless `opts.kubeconfig` says otherwise, so every
 * request berth makes in a test is one the chart allows. Leader election and HTTPS are off
 * and the plain status server on a free loopback port unless `args` say otherwise.
 */
export async function startBerth(cluster: Cluster, opts: StartOptions = {}): Promise<BerthRun> {
  const kubeconfig = opts.kubeconfig ?? (await chartAccess(cluster)).kubeconfig;
  const name = opts.name ?? `berth-${++counter}`;
  const args = opts.args ?? [];
  const child = spawn(
    process.execPath,
    [
      ...berthNodeFlags,
      ...(opts.nodeArgs ?? []),
      berthBin,
      'run',
      '--kubeconfig',
      kubeconfig,
      ...testDefaults(args, cluster.kubeVersion),
      ...args,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const run = new BerthRun(child, opts.dir ?? cluster.dir, name);
  running.add(run);
  if (opts.waitForScheduling ?? true) {
    await run.waitForLog('"msg":"scheduling"', (e) => e.msg === 'scheduling', 90_000);
  }
  return run;
}

/** SIGKILLs every berth process this process started that is still running. */
export async function stopAllBerths(): Promise<void> {
  await Promise.all([...running].map((r) => r.stop('SIGKILL', 5_000)));
}

/** Runs `node FLAGS bin/berth.js ARGS` to completion (SIGKILL after `timeoutMs`). */
export function berthCommand(
  args: string[],
  timeoutMs = 120_000,
  env?: NodeJS.ProcessEnv,
): Promise<CommandResult> {
  return runProcess(process.execPath, [...berthNodeFlags, berthBin, ...args], { timeoutMs, env });
}

/**
 * Spawns `berth run --kubeconfig KUBECONFIG --config CONFIG` plus `args` and nothing else:
 * unlike `startBerth`, no test defaults (those turn leader election off), so the config
 * file alone decides. The caller stops it.
 */
export function startBerthAsConfigured(
  kubeconfig: string,
  config: string,
  dir: string,
  name: string,
  args: string[] = [],
): BerthRun {
  const child = spawn(
    process.execPath,
    [...berthNodeFlags, berthBin, 'run', '--kubeconfig', kubeconfig, '--config', config, ...args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new BerthRun(child, dir, name);
}
