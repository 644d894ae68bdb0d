// The `berth` command: dispatches subcommands and turns every failure into one line.
import { CliError } from './errors.ts';
import { exportMachinesCommand } from './export-command.ts';
import { replayCommand } from './replay-command.ts';
import { simulateCommand } from './simulate-command.ts';

const usage = `berth — an event-sourced Kubernetes scheduler

Usage:
  berth simulate [--cluster FILE]... [--nodes N --pods M] [--seed S] [--record LOG]
                 [--bind-latency-ms X] [--bind-failure-rate P] [--json]
  berth replay LOG [--json]
  berth export-machines [--out DIR]
  berth help
`;

const commands: Record<string, (argv: string[]) => void> = {
  simulate: simulateCommand,
  replay: replayCommand,
  'export-machines': exportMachinesCommand,
  help: () => void process.stdout.write(usage),
};

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export function main(argv: string[]): number {
  const [name, ...rest] = argv;
  const command = commands[name ?? 'help'];
  try {
    if (command === undefined)
      throw new CliError(`unknown command ${JSON.stringify(name)}; try: berth help`, 2);
    command(rest);
    return 0;
  } catch (error) {
    const message =
      error instanceof CliError
        ? error.message
        : `internal error: ${(error as Error)?.message ?? String(error)}`;
    process.stderr.write(`berth: ${message}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}

process.exitCode = main(process.argv.slice(2));
