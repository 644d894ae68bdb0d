// The devices DRA claims hold (kube's GatherAllocatedState): every claim's allocation and every allocation still in flight.

import { heldAllocations } from '../../cluster/claims-in-flight.ts';
import type { ClusterSnapshot } from '../../cluster/types.ts';
import { allocatedStateFrom } from './allocator/allocated-state.ts';
import type { AllocatedState } from './allocator/types.ts';

/**
 * What is allocated in `snapshot`: the allocation of every ResourceClaim, and every
 * allocation a reserved pod holds in flight (its claim does not show it yet). The reducer's
 * running count when the snapshot keeps one; gathered afresh otherwise (a hand-built
 * snapshot, or a malformed quantity, which the gathering reports). Deterministic.
 */
export function allocatedState(snapshot: ClusterSnapshot): AllocatedState {
  const counted = snapshot.allocatedDevices;
  if (counted !== undefined && counted.malformed === undefined) return counted;
  return allocatedStateFrom(
    heldAllocations(snapshot.objects.ResourceClaim.values(), snapshot.claimsInFlight),
  );
}
