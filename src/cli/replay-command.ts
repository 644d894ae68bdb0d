// `berth replay LOG|DIR`: re-run a recorded log (or its segments) through the core and verify it.
import { statSync } from 'node:fs';
import { LogError } from '../events/reader.ts';
import { LogFileError } from '../runtime/log-lines.ts';
import { type FileReplayResult, replayLogFile, SegmentError } from '../runtime/replay-file.ts';
import { replayLogDirectory } from '../runtime/segments.ts';
import { parseFlags } from './args.ts';
import { CliError } from './errors.ts';
import { formatSummary } from './format.ts';
import { releaseYoungGeneration } from './heap-growth.ts';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Replays `path` (a log or segment file, or a directory of segments), turning a bad or
 * unreadable log into a one-line CliError naming the file and line.
 */
function replayPath(path: string): FileReplayResult {
  try {
    return isDirectory(path) ? replayLogDirectory(path) : replayLogFile(path);
  } catch (error) {
    if (error instanceof SegmentError) throw new CliError(error.message);
    if (error instanceof LogError) throw new CliError(`${path}: ${error.message}`);
    if (error instanceof LogFileError) throw new CliError(`cannot read ${path}: ${error.message}`);
    throw error;
  }
}

/** Runs `replay`; throws CliError (exit 1) when a decision diverges or the digest differs. */
export function replayCommand(argv: string[]): void {
  releaseYoungGeneration();
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, 1);
  const path = positionals[0];
  if (path === undefined)
    throw new CliError('replay needs a LOG file: berth replay LOG [--json]', 2);
  const result = replayPath(path);
  for (const warning of result.warnings) process.stderr.write(`berth: ${warning}\n`);
  if (values.json) process.stdout.write(`${JSON.stringify(result.summary)}\n`);
  else process.stdout.write(formatSummary(`berth replay — ${path}`, result.summary));
  const at = (line: number | undefined) => `${result.file}: line ${line}`;
  if (result.divergence !== undefined) {
    const d = result.divergence;
    throw new CliError(
      `${at(result.divergenceLine)}: replay diverged at seq ${d.seq}: recorded "${d.expected}", replayed "${d.actual}"`,
    );
  }
  if (result.recordedDigest !== undefined && result.recordedDigest !== result.replayedDigest) {
    throw new CliError(
      `${at(result.closingLine)}: digest differs: recorded ${result.recordedDigest}, replayed ${result.replayedDigest}`,
    );
  }
  const lines = result.lines;
  if (lines !== undefined && lines.recorded !== lines.read) {
    throw new CliError(
      `${at(lines.line)}: the lines before it do not hash to its logDigest: the log was changed after it was written`,
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
