// The unschedulable pool: pods that fit nowhere, parked until a cluster event could help.

/** A parked pod: when it was parked and which plugins rejected it (for queueing hints). */
export interface ParkedPod {
  at: number;
  plugins: readonly string[];
}

/** Parked pods by uid. Iteration order is parking order. */
export class UnschedulablePool {
  private readonly parkedAt = new Map<string, ParkedPod>();

  /** Number of parked pods. */
  get size(): number {
    return this.parkedAt.size;
  }

  /** Parks `key` at logical time `now`, rejected by `plugins`. */
  park(key: string, now: number, plugins: readonly string[] = []): void {
    this.parkedAt.delete(key);
    this.parkedAt.set(key, { at: now, plugins });
  }

  /** Every parked pod, in parking order (read-only view). */
  entries(): IterableIterator<[string, ParkedPod]> {
    return this.parkedAt.entries();
  }

  /**
   * Fills an empty pool from `entries()` output, in parking order (which
   * `parkedLongerThan` relies on). Throws for a non-empty pool or a key parked twice.
   */
  load(entries: Iterable<readonly [string, ParkedPod]>): void {
    if (this.parkedAt.size > 0) throw new Error('unschedulable pool: load into a non-empty pool');
    for (const [key, { at, plugins }] of entries) {
      if (this.parkedAt.has(key)) throw new Error(`unschedulable pool: ${key} is parked twice`);
      this.parkedAt.set(key, { at, plugins: [...plugins] });
    }
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
    for (const [key, { at }] of this.parkedAt) {
      if (now - at >= maxParkedMs) out.push(key);
      else break;
    }
    return out;
  }
}
