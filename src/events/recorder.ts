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

  /** Writes the header line at once. */
  constructor(
    sink: LineSink,
    private readonly header: LogHeader,
  ) {
    this.sink = sink;
    this.segment = header.segment ?? 1;
    this.write(encodeHeader(header));
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
      encodeSegmentEnd({
        kind: 'segment-end',
        next: nextName,
        lastSeq: this.lastSeq,
        decisions: this.digest.count,
        digest: this.digest.hex(),
        logDigest: this.lines.hex(),
      }),
    );
    this.sink = sink;
    this.segment++;
    this.digest = new DecisionDigest();
    this.lines = new LineDigest();
    this.write(encodeHeader({ ...this.header, segment: this.segment }));
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
        encodeDigest({ kind: 'digest', decisions: this.digest.count, digest: hex, logDigest }),
      );
      this.closed = true;
    }
    return hex;
  }

  private write(line: string): void {
    this.lines.add(line);
    this.sink(line);
  }
}
