// Running SHA-256 digests of a log: over its decisions, and over its lines.
import { createHash, type Hash } from 'node:crypto';
import type { DecisionEvent } from './types.ts';

/** The canonical one-line text of a decision; two decisions are equal iff their texts are. */
export function decisionText(d: DecisionEvent): string {
  const who = `${d.key} ${d.uid} #${d.attempt}`;
  switch (d.type) {
    case 'PodReserved':
      return d.claims === undefined
        ? `reserved ${who} ${d.node}`
        : `reserved ${who} ${d.node} claims ${JSON.stringify(d.claims)}`;
    case 'PodWaiting':
      return `waiting ${who} ${d.node} ${d.timeoutMs}`;
    case 'BindRequested':
      return `bind ${who} ${d.node}`;
    case 'PodUnreserved':
      return `unreserved ${who} ${d.node} ${d.reason}`;
    case 'PodUnschedulable':
      return `unschedulable ${who} ${d.message}`;
    case 'PodNominated':
      return `nominated ${who} ${d.node} ${d.message}`;
    case 'VictimPreempted':
      return `preempt ${who} ${d.node} ${d.victim.key} ${d.victim.uid}`;
    case 'NominationCleared':
      return `unnominate ${who} ${d.node} ${d.pod.key} ${d.pod.uid}`;
    case 'PodHeld':
      return `held ${who} ${d.node} ${d.group}`;
    case 'ClaimDeallocationRequested':
      if (d.claim.delete === true) return `delete-claim ${who} ${d.claim.key} ${d.claim.uid}`;
      return `deallocate ${who} ${d.claim.key} ${d.claim.uid} ${d.claim.resourceVersion ?? ''}`;
    case 'BindingConditionsMet':
      return `devices-ready ${who} ${d.node}`;
    case 'BindingConditionsFailed':
      return `devices-failed ${who} ${d.node} ${d.message}`;
    case 'CycleFailed':
      return `error ${who} ${d.plugin}: ${d.message}`;
    default: {
      const unreachable: never = d;
      return JSON.stringify(unreachable);
    }
  }
}

/**
 * True when two decisions have the same text (`decisionText`), compared field by field
 * without building the texts: replay calls this for every decision.
 */
export function sameDecision(a: DecisionEvent, b: DecisionEvent): boolean {
  if (a.type !== b.type || a.uid !== b.uid || a.attempt !== b.attempt || a.key !== b.key)
    return false;
  switch (a.type) {
    case 'PodReserved': {
      const c = (b as typeof a).claims;
      if (a.node !== (b as typeof a).node || (a.claims === undefined) !== (c === undefined))
        return false;
      // Claims are rare (DRA pods only); their allocations compare as the text does.
      return a.claims === undefined || JSON.stringify(a.claims) === JSON.stringify(c);
    }
    case 'BindRequested':
      return a.node === (b as typeof a).node;
    case 'PodNominated':
      return a.node === (b as typeof a).node && a.message === (b as typeof a).message;
    case 'PodWaiting':
      return a.node === (b as typeof a).node && a.timeoutMs === (b as typeof a).timeoutMs;
    case 'PodUnreserved':
      return a.node === (b as typeof a).node && a.reason === (b as typeof a).reason;
    case 'PodUnschedulable':
      return a.message === (b as typeof a).message;
    case 'CycleFailed':
      return a.plugin === (b as typeof a).plugin && a.message === (b as typeof a).message;
    default:
      return decisionText(a) === decisionText(b);
  }
}

/** Text is handed to the hash in pieces of about this many characters (fewer native calls). */
const batchChars = 64 * 1024;

/** A SHA-256 over lines of text, each followed by `\n`, fed to the hash in batches. */
export class LineDigest {
  private readonly hash: Hash = createHash('sha256');
  private pending = '';
  private lines = 0;

  /** Adds one line (without its newline). */
  add(line: string): void {
    this.pending += `${line}\n`;
    this.lines++;
    if (this.pending.length >= batchChars) this.drain();
  }

  /** How many lines have been added. */
  get count(): number {
    return this.lines;
  }

  /** Hex digest of the lines so far (does not end the digest). */
  hex(): string {
    this.drain();
    return this.hash.copy().digest('hex');
  }

  private drain(): void {
    if (this.pending === '') return;
    this.hash.update(this.pending);
    this.pending = '';
  }
}

/** Accumulates decisions into one digest; `hex()` may be called at any point. */
export class DecisionDigest {
  private readonly lines = new LineDigest();

  /** Adds one decision to the digest. */
  add(decision: DecisionEvent): void {
    this.lines.add(decisionText(decision));
  }

  /** How many decisions have been added. */
  get count(): number {
    return this.lines.count;
  }

  /** Hex digest of the decisions so far (does not end the digest). */
  hex(): string {
    return this.lines.hex();
  }
}
