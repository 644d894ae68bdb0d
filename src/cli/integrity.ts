// What `berth replay` and `berth explain --log` say about a log's integrity, and when they refuse it.
import type { SealStatus } from '../events/seal-reader.ts';

/** What a command learned about a log's end and seal. */
export interface LogIntegrity {
  /** The file the facts are about (the last segment, for a directory). */
  file: string;
  seal: SealStatus;
  /** True when the log ends with its closing digest (or segment-end) line. */
  closed: boolean;
  /** The number of complete lines in `file`. */
  completeLines: number;
}

/** The note that says what the log's integrity checks did and did not prove. */
export function integrityNote(log: LogIntegrity): string {
  const info = log.seal.info;
  if (info === undefined)
    return 'integrity: digests protect against accidents, not forgery (log not sealed)';
  if (!log.seal.verified)
    return `integrity: sealed with key id ${info.keyId}, but the seal was not checked (no --record-key): digests protect against accidents, not forgery`;
  return log.closed
    ? `integrity: sealed with key id ${info.keyId}; every line's seal verified`
    : `integrity: sealed with key id ${info.keyId}; its ${log.completeLines} complete lines verified, but its closing line is missing`;
}

/**
 * Why the log must not pass without `--allow-unsealed`: it is not sealed, or it has no
 * closing line (cut short by a crash, or its end removed). Undefined when it may.
 */
export function integrityProblem(log: LogIntegrity): string | undefined {
  if (!log.closed)
    return `${log.file}: truncated after line ${log.completeLines}: the closing digest line is missing, so the end of the log cannot be checked (the recording was cut short, or lines were removed); pass --allow-unsealed to accept it`;
  if (log.seal.info === undefined)
    return `${log.file}: the log is not sealed, so an edit that recomputes its digests would pass; record with --record-key to seal it, or pass --allow-unsealed to accept it`;
  return undefined;
}
