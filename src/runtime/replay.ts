// Replays a recorded log through the core and checks that every decision comes out the same.
import { performance } from 'node:perf_hooks';
import type { ParsedLog } from '../events/reader.ts';
import { type DecisionEvent, type Envelope, type InputEvent, isDecision } from '../events/types.ts';
import { parseConfig } from './config.ts';
import { type Divergence, Scheduler } from './scheduler.ts';
import { type RunSummary, SummaryTracker } from './summary.ts';

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

/**
 * Feeds the log's inputs back through a fresh core, in order, with the log's logical
 * times; at each recorded decision runs one scheduling cycle and compares. Stops at the
 * first divergence. Effects are not performed: their results are read from the log.
 */
export function replay(log: ParsedLog): ReplayResult {
  const tracker = new SummaryTracker();
  const core = new Scheduler({
    config: parseConfig(log.header.config),
    seed: log.header.seed,
    timers: { arm: () => {}, disarm: () => {} },
    effects: { bind: () => {} },
    onEnvelope: (env) => tracker.observe(env),
  });
  const started = performance.now();
  let divergence: Divergence | undefined;
  for (const env of log.envelopes) {
    if (isDecision(env.event)) {
      divergence = core.replayDecision(env as Envelope<DecisionEvent>);
      if (divergence !== undefined) break;
    } else {
      core.applyInput(env as Envelope<InputEvent>);
    }
  }
  const summary = tracker.summarize(core.pendingReasons(), performance.now() - started);
  const recordedDigest = log.digest?.digest;
  const matches =
    divergence === undefined &&
    (recordedDigest === undefined || recordedDigest === summary.decisionDigest);
  return { summary, divergence, recordedDigest, matches };
}
