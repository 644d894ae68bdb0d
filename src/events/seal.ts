// Keyed sealing of a log: a chained HMAC-SHA-256 on every line, so forged, moved or cut lines show.
import { createHash, createHmac } from 'node:crypto';

/** The seal's algorithm, as the header names it. */
export const sealAlgorithm = 'HMAC-SHA-256';

/** The fewest bytes a key may have: HMAC-SHA-256 is as strong as its key up to 32 bytes. */
export const minKeyBytes = 32;

/** The chain value before the first line of a recording (no line before it). */
export const genesisMac = '0'.repeat(64);

/**
 * The header's `seal` field: the algorithm, the key's id, and (in a segment after the first)
 * the MAC of the previous segment's last line, which this segment's chain continues from.
 */
export interface SealInfo {
  alg: string;
  keyId: string;
  prev?: string;
}

/** A sealing key (raw bytes) and its id; the key itself is never written anywhere. */
export interface SealKey {
  readonly bytes: Buffer;
  readonly id: string;
}

/** The first 8 hex digits of SHA-256(key): names a key without revealing it. */
export function keyIdOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 8);
}

/** A key from raw bytes; throws when it is shorter than `minKeyBytes`. */
export function sealKey(bytes: Buffer): SealKey {
  if (bytes.length < minKeyBytes)
    throw new RangeError(
      `a sealing key needs at least ${minKeyBytes} bytes, this one has ${bytes.length}`,
    );
  return { bytes, id: keyIdOf(bytes) };
}

/** `,"mac":"` + 64 hex digits + `"}`: how a sealed line ends. */
const macPrefix = ',"mac":"';
const suffixLength = macPrefix.length + 64 + 2;
const hex64 = /^[0-9a-f]{64}$/;

/** The MAC of `body` (a line without its mac) chained after `prev`. */
export function lineMac(key: SealKey, prev: string, body: string): string {
  return createHmac('sha256', key.bytes).update(prev).update(body).digest('hex');
}

/**
 * A sealed line split into the line as it was encoded (`body`) and its `mac`; undefined when
 * the line does not end with a well-formed `"mac"` member.
 */
export function splitSealed(text: string): { body: string; mac: string } | undefined {
  const at = text.length - suffixLength;
  if (at < 1 || !text.endsWith('"}') || !text.startsWith(macPrefix, at)) return undefined;
  const mac = text.slice(at + macPrefix.length, text.length - 2);
  if (!hex64.test(mac)) return undefined;
  return { body: `${text.slice(0, at)}}`, mac };
}

/** Appends `"mac"` as the last member of the JSON object `body` (one line, ends with `}`). */
export function withMac(body: string, mac: string): string {
  return `${body.slice(0, -1)}${macPrefix}${mac}"}`;
}

/**
 * The writer's side of the chain: each line gets the MAC of (previous MAC, the line), so a
 * line changed, removed, added or moved breaks every MAC from there on. Pure but for the
 * HMAC: no clock, no I/O.
 */
export class SealChain {
  private last: string;

  constructor(
    private readonly key: SealKey,
    prev: string = genesisMac,
  ) {
    this.last = prev;
  }

  /** The MAC of the last line sealed (the chain value the next line continues from). */
  get lastMac(): string {
    return this.last;
  }

  /** Returns `line` (a JSON object on one line) with its chained MAC as a last member. */
  seal(line: string): string {
    this.last = lineMac(this.key, this.last, line);
    return withMac(line, this.last);
  }
}

/** True for a `seal` header field of the right shape. */
export function isSealInfo(value: unknown): value is SealInfo {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    v.alg === sealAlgorithm &&
    typeof v.keyId === 'string' &&
    /^[0-9a-f]{8}$/.test(v.keyId) &&
    (v.prev === undefined || (typeof v.prev === 'string' && hex64.test(v.prev)))
  );
}
