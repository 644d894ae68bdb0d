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
 * victim goes, the core schedules it again. Two preemptors nominated to the same node may
 * choose the same victim (the second one counts the first one's nomination and still needs
 * the room): it then counts for both, and its leaving frees both.
 */
export class Preemptions {
  private readonly byPreemptor = new Map<string, { node: string; victims: Set<string> }>();
  private readonly preemptorsOf = new Map<string, Set<string>>();

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
    entry.victims.add(victim);
    const preemptors = this.preemptorsOf.get(victim);
    if (preemptors === undefined) this.preemptorsOf.set(victim, new Set([uid]));
    else preemptors.add(uid);
  }

  /** True when some preemptor waits for a victim (the core checks pod changes only then). */
  hasVictims(): boolean {
    return this.preemptorsOf.size > 0;
  }

  /** The node victim `uid` is being evicted from, if it is a victim. */
  victimNode(uid: string): string | undefined {
    for (const preemptor of this.preemptorsOf.get(uid) ?? []) {
      const node = this.byPreemptor.get(preemptor)?.node;
      if (node !== undefined) return node;
    }
    return undefined;
  }

  /** Victim `uid` is gone; returns its preemptors, in the order they chose it (none if it was no victim). */
  victimGone(uid: string): string[] {
    const preemptors = this.preemptorsOf.get(uid);
    if (preemptors === undefined) return [];
    this.preemptorsOf.delete(uid);
    for (const preemptor of preemptors) this.byPreemptor.get(preemptor)?.victims.delete(uid);
    return [...preemptors];
  }

  /** How many victims preemptor `uid` still waits for (0 when it waits for none). */
  victimsLeft(uid: string): number {
    return this.byPreemptor.get(uid)?.victims.size ?? 0;
  }

  /** Forgets preemptor `uid` (its victims, when they go, concern nobody). */
  forget(uid: string): void {
    const entry = this.byPreemptor.get(uid);
    if (entry === undefined) return;
    for (const v of entry.victims) {
      const preemptors = this.preemptorsOf.get(v);
      preemptors?.delete(uid);
      if (preemptors?.size === 0) this.preemptorsOf.delete(v);
    }
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
