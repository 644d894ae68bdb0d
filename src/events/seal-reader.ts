// The reader's side of a log's seal: splits each line's MAC off and, given the key, verifies the chain.
import { LogError } from './log-error.ts';
import {
  genesisMac,
  isSealInfo,
  lineMac,
  type SealInfo,
  type SealKey,
  sealAlgorithm,
  splitSealed,
} from './seal.ts';

/** What a reader learned about a log's seal. */
export interface SealStatus {
  /** The header's `seal`; undefined for a log that is not sealed. */
  info: SealInfo | undefined;
  /** True when every line read so far verified against the given key. */
  verified: boolean;
  /** The MAC of the last line read (the chain value a next segment continues from). */
  lastMac: string | undefined;
}

/**
 * Follows a log's seal line by line. Without a key it only checks that a sealed log seals
 * every line (a MAC of the right shape); with one it recomputes each line's chained MAC and
 * refuses the first line that does not verify. Given a key, an unsealed log is refused on
 * line 1: a stripped seal must not pass for a log that never had one.
 */
export class SealReader {
  private info: SealInfo | undefined;
  private chain = genesisMac;

  constructor(private readonly key: SealKey | undefined) {}

  /** The seal as read so far. */
  get status(): SealStatus {
    return {
      info: this.info,
      verified: this.info !== undefined && this.key !== undefined,
      lastMac: this.info === undefined ? undefined : this.chain,
    };
  }

  /** True once the header said the log is sealed. */
  get sealed(): boolean {
    return this.info !== undefined;
  }

  /**
   * Line 1: `text` split into the header as encoded and its MAC (undefined when it has
   * none); call `header` with the parsed header's `seal` next.
   */
  splitHeader(text: string): { body: string; mac: string } | undefined {
    return splitSealed(text);
  }

  /** Decides from the header's `seal` whether the log is sealed, and checks line 1's MAC. */
  header(seal: unknown, split: { body: string; mac: string } | undefined): void {
    const key = this.key;
    if (seal === undefined) {
      if (split !== undefined) throw new LogError(1, 'the header has a "mac" but no "seal"');
      if (key !== undefined)
        throw new LogError(
          1,
          `the log is not sealed, but a key (id ${key.id}) was given to verify it: it was recorded without --record-key, or its seal was stripped`,
        );
      return;
    }
    if (!isSealInfo(seal))
      throw new LogError(
        1,
        `header "seal" must be {"alg":"${sealAlgorithm}","keyId":8 hex digits,"prev"?:64 hex digits}`,
      );
    if (split === undefined)
      throw new LogError(1, 'the header names a seal, but the line has no "mac"');
    if (key !== undefined && seal.keyId !== key.id)
      throw new LogError(1, `sealed with key id ${seal.keyId}, given key id ${key.id}`);
    this.info = seal;
    this.chain = seal.prev ?? genesisMac;
    this.follow(split, 1);
  }

  /**
   * A line after the first: its text without the MAC, once the MAC is checked (the text as
   * it is for a log that is not sealed). Undefined when a sealed log's line has no MAC of
   * the right shape: the caller decides whether that is a cut-short write or an error.
   */
  body(text: string, lineNo: number): string | undefined {
    if (this.info === undefined) return text;
    const split = splitSealed(text);
    if (split === undefined) return undefined;
    this.follow(split, lineNo);
    return split.body;
  }

  private follow(split: { body: string; mac: string }, lineNo: number): void {
    const key = this.key;
    // Verification is offline, over a file: a timing side channel gives an attacker nothing.
    if (key !== undefined && lineMac(key, this.chain, split.body) !== split.mac)
      throw new LogError(
        lineNo,
        `the seal does not verify (key id ${key.id}): this line was changed, or a line before it was removed, added or moved`,
      );
    this.chain = split.mac;
  }
}
