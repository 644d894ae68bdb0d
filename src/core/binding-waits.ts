// The binds held at DRA PreBind until their devices' binding conditions are True: what each waits for, and until when.
import type { ReservedClaim } from '../events/types.ts';

/**
 * One held bind: the attempt's pod, its node and claims (with the allocation its cycle
 * made, when it made one), the binding timeout, and — once ClaimsReserved said the claims
 * are written — the logical time the wait gives up.
 */
export interface BindingWait {
  uid: string;
  key: string;
  attempt: number;
  node: string;
  claims: ReservedClaim[];
  timeoutMs: number;
  /** Set when the claims are written and the wait began (kube's PollUntilContextTimeout). */
  deadline?: number;
}

/** The snapshot form: the waits in the order they were added. */
export type BindingWaitData = BindingWait[];

/** The held binds by pod uid (one bind per pod at a time). */
export class BindingWaits {
  private readonly byPod = new Map<string, BindingWait>();

  /** Holds the bind of `wait`'s attempt (replacing an older one of the pod). */
  add(wait: BindingWait): void {
    this.byPod.set(wait.uid, wait);
  }

  /** The held bind of pod `uid` for `attempt`, if any. */
  get(uid: string, attempt: number): BindingWait | undefined {
    const w = this.byPod.get(uid);
    return w?.attempt === attempt ? w : undefined;
  }

  /** The held bind of pod `uid`, whatever its attempt. */
  of(uid: string): BindingWait | undefined {
    return this.byPod.get(uid);
  }

  /** Forgets pod `uid`'s held bind if it is `attempt`'s. */
  remove(uid: string, attempt: number): void {
    if (this.byPod.get(uid)?.attempt === attempt) this.byPod.delete(uid);
  }

  /** The waits that began (claims written) and use claim `uid` or `key`, in insertion order. */
  waitingOn(claim: { uid?: string; key: string }): BindingWait[] {
    const out: BindingWait[] = [];
    for (const w of this.byPod.values())
      if (
        w.deadline !== undefined &&
        w.claims.some((c) => c.key === claim.key || c.uid === claim.uid)
      )
        out.push(w);
    return out;
  }

  /** How many binds are held. */
  get size(): number {
    return this.byPod.size;
  }

  /** Plain data for a snapshot. */
  snapshot(): BindingWaitData {
    return [...this.byPod.values()].map((w) => ({ ...w, claims: [...w.claims] }));
  }

  /** Rebuilt from a snapshot's data (absent in snapshots from before: none held). */
  static load(data: BindingWaitData | undefined): BindingWaits {
    const waits = new BindingWaits();
    for (const w of data ?? []) waits.add({ ...w, claims: [...w.claims] });
    return waits;
  }
}
