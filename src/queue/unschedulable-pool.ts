// The unschedulable pool: pods that fit nowhere, parked until a cluster event could help.

/** Parked pods with the logical time each was parked. Iteration order is parking order. */
export class UnschedulablePool {
  private readonly parkedAt = new Map<string, number>();

  /** Number of parked pods. */
  get size(): number {
    return this.parkedAt.size;
  }

  /** Parks `key` at logical time `now`. */
  park(key: string, now: number): void {
    this.parkedAt.delete(key);
    this.parkedAt.set(key, now);
  }

  /** Removes `key`; returns whether it was parked. */
  remove(key: string): boolean {
    return this.parkedAt.delete(key);
  }

  /** True when `key` is parked. */
  has(key: string): boolean {
    return this.parkedAt.has(key);
  }

  /** Keys of every parked pod, oldest parking first. */
  keys(): string[] {
    return [...this.parkedAt.keys()];
  }

  /** Keys parked for at least `maxParkedMs` at time `now` (kube: 5 min), oldest first. */
  parkedLongerThan(now: number, maxParkedMs: number): string[] {
    const out: string[] = [];
    for (const [key, at] of this.parkedAt) {
      if (now - at >= maxParkedMs) out.push(key);
      else break;
    }
    return out;
  }
}
