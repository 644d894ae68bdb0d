// A running SHA-256 digest over the decisions of a log, in order.
import { createHash, type Hash } from 'node:crypto';
import type { DecisionEvent } from './types.ts';

/** The canonical one-line text of a decision; two decisions are equal iff their texts are. */
export function decisionText(d: DecisionEvent): string {
  const who = `${d.key} ${d.uid} #${d.attempt}`;
  switch (d.type) {
    case 'PodReserved':
      return `reserved ${who} ${d.node}`;
    case 'PodWaiting':
      return `waiting ${who} ${d.node} ${d.timeoutMs}`;
    case 'BindRequested':
      return `bind ${who} ${d.node}`;
    case 'PodUnreserved':
      return `unreserved ${who} ${d.node} ${d.reason}`;
    case 'PodUnschedulable':
      return `unschedulable ${who} ${d.message}`;
    case 'CycleFailed':
      return `error ${who} ${d.plugin}: ${d.message}`;
    default: {
      const unreachable: never = d;
      return JSON.stringify(unreachable);
    }
  }
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
