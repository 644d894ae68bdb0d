// Writes a log through an injected line sink: header, events, closing digest; rotates segments.
import { BindLedger } from './bind-ledger.ts';
import { DecisionDigest, LineDigest } from './digest.ts';
import {
  encodeDigest,
  encodeEnvelope,
  encodeHeader,
  encodeSegmentEnd,
  encodeSnapshot,
  type LogHeader,
} from './log-format.ts';
import { SealChain, type SealKey, sealAlgorithm } from './seal.ts';
import { type Envelope, isDecision } from './types.ts';

/** Receives complete lines (no trailing newline). The sink owns buffering and I/O. */
export type LineSink = (line: string) => void;

/** Records a run. The recorder itself does no I/O: the sink does. */
export class Recorder {
  private digest = new DecisionDigest();
  private lines = new LineDigest();
  private readonly binds = new BindLedger();
  private sink: LineSink;
  private segment: number;
  private lastSeq = 0;
  private lastTime = 0;
  private closed = false;
  private readonly chain: SealChain | undefined;
  private readonly header: LogHeader;

  /**
   * Writes the header line at once. With `key`, the log is sealed: the header names the
   * key's id (never the key) and every line gets its chained MAC (`SealChain`).
   */
  constructor(sink: LineSink, header: LogHeader, key?: SealKey) {
    this.sink = sink;
    this.segment = header.segment ?? 1;
    this.header =
      key === undefined ? header : { ...header, seal: { alg: sealAlgorithm, keyId: key.id } };
    this.chain = key === undefined ? undefined : new SealChain(key);
    this.write(encodeHeader(this.header));
  }

  /** Number of the segment being written (1 until the first rotation). */
  get segmentNumber(): number {
    return this.segment;
  }

  /** Appends one event line; decisions also go into the digest. */
  record(env: Envelope): void {
    if (this.closed) return;
    const event = env.event;
    if (isDecision(event)) {
      this.digest.add(event);
      if (event.type === 'BindRequested') this.binds.request(event);
    } else if (event.type === 'BindSucceeded' || event.type === 'BindFailed') {
      this.binds.answer(event);
    }
    this.lastSeq = env.seq;
    this.lastTime = env.time;
    this.write(encodeEnvelope(env));
  }

  /**
   * Closes the current segment with a segment-end line naming `nextName` (a file name in
   * the same directory) and starts the next one on `sink`: its header (the same seed and
   * config, the next segment number), then a snapshot line holding `state`, the core's
   * `Scheduler.snapshot()` taken now. Call only between steps: after an input and all the
   * decisions it led to, or after a cycle and its decisions, never in the middle of one.
   */
  rotate(nextName: string, sink: LineSink, state: unknown): void {
    if (this.closed) return;
    this.sink(
      this.sealed(
        encodeSegmentEnd({
          kind: 'segment-end',
          next: nextName,
          lastSeq: this.lastSeq,
          decisions: this.digest.count,
          digest: this.digest.hex(),
          logDigest: this.lines.hex(),
        }),
      ),
    );
    this.sink = sink;
    this.segment++;
    this.digest = new DecisionDigest();
    this.lines = new LineDigest();
    const seal = this.header.seal;
    // The next segment's chain goes on from this one's last MAC, which its header names.
    const next: LogHeader =
      seal === undefined || this.chain === undefined
        ? { ...this.header, segment: this.segment }
        : { ...this.header, segment: this.segment, seal: { ...seal, prev: this.chain.lastMac } };
    this.write(encodeHeader(next));
    this.write(
      encodeSnapshot({
        kind: 'snapshot',
        seq: this.lastSeq,
        time: this.lastTime,
        openBinds: this.binds.list(),
        state,
      }),
    );
  }

  /**
   * Writes the closing digest line (decision digest, count, and `logDigest` over every line
   * written before it, in this segment); later records are ignored. Returns the digest.
   */
  close(): string {
    const hex = this.digest.hex();
    if (!this.closed) {
      const logDigest = this.lines.hex();
      this.sink(
        this.sealed(
          encodeDigest({ kind: 'digest', decisions: this.digest.count, digest: hex, logDigest }),
        ),
      );
      this.closed = true;
    }
    return hex;
  }

  private write(line: string): void {
    const sealed = this.sealed(line);
    this.lines.add(sealed);
    this.sink(sealed);
  }

  /** The line with its MAC when the log is sealed; as it is otherwise. */
  private sealed(line: string): string {
    return this.chain === undefined ? line : this.chain.seal(line);
  }
}
