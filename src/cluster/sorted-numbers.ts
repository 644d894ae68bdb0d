// A sorted multiset of numbers in blocks of at most 256: insert, remove and count below a bound
// in O(log n + 256), whatever the values (many nodes often have the same free amount).

/** Largest block before it is split in two. */
const maxBlock = 256;

/**
 * Numbers kept in ascending order, as a list of sorted blocks (each block's values are all
 * ≤ the next block's). A change shifts at most one block, so nodes that fill evenly (and
 * so sit close together in the order) cost no more to move than scattered ones.
 */
export class SortedNumbers {
  private blocks: number[][] = [];
  private count = 0;

  /** How many values are held. */
  get size(): number {
    return this.count;
  }

  /** How many held values are strictly below `x`. */
  countBelow(x: number): number {
    const b = this.firstBlockReaching(x);
    let below = 0;
    for (let i = 0; i < b; i++) below += (this.blocks[i] as number[]).length;
    const block = this.blocks[b];
    return block === undefined ? below : below + lowerBound(block, x);
  }

  /** The values in ascending order (a copy; for tests and checks). */
  toArray(): number[] {
    return this.blocks.flat();
  }

  /** Adds `v`. */
  insert(v: number): void {
    let b = this.firstBlockReaching(v);
    if (b === this.blocks.length) b--;
    if (b < 0) {
      this.blocks.push([v]);
      this.count++;
      return;
    }
    const block = this.blocks[b] as number[];
    block.splice(lowerBound(block, v), 0, v);
    this.count++;
    if (block.length > maxBlock) this.blocks.splice(b + 1, 0, block.splice(maxBlock >> 1));
  }

  /** Removes one `v`; returns false when `v` is not held. */
  remove(v: number): boolean {
    const b = this.firstBlockReaching(v);
    const block = this.blocks[b];
    if (block === undefined) return false;
    const at = lowerBound(block, v);
    if (block[at] !== v) return false;
    block.splice(at, 1);
    this.count--;
    if (block.length === 0) this.blocks.splice(b, 1);
    return true;
  }

  /** Replaces one `old` by `v` (just inserts `v` when `old` is not held). */
  replace(old: number, v: number): void {
    this.remove(old);
    this.insert(v);
  }

  /** Index of the first block whose last value is ≥ x (blocks.length when none). */
  private firstBlockReaching(x: number): number {
    const blocks = this.blocks;
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = blocks[mid] as number[];
      if ((block[block.length - 1] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** First index of `a` (sorted) whose value is ≥ x. */
function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
