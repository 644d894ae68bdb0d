// Follows the log to report a run: which pods berth placed, which are pending and why.
import { DecisionDigest } from '../events/digest.ts';
import type { Envelope } from '../events/types.ts';
import { isDecision } from '../events/types.ts';

/** The result of a run, as `simulate --json` and `replay --json` print it. */
export interface RunSummary {
  nodes: number;
  /** Pods berth had to schedule (pending for its scheduler name when seen). */
  pods: number;
  scheduled: number;
  unschedulable: number;
  /** `namespace/name` → node, for every pod berth bound. */
  placements: Record<string, string>;
  /** `namespace/name` → why it is not bound, for every pod still pending. */
  pending: Record<string, string>;
  decisionDigest: string;
  podsPerSecond: number;
  elapsedMs: number;
}

/** Tracks berth's pods and placements from envelopes, and digests the decisions. */
export class SummaryTracker {
  readonly digest = new DecisionDigest();
  /** `namespace/name` → the uid berth bound under that name and its node. */
  private readonly placements = new Map<string, { uid: string; node: string }>();
  private readonly nodeNames = new Set<string>();

  /** Observes one envelope (call with every envelope, in order). */
  observe(env: Envelope): void {
    const event = env.event;
    if (isDecision(event)) {
      this.digest.add(event);
      return;
    }
    switch (event.type) {
      case 'BindSucceeded':
        this.placements.set(event.key, { uid: event.uid, node: event.node });
        return;
      case 'PodDeleted':
        if (this.placements.get(event.key)?.uid === event.uid) this.placements.delete(event.key);
        return;
      case 'NodeUpserted':
        if (typeof event.node?.metadata?.name === 'string')
          this.nodeNames.add(event.node.metadata.name);
        return;
      case 'NodeDeleted':
        this.nodeNames.delete(event.name);
        return;
      default:
        return;
    }
  }

  /** Builds the summary; `pending` comes from the scheduler's in-flight machines. */
  summarize(pending: Map<string, string>, elapsedMs: number): RunSummary {
    const placements = Object.fromEntries(
      [...this.placements]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, placed]) => [key, placed.node]),
    );
    const pendingObj = Object.fromEntries([...pending].sort(([a], [b]) => (a < b ? -1 : 1)));
    const scheduled = this.placements.size;
    return {
      nodes: this.nodeNames.size,
      pods: scheduled + pending.size,
      scheduled,
      unschedulable: pending.size,
      placements,
      pending: pendingObj,
      decisionDigest: this.digest.hex(),
      podsPerSecond: elapsedMs > 0 ? Math.round((scheduled / elapsedMs) * 1000) : 0,
      elapsedMs: Math.round(elapsedMs),
    };
  }
}
