// The snapshot's ResourceSlices indexed for the allocator, kept until a slice or taint rule moves.
import type { ClusterSnapshot } from '../../cluster/types.ts';
import { indexSlices } from './allocator/pools.ts';
import type { SliceIndex } from './allocator/types.ts';

/** The last slice index built, and what it was built from. */
let lastIndex:
  | { slices: unknown; rules: unknown; version: number | undefined; index: SliceIndex }
  | undefined;

/**
 * The snapshot's slices indexed for the allocator: built again only when a slice or taint
 * rule changed (`sliceVersion`) or the snapshot is another one, so the per-node pools it
 * memoizes last across cycles. Deterministic: the index depends on the slices alone.
 */
export function sliceIndexOf(snapshot: ClusterSnapshot): SliceIndex {
  const slices = snapshot.objects.ResourceSlice;
  const rules = snapshot.objects.DeviceTaintRule;
  const version = snapshot.sliceVersion;
  const last = lastIndex;
  const same = last?.slices === slices && last.rules === rules && last.version === version;
  if (same && last !== undefined) return last.index;
  const index = indexSlices([...slices.values()], [...rules.values()]);
  lastIndex = { slices, rules, version, index };
  return index;
}
