// InterPodAffinity's Filter counts: PreFilter's topology sums, plus what AddPod/RemovePod changed in a what-if.
import type { NodeInfo } from '../../cluster/types.ts';
import { TopologySums } from './topology-sums.ts';

/** One map of counts PreFilter added, with its weight. */
interface Added {
  readonly pairs: ReadonlyMap<string, number>;
  readonly weight: number;
}

/** PreFilter's part: shared by every clone, never changed once PreFilter is done. */
interface Base {
  readonly sums: TopologySums;
  readonly added: Added[];
  /** Every pair's count added up; worked out the first time it is needed. */
  total: number | undefined;
}

/**
 * kube's topologyToMatchedTermCount (topology key → value → count) for Filter: PreFilter's
 * sums (which may read the pod affinity index's maps, so valid for one cycle) and a small
 * map of changes of our own that `adjust` writes (kube's AddPod/RemovePod). A clone shares
 * PreFilter's part and copies only the changes. Counts are never negative when only pods
 * that were counted are taken away.
 */
export class PairCounts {
  private constructor(
    private readonly base: Base,
    private readonly changes: Map<string, Map<string, number>>,
    private changed: number,
  ) {}

  /** Counts with nothing in them yet (PreFilter then `add`s). */
  static empty(): PairCounts {
    return new PairCounts({ sums: new TopologySums(), added: [], total: undefined }, new Map(), 0);
  }

  /** The counts of a walk (topology key → value → count), each with weight 1. */
  static of(counts: ReadonlyMap<string, ReadonlyMap<string, number>>): PairCounts {
    const c = PairCounts.empty();
    for (const [key, values] of counts) c.add(key, values, 1);
    return c;
  }

  /** PreFilter only: adds `weight` × `pairs` under `key` (see TopologySums.add). */
  add(key: string, pairs: ReadonlyMap<string, number>, weight: number): void {
    if (pairs.size === 0 || weight === 0) return;
    this.base.sums.add(key, pairs, weight);
    this.base.added.push({ pairs, weight });
    this.base.total = undefined;
  }

  /** The count at the pair (`key`, `node`'s value for it); 0 when the node lacks `key`. */
  at(node: NodeInfo, key: string): number {
    const n = this.base.sums.at(node, key);
    if (this.changes.size === 0) return n;
    const values = this.changes.get(key);
    if (values === undefined || !Object.hasOwn(node.labels, key)) return n;
    return n + (values.get(node.labels[key] as string) ?? 0);
  }

  /** The topology keys that have (or had) a count. */
  keys(): Iterable<string> {
    if (this.changes.size === 0) return this.base.sums.keys();
    const keys = new Set(this.base.sums.keys());
    for (const key of this.changes.keys()) keys.add(key);
    return keys;
  }

  /** True when no pair has a count (kube's empty map: its zero entries are deleted). */
  isEmpty(): boolean {
    if (this.base.sums.size === 0) {
      for (const values of this.changes.values()) if (values.size > 0) return false;
      return true;
    }
    // PreFilter's counts are positive: with no net removal some pair still has one.
    if (this.changed >= 0) return false;
    return this.baseTotal() + this.changed === 0;
  }

  /** kube's update: adds `by` at the pair (`key`, `node`'s value for it); nothing without `key`. */
  adjust(node: NodeInfo, key: string, by: number): void {
    if (by === 0 || !Object.hasOwn(node.labels, key)) return;
    const value = node.labels[key] as string;
    let values = this.changes.get(key);
    if (values === undefined) {
      values = new Map();
      this.changes.set(key, values);
    }
    const n = (values.get(value) ?? 0) + by;
    if (n === 0) values.delete(value);
    else values.set(value, n);
    this.changed += by;
  }

  /** A copy whose `adjust` leaves this one as it is (kube's clone). */
  clone(): PairCounts {
    const changes = new Map<string, Map<string, number>>();
    for (const [key, values] of this.changes) changes.set(key, new Map(values));
    return new PairCounts(this.base, changes, this.changed);
  }

  private baseTotal(): number {
    if (this.base.total === undefined) {
      let total = 0;
      for (const a of this.base.added) for (const n of a.pairs.values()) total += n * a.weight;
      this.base.total = total;
    }
    return this.base.total;
  }
}
