// The path one pod group's machine took in a recorded log, observed while berth's own core replays it.
import type { ClusterState } from '../cluster/types.ts';
import type { SealKey } from '../events/seal.ts';
import type { Envelope } from '../events/types.ts';
import type { LogPart } from '../runtime/explain-log.ts';
import type { ReplaySession } from '../runtime/replay.ts';
import { replayPart } from './trace-path.ts';

/** One step of the group machine's path: the state entered after a log event, and why. */
export interface GroupTraceStep {
  /** The state before (null for the machine's first state). */
  from: string | null;
  /** The state after the event (`(none)`: the machine was dropped, no member in flight). */
  state: string;
  /** The type of the log event whose application moved it. */
  event: string;
  seq: number;
  time: number;
  /** Gang steps the group has taken so far (a step that ends where it began shows here). */
  steps: number;
  /** The machine's reason after the event (why the group is not running), if any. */
  reason: string | null;
}

/** The state name recorded when a group's machine is dropped (no member in flight). */
export const noMachine = '(none)';

/** Watches group `key`'s machine after every envelope the core applies. */
class GroupObserver {
  session: ReplaySession | undefined;
  readonly steps: GroupTraceStep[] = [];
  private last: { state: string; steps: number; reason: string | null } | undefined;

  constructor(
    private readonly key: string,
    private readonly beforeSeq: number | undefined,
  ) {}

  applied(env: Envelope, _state: ClusterState): void {
    if (this.beforeSeq !== undefined && env.seq >= this.beforeSeq) return;
    const m = this.session?.groupMachine(this.key);
    if (m === undefined && (this.last === undefined || this.last.state === noMachine)) return;
    const now =
      m === undefined
        ? { state: noMachine, steps: 0, reason: null }
        : { state: m.state, steps: m.steps, reason: m.reason ?? null };
    const last = this.last;
    if (
      last !== undefined &&
      now.state === last.state &&
      now.steps === last.steps &&
      now.reason === last.reason
    )
      return;
    this.steps.push({
      from: last?.state ?? null,
      ...now,
      event: env.event.type,
      seq: env.seq,
      time: env.time,
    });
    this.last = now;
  }
}

/**
 * The path of group `key`'s machine (machines/pod-group.machine.ts) through the log `parts`,
 * replayed through berth's core (checked as `berth replay` checks it), up to but not
 * including seq `beforeSeq` when given. A step is recorded when the state, the step count
 * or the reason changes. Throws what replay throws for a log that cannot be read or does not replay.
 */
export function traceGroupPath(
  parts: readonly LogPart[],
  key: string,
  beforeSeq: number | undefined,
  sealKey: SealKey | undefined,
): GroupTraceStep[] {
  const observer = new GroupObserver(key, beforeSeq);
  for (const part of parts) replayPart(part, observer, sealKey);
  return observer.steps;
}
