// The JSONL log format: a header line, one event per line, and a closing digest line.
import type { Envelope } from './types.ts';

/**
 * Version of the log format; bumped on any incompatible change. 2: pods are identified by
 * uid, decisions are lists naming their attempt (reserve, permit, bind), the trim keeps
 * every field a default plugin reads.
 */
export const logFormatVersion = 2;

/** First line of every log: what produced it and what the core needs to replay it. */
export interface LogHeader {
  kind: 'header';
  format: number;
  berthVersion: string;
  /** Seed of the core's random generator (tie-breaks between equal-scoring nodes). */
  seed: number;
  /** The scheduler configuration in force (profile, backoff, scheduler name, ...). */
  config: Record<string, unknown>;
}

/** Last line of a cleanly closed log: the digest of every decision in it. */
export interface LogDigest {
  kind: 'digest';
  decisions: number;
  digest: string;
}

/** Encodes the header line (without the trailing newline). */
export function encodeHeader(header: LogHeader): string {
  return JSON.stringify(header);
}

/** Encodes one event line (without the trailing newline). */
export function encodeEnvelope(env: Envelope): string {
  return JSON.stringify(env);
}

/** Encodes the closing digest line (without the trailing newline). */
export function encodeDigest(digest: LogDigest): string {
  return JSON.stringify(digest);
}
