// Writes a log through an injected line sink: header first, events as they happen, digest last.
import { DecisionDigest } from './digest.ts';
import { encodeDigest, encodeEnvelope, encodeHeader, type LogHeader } from './log-format.ts';
import { type Envelope, isDecision } from './types.ts';

/** Receives complete lines (no trailing newline). The sink owns buffering and I/O. */
export type LineSink = (line: string) => void;

/** Records a run. The recorder itself does no I/O: the sink does. */
export class Recorder {
  private readonly digest = new DecisionDigest();
  private closed = false;

  /** Writes the header line at once. */
  constructor(
    private readonly sink: LineSink,
    header: LogHeader,
  ) {
    sink(encodeHeader(header));
  }

  /** Appends one event line; decisions also go into the digest. */
  record(env: Envelope): void {
    if (this.closed) return;
    if (isDecision(env.event)) this.digest.add(env.event);
    this.sink(encodeEnvelope(env));
  }

  /** Writes the closing digest line; later records are ignored. Returns the digest. */
  close(): string {
    const hex = this.digest.hex();
    if (!this.closed) {
      this.sink(encodeDigest({ kind: 'digest', decisions: this.digest.count, digest: hex }));
      this.closed = true;
    }
    return hex;
  }
}
