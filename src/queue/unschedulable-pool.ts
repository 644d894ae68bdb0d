// The unschedulable pool: pods that fit nowhere, parked until a cluster event could help.

/** A parked pod: when it was parked and which plugins rejected it (for queueing hints). */
export interface ParkedPod {
  at: number;
  plugins: readonly string[];
}

/**
 * Parked pods by uid. Iteration order is parking order. Each pod is also indexed by the
 * plugins that rejected it, so that a cluster change finds the pods its hints could help
 * without visiting every parked pod.
 */
export class UnschedulablePool {
  private readonly parkedAt = new Map<string, ParkedPod>();
  /** Each parked pod's place in parking order (for sorting what the index finds). */
  private readonly order = new Map<string, number>();
  /** Plugin name → the parked pods it rejected; `''` → pods rejected by no named plugin. */
  private readonly byPlugin = new Map<string, Set<string>>();
  private nextOrder = 0;

  /** Number of parked pods. */
  get size(): number {
    return this.parkedAt.size;
  }

  /** Parks `key` at logical time `now`, rejected by `plugins`. */
  park(key: string, now: number, plugins: readonly string[] = []): void {
    this.remove(key);
    this.parkedAt.set(key, { at: now, plugins });
    this.index(key, plugins);
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
      this.index(key, plugins);
    }
  }

  /** Removes `key`; returns whether it was parked. */
  remove(key: string): boolean {
    const entry = this.parkedAt.get(key);
    if (entry === undefined) return false;
    this.parkedAt.delete(key);
    this.order.delete(key);
    for (const plugin of entry.plugins.length === 0 ? [''] : entry.plugins) {
      const keys = this.byPlugin.get(plugin);
      keys?.delete(key);
      if (keys?.size === 0) this.byPlugin.delete(plugin);
    }
    return true;
  }

  /** True when `key` is parked. */
  has(key: string): boolean {
    return this.parkedAt.has(key);
  }

  /** Keys of every parked pod, oldest parking first. */
  keys(): string[] {
    return [...this.parkedAt.keys()];
  }

  /**
   * Keys of the parked pods that some plugin matching `rejectedBy` rejected, and of those
   * rejected by no named plugin, in parking order. Visits only those pods (plus a sort),
   * unless they are many, then every parked pod once.
   */
  parkedWhere(rejectedBy: (plugin: string) => boolean): string[] {
    const sets: Set<string>[] = [];
    let total = 0;
    for (const [plugin, keys] of this.byPlugin)
      if (plugin === '' || rejectedBy(plugin)) {
        sets.push(keys);
        total += keys.size;
      }
    if (total === 0) return [];
    if (total * 4 >= this.parkedAt.size) return this.scan(rejectedBy);
    const found = new Set<string>();
    for (const keys of sets) for (const key of keys) found.add(key);
    const order = this.order;
    return [...found].sort((a, b) => (order.get(a) as number) - (order.get(b) as number));
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

  /** `parkedWhere` by visiting every parked pod. */
  private scan(rejectedBy: (plugin: string) => boolean): string[] {
    const out: string[] = [];
    for (const [key, { plugins }] of this.parkedAt)
      if (plugins.length === 0 || plugins.some(rejectedBy)) out.push(key);
    return out;
  }

  private index(key: string, plugins: readonly string[]): void {
    this.order.set(key, this.nextOrder++);
    for (const plugin of plugins.length === 0 ? [''] : plugins) {
      let keys = this.byPlugin.get(plugin);
      if (keys === undefined) {
        keys = new Set();
        this.byPlugin.set(plugin, keys);
      }
      keys.add(key);
    }
  }
}
