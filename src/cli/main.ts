// The `berth` command: dispatches subcommands and turns every failure into one line.
import { berthVersion } from '../adapters/version.ts';
import { CliError, describeSystemError, ExitNowError, FlagError } from './errors.ts';
import { explainCommand } from './explain-command.ts';
import { exportMachinesCommand } from './export-command.ts';
import { replayCommand } from './replay-command.ts';
import { simulateCommand } from './simulate-command.ts';
import { commandUsage, fullUsage } from './usage.ts';

const commands: Record<string, (argv: string[]) => void | Promise<void>> = {
  // Loaded on demand: only `run` needs the Kubernetes client.
  run: async (argv) => (await import('./run-command.ts')).runCommand(argv),
  simulate: simulateCommand,
  replay: replayCommand,
  explain: explainCommand,
  'export-machines': exportMachinesCommand,
};

/**
 * The exit status when the reader of stdout went away (`berth replay LOG | head -1`): what a
 * shell reports for a tool killed by SIGPIPE (128 + 13), as `cat` or `grep` would give in the
 * same place. Node ignores SIGPIPE, so berth says it with its exit code, silently.
 */
export const brokenPipeExitCode = 141;

/** The first failure writing stdout or stderr, as the exit code it deserves. */
let outputFailureCode: number | undefined;

/**
 * Handles write errors of stdout and stderr in one place, so none becomes an unhandled
 * 'error' event and a stack trace. A closed pipe (EPIPE) ends the output quietly; any other
 * failure writing stdout (ENOSPC on `> /dev/full`) is reported on stderr. The command's own
 * non-zero exit code, already reported, wins over either.
 */
function guardOutput(stream: NodeJS.WriteStream, name: 'stdout' | 'stderr'): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (outputFailureCode !== undefined) return;
    const brokenPipe = error.code === 'EPIPE';
    outputFailureCode = brokenPipe ? brokenPipeExitCode : 1;
    if (!process.exitCode) process.exitCode = outputFailureCode;
    if (!brokenPipe && name === 'stdout')
      process.stderr.write(`berth: cannot write the output: ${describeSystemError(error)}\n`);
  });
}

/** `--help`/`-h` or `--version`/`-v` anywhere before a `--`, the first one found. */
function askedFor(argv: string[]): 'help' | 'version' | undefined {
  for (const arg of argv) {
    if (arg === '--') return undefined;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--version' || arg === '-v') return 'version';
  }
  return undefined;
}

/** `berth help [COMMAND]`: every command's synopsis, or one command's usage. */
function help(argv: string[]): void {
  const topic = argv.find((arg) => !arg.startsWith('-'));
  if (topic === undefined) return void process.stdout.write(fullUsage);
  const usage = commandUsage[topic];
  if (usage === undefined)
    throw new CliError(`unknown command ${JSON.stringify(topic)}; try: berth help`, 2);
  process.stdout.write(usage);
}

function version(): void {
  process.stdout.write(`berth ${berthVersion}\n`);
}

/** Runs `berth <name> argv`: help and version first, then the command. */
async function dispatch(name: string, argv: string[]): Promise<void> {
  if (name === 'help' || name === '--help' || name === '-h') return help(argv);
  if (name === 'version' || name === '--version' || name === '-v') return version();
  const command = commands[name];
  if (command === undefined)
    throw new CliError(`unknown command ${JSON.stringify(name)}; try: berth help`, 2);
  const asked = askedFor(argv);
  if (asked === 'help') return void process.stdout.write(commandUsage[name] ?? fullUsage);
  if (asked === 'version') return version();
  await command(argv);
}

/** The one line printed for a failure: a message over several lines is joined into one. */
function oneLine(error: unknown, command: string): string {
  const raw =
    error instanceof CliError
      ? error.message
      : `internal error: ${(error as Error)?.message ?? String(error)}`;
  const line = raw
    .split('\n')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .join(' ');
  return error instanceof FlagError ? `${line}; try: berth ${command} --help` : line;
}

/** Set when the command failed with an ExitNowError: the process exits without waiting. */
let exitNow = false;

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name = 'help', ...rest] = argv;
  try {
    await dispatch(name, rest);
    return outputFailureCode ?? 0;
  } catch (error) {
    process.stderr.write(`berth: ${oneLine(error, name)}\n`);
    if (error instanceof ExitNowError) exitNow = true;
    return error instanceof CliError ? error.exitCode : 1;
  }
}

guardOutput(process.stdout, 'stdout');
guardOutput(process.stderr, 'stderr');
// No top-level await: the bundle is CommonJS, so that bin/berth.js can run it from a code cache.
void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // Handles still open (a request to an unresponsive API server) must not keep it alive.
  if (exitNow) process.exit(code);
});
