// Replays a recorded log through the core and checks that every decision comes out the same.
import { performance } from 'node:perf_hooks';
import { parseConfig } from '../core/config.ts';
import { Scheduler } from '../core/scheduler.ts';
import { decisionText } from '../events/digest.ts';
import type { ParsedLog } from '../events/reader.ts';
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

/** The outcome of a replay. */
export interface ReplayResult {
  summary: RunSummary;
  /** The first decision that came out differently, if any. */
  divergence: Divergence | undefined;
  /** The digest the log recorded (undefined when it was not closed cleanly). */
  recordedDigest: string | undefined;
  /** True when no decision diverged and the digests agree (or the log had none). */
  matches: boolean;
}

function textAt(env: Envelope<DecisionEvent>): string {
  return `#${env.seq} ${decisionText(env.event)}`;
}

/**
 * Feeds the log's inputs back through a fresh core, in order, with the log's logical
 * times. Every decision the core makes (after an input, or in a cycle started where the
 * log shows a cycle's first decision) must equal the next recorded decision, seq and all.
 * Stops at the first divergence. Effects are not performed: their results are read from
 * the log.
 */
export function replay(log: ParsedLog): ReplayResult {
  const tracker = new SummaryTracker();
  const core = new Scheduler({
    config: parseConfig(log.header.config),
    seed: log.header.seed,
    timers: { armPod: () => {}, disarmPod: () => {}, armFlush: () => {} },
    effects: { bind: () => {} },
    onEnvelope: (env) => tracker.observe(env),
  });
  const started = performance.now();
  const owed: Envelope<DecisionEvent>[] = [];
  let divergence: Divergence | undefined;
  for (const env of log.envelopes) {
    if (isDecision(env.event)) {
      const recorded = env as Envelope<DecisionEvent>;
      if (owed.length === 0) owed.push(...core.runCycle(env.time));
      const made = owed.shift();
      const expected = textAt(recorded);
      const actual = made === undefined ? '(no pod to schedule)' : textAt(made);
      if (actual !== expected) {
        divergence = { seq: env.seq, expected, actual };
        break;
      }
      continue;
    }
    if (owed.length > 0) {
      const made = owed[0] as Envelope<DecisionEvent>;
      divergence = { seq: env.seq, expected: `(input ${env.event.type})`, actual: textAt(made) };
      break;
    }
    owed.push(...core.applyInput(env as Envelope<InputEvent>));
  }
  // A log cut short by a crash may end between an input and the decisions it led to.
  if (divergence === undefined && owed.length > 0 && log.digest !== undefined) {
    const made = owed[0] as Envelope<DecisionEvent>;
    divergence = { seq: made.seq, expected: '(end of log)', actual: textAt(made) };
  }
  const summary = tracker.summarize(core.pendingReasons(), performance.now() - started);
  const recordedDigest = log.digest?.digest;
  const matches =
    divergence === undefined &&
    (recordedDigest === undefined || recordedDigest === summary.decisionDigest);
  return { summary, divergence, recordedDigest, matches };
}
