// kube's selectHost: the highest weighted total, ties broken by the seeded generator.
import type { Rng } from './rng.ts';

/**
 * kube's selectHost: the index of a highest total, ties broken uniformly by reservoir
 * sampling (the k-th tie replaces the pick with probability 1/k, one `rng.nextInt(k)` per
 * tie after the first). Deterministic for a given rng state. berth walks ties in
 * filtering order; kube walks them in heap order, which is the same distribution.
 * `totals` must not be empty.
 */
export function selectHost(totals: readonly number[], rng: Rng): number {
  let best = totals[0] as number;
  let selected = 0;
  let ties = 1;
  for (let i = 1; i < totals.length; i++) {
    const t = totals[i] as number;
    if (t > best) {
      best = t;
      selected = i;
      ties = 1;
    } else if (t === best) {
      ties++;
      if (rng.nextInt(ties) === 0) selected = i;
    }
  }
  return selected;
}
