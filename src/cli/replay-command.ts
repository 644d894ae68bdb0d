// `berth replay LOG|DIR`: re-run a recorded log (or its segments) through the core and verify it.
import { statSync } from 'node:fs';
import { LogError } from '../events/reader.ts';
import type { SealKey } from '../events/seal.ts';
import { LogFileError } from '../runtime/log-lines.ts';
import { type FileReplayResult, replayLogFile, SegmentError } from '../runtime/replay-file.ts';
import { replayLogDirectory } from '../runtime/segments.ts';
import { parseFlags } from './args.ts';
import { CliError } from './errors.ts';
import { formatSummary } from './format.ts';
import { releaseYoungGeneration } from './heap-growth.ts';
import { integrityNote, integrityProblem } from './integrity.ts';
import { readRecordKey } from './record-key.ts';

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
function replayPath(path: string, key: SealKey | undefined): FileReplayResult {
  try {
    return isDirectory(path) ? replayLogDirectory(path, key) : replayLogFile(path, key);
  } catch (error) {
    if (error instanceof SegmentError) throw new CliError(error.message);
    if (error instanceof LogError) throw new CliError(`${path}: ${error.message}`);
    if (error instanceof LogFileError) throw new CliError(`cannot read ${path}: ${error.message}`);
    throw error;
  }
}

/** The `integrity` member of `--json`: the log's seal and whether its end is there. */
function integrityJson(result: FileReplayResult) {
  const info = result.seal.info;
  return {
    sealed: info !== undefined,
    keyId: info?.keyId ?? null,
    verified: result.seal.verified,
    closed: result.closingLine > 0,
  };
}

/**
 * Runs `replay`; throws CliError (exit 1) when a decision diverges, a digest differs, a seal
 * does not verify, or (without `--allow-unsealed`) the log is not sealed or is cut short.
 */
export function replayCommand(argv: string[]): void {
  releaseYoungGeneration();
  const { values, positionals } = parseFlags(
    argv,
    {
      json: { type: 'boolean' },
      'record-key': { type: 'string' },
      'allow-unsealed': { type: 'boolean' },
    },
    1,
  );
  const path = positionals[0];
  if (path === undefined)
    throw new CliError('replay needs a LOG file: berth replay LOG [--json]', 2);
  const key = values['record-key'] === undefined ? undefined : readRecordKey(values['record-key']);
  const result = replayPath(path, key);
  for (const warning of result.warnings) process.stderr.write(`berth: ${warning}\n`);
  if (values.json)
    process.stdout.write(
      `${JSON.stringify({ ...result.summary, integrity: integrityJson(result) })}\n`,
    );
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
  const integrity = {
    file: result.file,
    seal: result.seal,
    closed: result.closingLine > 0,
    completeLines: result.completeLines,
  };
  const note = integrityNote(integrity);
  if (!values.json)
    process.stdout.write(
      result.recordedDigest === undefined
        ? `\nAll recorded decisions reproduced (the log has no closing digest).\n${note}\n`
        : `\nDigest matches the recording.\n${note}\n`,
    );
  const problem = integrityProblem(integrity);
  if (problem !== undefined && values['allow-unsealed'] !== true) throw new CliError(problem);
}
