// The `berth` command: dispatches subcommands and turns every failure into one line.
import { CliError } from './errors.ts';
import { exportMachinesCommand } from './export-command.ts';
import { replayCommand } from './replay-command.ts';
import { simulateCommand } from './simulate-command.ts';

const usage = `berth — an event-sourced Kubernetes scheduler

Usage:
  berth run [--kubeconfig PATH] [--context NAME] [--scheduler-name berth] [--record LOG]
            [--qps Q --burst B] [--events-qps Q --events-burst B]
            [--config FILE] [--seed S] [--log-level info]
            [--leader-elect=true|false] [--leader-elect-lease-duration 15s]
            [--leader-elect-renew-deadline 10s] [--leader-elect-retry-period 2s]
            [--leader-elect-resource-name berth]
            [--leader-elect-resource-namespace kube-system]
            [--metrics-bind-address 0.0.0.0:10251 | 0]
  berth simulate [--cluster FILE]... [--nodes N --pods M] [--seed S] [--record LOG]
                 [--bind-latency-ms X] [--bind-failure-rate P] [--json]
  berth replay LOG [--json]
  berth export-machines [--out DIR]
  berth help
`;

const commands: Record<string, (argv: string[]) => void | Promise<void>> = {
  // Loaded on demand: only `run` needs the Kubernetes client.
  run: async (argv) => (await import('./run-command.ts')).runCommand(argv),
  simulate: simulateCommand,
  replay: replayCommand,
  'export-machines': exportMachinesCommand,
  help: () => void process.stdout.write(usage),
};

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = commands[name ?? 'help'];
  try {
    if (command === undefined)
      throw new CliError(`unknown command ${JSON.stringify(name)}; try: berth help`, 2);
    await command(rest);
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

process.exitCode = await main(process.argv.slice(2));
