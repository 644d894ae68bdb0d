// Weighted sums of topology pair counts: InterPodAffinity's counts and scores, read without copying the index's maps.
import type { NodeInfo } from '../../cluster/types.ts';

/** One map of counts by topology value, and the weight it adds with. */
interface Part {
  readonly pairs: ReadonlyMap<string, number>;
  readonly weight: number;
}

interface KeySum {
  parts: Part[];
  /** The parts summed into one map of our own, once there were too many to read one by one. */
  own: Map<string, number> | undefined;
}

/** Beyond this many parts under one key, they are summed into one map (one lookup per read). */
const maxParts = 8;

function addInto(own: Map<string, number>, pairs: ReadonlyMap<string, number>, weight: number) {
  for (const [value, n] of pairs) own.set(value, (own.get(value) ?? 0) + n * weight);
}

/**
 * kube's topologyToMatchedTermCount / scoreMap (topology key → value → number), kept as
 * weighted sums of count maps: the maps may be the pod affinity index's own, read and never
 * written, so a value is valid for one cycle (until the state next changes). All numbers
 * are integers, so the order of the parts does not change a sum.
 */
export class TopologySums {
  private readonly byKey = new Map<string, KeySum>();

  /** The counts of a walk (topology key → value → count), each with weight 1. */
  static of(counts: ReadonlyMap<string, ReadonlyMap<string, number>>): TopologySums {
    const sums = new TopologySums();
    for (const [key, values] of counts) sums.add(key, values, 1);
    return sums;
  }

  /** Adds `weight` × `pairs` under the topology key `key`; an empty map adds nothing. */
  add(key: string, pairs: ReadonlyMap<string, number>, weight: number): void {
    if (pairs.size === 0 || weight === 0) return;
    let sum = this.byKey.get(key);
    if (sum === undefined) {
      sum = { parts: [], own: undefined };
      this.byKey.set(key, sum);
    }
    if (sum.own !== undefined) {
      addInto(sum.own, pairs, weight);
      return;
    }
    sum.parts.push({ pairs, weight });
    if (sum.parts.length <= maxParts) return;
    const own = new Map<string, number>();
    for (const p of sum.parts) addInto(own, p.pairs, p.weight);
    sum.own = own;
    sum.parts = [{ pairs: own, weight: 1 }];
  }

  /** How many topology keys have something added (0: no pair was counted or weighed). */
  get size(): number {
    return this.byKey.size;
  }

  /** The topology keys with something added. */
  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  /** The sum at the pair (`key`, `node`'s value for it); 0 when the node lacks `key`. */
  at(node: NodeInfo, key: string): number {
    const sum = this.byKey.get(key);
    if (sum === undefined || !Object.hasOwn(node.labels, key)) return 0;
    const value = node.labels[key] as string;
    let total = 0;
    for (const p of sum.parts) total += (p.pairs.get(value) ?? 0) * p.weight;
    return total;
  }

  /** The sums at every pair the node has a label for, added up (kube's Score). */
  total(node: NodeInfo): number {
    let total = 0;
    for (const key of this.byKey.keys()) total += this.at(node, key);
    return total;
  }
}
