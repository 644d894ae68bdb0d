// Replays a recorded log through the core and checks that every decision comes out the same.
import { performance } from 'node:perf_hooks';
import type { ClusterState } from '../cluster/types.ts';
import { parseConfig } from '../core/config.ts';
import {
  type EnvelopeInspector,
  Scheduler,
  type SchedulerOptions,
  type Step,
} from '../core/scheduler.ts';
import { type CoreSnapshot, diffSnapshots } from '../core/snapshot.ts';
import { DecisionDigest, decisionText, sameDecision } from '../events/digest.ts';
import type { LogHeader, SnapshotLine } from '../events/log-format.ts';
import { type LogEnd, LogError, type ParsedLog } from '../events/reader.ts';
import { type DecisionEvent, type Envelope, type InputEvent, isDecision } from '../events/types.ts';
import { type RunSummary, SummaryTracker } from './summary.ts';

/** A decision made during replay that differs from the recorded one. */
export interface Divergence {
  seq: number;
  /** What the log recorded at `seq`. */
  expected: string;
  /** What the replayed core decided there. */
  actual: string;
}

/** The log's own digest of its lines (`logDigest`) against the lines replay read. */
export interface LinesCheck {
  /** Line number of the closing line that records it. */
  line: number;
  recorded: string;
  read: string;
}

/** The outcome of a replay. */
export interface ReplayResult {
  summary: RunSummary;
  /** The first decision that came out differently, if any. */
  divergence: Divergence | undefined;
  /** The digest the log recorded (undefined when it was not closed cleanly). */
  recordedDigest: string | undefined;
  /** The digest of the decisions replayed in the same span (the log, or its last segment). */
  replayedDigest: string;
  /** Set when the closing line has a `logDigest`. */
  lines: LinesCheck | undefined;
  /** True when no decision diverged and the digests agree (or the log had none). */
  matches: boolean;
}

/** An inspector that passes on only what follows each envelope's application. */
function afterOnly(onApplied: (env: Envelope, state: ClusterState) => void): EnvelopeInspector {
  return (phase, env, state) => {
    if (phase === 'after') onApplied(env, state);
  };
}

function textAt(env: Envelope<DecisionEvent>): string {
  return `#${env.seq} ${decisionText(env.event)}`;
}

/**
 * One replay in progress, fed one recorded envelope at a time (so a log of any length is
 * replayed in memory that does not grow with it). Inputs are applied to a fresh core with
 * the log's logical times; whenever a recorded decision arrives with nothing owed, the core
 * runs one cycle. Every decision the core makes must equal the next recorded one, seq and
 * all; the first that differs stops the replay. Effects are not performed: their results
 * are read from the log.
 */
export class ReplaySession {
  private readonly core: Scheduler;
  private readonly tracker = new SummaryTracker();
  private readonly started = performance.now();
  private owed: Envelope<DecisionEvent>[] = [];
  private owedAt = 0;
  private diverged: Divergence | undefined;

  /** The decisions of the current segment, when replaying a directory of segments. */
  private segmentDigest: DecisionDigest | undefined;

  /**
   * Builds the core from the header, fresh or (for a segment after the first) restored from
   * its snapshot line. A header config the core refuses is a LogError on line 1; a snapshot
   * it cannot restore, on line 2. `onApplied` is called after each envelope the core has
   * applied, decisions inside a cycle included (`berth export-machines --trace`).
   */
  constructor(
    header: LogHeader,
    snapshot?: SnapshotLine,
    onApplied?: (env: Envelope, state: ClusterState) => void,
  ) {
    let config: ReturnType<typeof parseConfig>;
    try {
      config = parseConfig(header.config);
    } catch (error) {
      const reason = (error as Error).message.replace(/^config /, '');
      throw new LogError(1, `bad config in the header: ${reason}`);
    }
    // Replay carries out no command: binds, preemptions, reports and timers are not
    // performed; their results and the watch updates they caused are read from the log.
    const opts: SchedulerOptions = {
      config,
      seed: header.seed,
      ...(onApplied === undefined ? {} : { inspect: afterOnly(onApplied) }),
    };
    this.core = snapshot === undefined ? new Scheduler(opts) : restored(snapshot, opts);
    // A segment's nodes were upserted in earlier segments: count them as the summary's.
    for (const name of snapshot === undefined ? [] : this.core.state.nodes.keys())
      this.tracker.observe({
        seq: snapshot?.seq ?? 0,
        time: snapshot?.time ?? 0,
        event: { type: 'NodeUpserted', node: { metadata: { name } } },
      });
  }

  /** Keeps a digest per segment from now on (replaying several segments in one session). */
  startSegment(): void {
    this.segmentDigest = new DecisionDigest();
  }

  /** The state name of pod `uid`'s machine now, or undefined when it has none. */
  machineState(uid: string): string | undefined {
    return this.core.machineState(uid);
  }

