// Runs a child process to completion and collects what it printed: the e2e suite's one runner.
import { spawn } from 'node:child_process';
import { repoRoot } from './paths.ts';

/** How a command ended and what it printed. */
export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** Options of `runProcess`. */
export interface ProcessOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, which is then closed (default: stdin is closed at once). */
  input?: string;
  /** SIGKILL after this long (default 120 s). */
  timeoutMs?: number;
}

/**
 * Runs `command ARGS` to completion. Never rejects for a non-zero exit (callers decide);
 * rejects only when the process cannot be started.
 */
export function runProcess(
  command: string,
  args: string[],
  opts: ProcessOptions = {},
): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd ?? repoRoot,
      env: opts.env ?? process.env,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        durationMs: Date.now() - started,
      });
    });
    child.stdin?.end(opts.input);
  });
}
