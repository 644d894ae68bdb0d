// The preemptors waiting for their victims to leave the node they are nominated to.

/** One waiting preemptor as a snapshot holds it. */
export interface PreemptionData {
  uid: string;
  node: string;
  /** Victims not yet seen gone, in the order they were chosen. */
  victims: string[];
}

/**
 * Which victims each preemptor still waits for, and whose victim each pod is. A victim is
 * gone once it is deleted, replaced, finished or charged elsewhere; when a preemptor's last
 * victim goes, the core schedules it again. A victim of two preemptors (possible only when
 * the first gave up) counts for the later one.
 */
export class Preemptions {
  private readonly byPreemptor = new Map<string, { node: string; victims: Set<string> }>();
  private readonly preemptorOf = new Map<string, string>();

  /** Restores from `preemptions()` data. */
  static load(data: readonly PreemptionData[]): Preemptions {
    const p = new Preemptions();
    for (const d of data) {
      p.start(d.uid, d.node);
      for (const v of d.victims) p.addVictim(d.uid, v);
    }
    return p;
  }

  /** Preemptor `uid` was nominated to `node`; its victims follow (forgets an older preemption). */
  start(uid: string, node: string): void {
    this.forget(uid);
    this.byPreemptor.set(uid, { node, victims: new Set() });
  }

  /** Preemptor `uid` waits for `victim` to go. */
  addVictim(uid: string, victim: string): void {
    const entry = this.byPreemptor.get(uid);
    if (entry === undefined) return;
    const earlier = this.preemptorOf.get(victim);
    if (earlier !== undefined) this.byPreemptor.get(earlier)?.victims.delete(victim);
    entry.victims.add(victim);
    this.preemptorOf.set(victim, uid);
  }

  /** True when some preemptor waits for a victim (the core checks pod changes only then). */
  hasVictims(): boolean {
    return this.preemptorOf.size > 0;
  }

  /** The node victim `uid` is being evicted from, if it is a victim. */
  victimNode(uid: string): string | undefined {
    const preemptor = this.preemptorOf.get(uid);
    return preemptor === undefined ? undefined : this.byPreemptor.get(preemptor)?.node;
  }

  /** Victim `uid` is gone; returns its preemptor, if it had one. */
  victimGone(uid: string): string | undefined {
    const preemptor = this.preemptorOf.get(uid);
    if (preemptor === undefined) return undefined;
    this.preemptorOf.delete(uid);
    this.byPreemptor.get(preemptor)?.victims.delete(uid);
    return preemptor;
  }

  /** How many victims preemptor `uid` still waits for (0 when it waits for none). */
  victimsLeft(uid: string): number {
    return this.byPreemptor.get(uid)?.victims.size ?? 0;
  }

  /** Forgets preemptor `uid` (its victims, when they go, concern nobody). */
  forget(uid: string): void {
    const entry = this.byPreemptor.get(uid);
    if (entry === undefined) return;
    for (const v of entry.victims) this.preemptorOf.delete(v);
    this.byPreemptor.delete(uid);
  }

  /** The waiting preemptors as plain data, in the order they started. */
  snapshot(): PreemptionData[] {
    const out: PreemptionData[] = [];
    for (const [uid, e] of this.byPreemptor)
      out.push({ uid, node: e.node, victims: [...e.victims] });
    return out;
  }
}