  /** Group `key`'s machine state and reason now, or undefined when it has none. */
  groupMachine(
    key: string,
  ): { state: string; steps: number; reason: string | undefined } | undefined {
    return this.core.groupMachine(key);
  }

  /** The core's state now, as a segment's snapshot line holds it. */
  snapshot(): CoreSnapshot {
    return this.core.snapshot();
  }

  /**
   * True between steps: every decision the last input or cycle made has been matched, so
   * the core's state is the one a live core has between the same two envelopes.
   */
  get settled(): boolean {
    return this.owedAt === this.owed.length;
  }

  /** The first divergence, once there is one. */
  get divergence(): Divergence | undefined {
    return this.diverged;
  }

  /** Replays one recorded envelope; false once the replay has diverged (stop feeding). */
  feed(env: Envelope): boolean {
    if (this.diverged !== undefined) return false;
    if (isDecision(env.event)) {
      const recorded = env as Envelope<DecisionEvent>;
      if (this.owedAt === this.owed.length) {
        this.owed = this.observed(this.core.cycle(env.time));
        this.owedAt = 0;
      }
      const made = this.owed[this.owedAt++];
      if (made === undefined || made.seq !== env.seq || !sameDecision(made.event, recorded.event)) {
        const actual = made === undefined ? '(no pod to schedule)' : textAt(made);
        this.diverged = { seq: env.seq, expected: textAt(recorded), actual };
        return false;
      }
      this.segmentDigest?.add(recorded.event);
      return true;
    }
    if (this.owedAt < this.owed.length) {
      const made = this.owed[this.owedAt] as Envelope<DecisionEvent>;
      this.diverged = { seq: env.seq, expected: `(input ${env.event.type})`, actual: textAt(made) };
      return false;
    }
    this.owed = this.observed(this.core.applyInput(env as Envelope<InputEvent>));
    this.owedAt = 0;
    return true;
  }

  /** Counts a step's input and decisions in the summary; returns its decisions. */
  private observed(step: Step): Envelope<DecisionEvent>[] {
    if (step.input !== undefined) this.tracker.observe(step.input);
    for (const d of step.decisions) this.tracker.observe(d);
    return step.decisions;
  }

  /**
   * Ends the replay at the log's end. A closed log must not end between an input and the
   * decisions it led to (a log cut short by a crash may); its digest must match.
   */
  finish(end: LogEnd): ReplayResult {
    const closing = end.closing;
    if (this.diverged === undefined && this.owedAt < this.owed.length && closing !== undefined) {
      const made = this.owed[this.owedAt] as Envelope<DecisionEvent>;
      this.diverged = { seq: made.seq, expected: '(end of log)', actual: textAt(made) };
    }
    const elapsed = performance.now() - this.started;
    const summary = this.tracker.summarize(this.core.pendingReasons(), elapsed, {
      stateOf: (uid) => this.core.machineState(uid),
    });
    const recordedDigest = closing?.digest;
    const replayedDigest = this.segmentDigest?.hex() ?? summary.decisionDigest;
    const lines =
      closing?.logDigest === undefined || end.linesDigest === undefined
        ? undefined
        : { line: end.closingLine, recorded: closing.logDigest, read: end.linesDigest };
    const matches =
      this.diverged === undefined &&
      (recordedDigest === undefined || recordedDigest === replayedDigest) &&
      (lines === undefined || lines.recorded === lines.read);
    return { summary, divergence: this.diverged, recordedDigest, replayedDigest, lines, matches };
  }
}

/** A core restored from a segment's snapshot line; a snapshot it refuses is a LogError (line 2). */
function restored(snapshot: SnapshotLine, opts: SchedulerOptions): Scheduler {
  const state = snapshot.state as CoreSnapshot;
  if (state.seq !== snapshot.seq || state.time !== snapshot.time)
    throw new LogError(
      2,
      `snapshot line says seq ${snapshot.seq} at ${snapshot.time}, its state seq ${String(state.seq)} at ${String(state.time)}`,
    );
  try {
    return Scheduler.restore(state, opts).core;
  } catch (error) {
    throw new LogError(2, `cannot restore the snapshot: ${(error as Error).message}`);
  }
}

/**
 * The first difference between the state a replay reached and a segment's snapshot, or
 * undefined. The flush deadline is left out: a replay from the first segment cannot know
 * when the live run first armed its flush timer.
 */
export function snapshotDifference(
  reached: CoreSnapshot,
  recorded: CoreSnapshot,
): string | undefined {
  return diffSnapshots(reached, recorded, { ignore: ['flushDeadline'] });
}

/** Replays a log parsed whole (small logs and tests; `replayLogFile` streams a file). */
export function replay(log: ParsedLog): ReplayResult {
  const session = new ReplaySession(log.header, log.snapshot);
  for (const env of log.envelopes) if (!session.feed(env)) break;
  return session.finish(log);
}
