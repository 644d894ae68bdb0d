// `berth replay LOG`: re-run a recorded log through the core and verify its decisions.
import { LogError, parseLog } from '../events/reader.ts';
import { replay } from '../runtime/replay.ts';
import { parseFlags } from './args.ts';
import { CliError } from './errors.ts';
import { readTextFile } from './files.ts';
import { formatSummary } from './format.ts';

/** Runs `replay`; throws CliError (exit 1) when a decision diverges or the digest differs. */
export function replayCommand(argv: string[]): void {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, 1);
  const path = positionals[0];
  if (path === undefined)
    throw new CliError('replay needs a LOG file: berth replay LOG [--json]', 2);
  const text = readTextFile(path);
  let log: ReturnType<typeof parseLog>;
  try {
    log = parseLog(text);
  } catch (error) {
    if (error instanceof LogError) throw new CliError(`${path}: ${error.message}`);
    throw error;
  }
  for (const warning of log.warnings) process.stderr.write(`berth: ${path}: ${warning}\n`);
  const result = replay(log);
  if (values.json) process.stdout.write(`${JSON.stringify(result.summary)}\n`);
  else process.stdout.write(formatSummary(`berth replay — ${path}`, result.summary));
  if (result.divergence !== undefined) {
    const d = result.divergence;
    throw new CliError(
      `replay diverged at seq ${d.seq}: recorded "${d.expected}", replayed "${d.actual}"`,
    );
  }
  if (!result.matches) {
    throw new CliError(
      `digest differs: recorded ${result.recordedDigest}, replayed ${result.summary.decisionDigest}`,
    );
  }
  if (!values.json) {
    process.stdout.write(
      result.recordedDigest === undefined
        ? '\nAll recorded decisions reproduced (the log has no closing digest).\n'
        : '\nDigest matches the recording.\n',
    );
  }
}
