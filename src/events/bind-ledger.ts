// The binds requested in a log and not yet answered: each result must answer one, once.
import type { OpenBind } from './log-format.ts';
import type {
  AttemptRef,
  BindFailed,
  BindRequested,
  BindSucceeded,
  ClaimsReserved,
} from './types.ts';

function attemptKey(ref: AttemptRef): string {
  return `${ref.attempt} ${ref.uid}`;
}

/** Tracks open bind commands (BindRequested) until their result is seen. */
export class BindLedger {
  /** `attempt uid` → the BindRequested (or snapshot entry) that opened it. */
  private readonly open = new Map<string, OpenBind>();

  /** Starts from the binds a segment's snapshot line says are open. */
  constructor(openBinds: readonly OpenBind[] = []) {
    for (const bind of openBinds) this.open.set(attemptKey(bind), bind);
  }

  /** A bind command was recorded. */
  request(d: BindRequested): void {
    this.open.set(attemptKey(d), d);
  }

  /**
   * A bind result was recorded: closes its bind and returns undefined, or says why it
   * answers none (never requested, already answered, or another node).
   */
  answer(r: BindSucceeded | BindFailed): string | undefined {
    const problem = this.check(r);
    if (problem === undefined) this.open.delete(attemptKey(r));
    return problem;
  }

  /**
   * Whether `r` names an open bind (same attempt, pod and node) without closing it: undefined,
   * or why not (ClaimsReserved: a bind's PreBind result, which keeps the bind open).
   */
  check(r: BindSucceeded | BindFailed | ClaimsReserved): string | undefined {
    const bind = this.open.get(attemptKey(r));
    const which = `${r.key} (uid ${r.uid}) attempt ${r.attempt}`;
    if (bind === undefined)
      return `${r.type} of ${which} answers no open BindRequested (never requested, or already answered)`;
    if (bind.key !== r.key)
      return `${r.type} of ${which} names pod ${r.key}, but its BindRequested named ${bind.key}`;
    if (bind.node !== r.node)
      return `${r.type} of ${which} names node ${r.node}, but its BindRequested named ${bind.node}`;
    return undefined;
  }

  /** The binds still open, in the order they were requested. */
  list(): OpenBind[] {
    return [...this.open.values()].map(({ uid, key, attempt, node }) => ({
      uid,
      key,
      attempt,
      node,
    }));
  }

  /** How many binds are open. */
  get size(): number {
    return this.open.size;
  }
}
