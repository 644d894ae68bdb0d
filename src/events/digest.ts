// A running SHA-256 digest over the decisions of a log, in order.
import { createHash, type Hash } from 'node:crypto';
import type { DecisionEvent } from './types.ts';

/** The canonical one-line text of a decision; two decisions are equal iff their texts are. */
export function decisionText(decision: DecisionEvent): string {
  return decision.type === 'PodAssumed'
    ? `assumed ${decision.key} ${decision.node}`
    : `unschedulable ${decision.key} ${decision.message}`;
}

/** Accumulates decisions into one digest; `hex()` may be called at any point. */
export class DecisionDigest {
  private readonly hash: Hash = createHash('sha256');
  private decisions = 0;

  /** Adds one decision to the digest. */
  add(decision: DecisionEvent): void {
    this.hash.update(decisionText(decision));
    this.hash.update('\n');
    this.decisions++;
  }

  /** How many decisions have been added. */
  get count(): number {
    return this.decisions;
  }

  /** Hex digest of the decisions so far (does not end the digest). */
  hex(): string {
    return this.hash.copy().digest('hex');
  }
}
