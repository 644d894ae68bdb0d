// The devices DRA claims hold (kube's GatherAllocatedState): every claim's allocation and every allocation still in flight.
import type { AllocationResult } from '../../cluster/dra-types.ts';
import type { ClusterSnapshot } from '../../cluster/types.ts';
import { nanosOf } from './allocator/quantities.ts';
import { type AllocatedState, deviceKey } from './allocator/types.ts';

/** Adds the devices of `allocation` to the sets being built (admin access holds nothing). */
function addAllocation(
  allocation: AllocationResult,
  devices: Set<string>,
  shared: Set<string>,
  consumed: Map<string, Map<string, bigint>>,
): void {
  for (const r of allocation.devices.results) {
    if (r.adminAccess === true) continue;
    const id = deviceKey(r.driver, r.pool, r.device);
    if (r.shareID === undefined) {
      devices.add(id);
      continue;
    }
    shared.add(id);
    for (const [capacity, amount] of Object.entries(r.consumedCapacity ?? {})) {
      const sums = consumed.get(id) ?? new Map<string, bigint>();
      consumed.set(id, sums);
      let nanos = 0n;
      try {
        nanos = nanosOf(amount, `consumedCapacity ${capacity}`);
      } catch {
        // A result the API server accepted always parses; an unparsable one holds nothing.
      }
      sums.set(capacity, (sums.get(capacity) ?? 0n) + nanos);
    }
  }
}

/**
 * What is allocated in `snapshot`: the allocation of every ResourceClaim, and every
 * allocation a reserved pod holds in flight (its claim does not show it yet). Deterministic.
 */
export function allocatedState(snapshot: ClusterSnapshot): AllocatedState {
  const devices = new Set<string>();
  const sharedDevices = new Set<string>();
  const consumedCapacity = new Map<string, Map<string, bigint>>();
  for (const claim of snapshot.objects.ResourceClaim.values()) {
    const allocation = claim.status?.allocation;
    if (allocation !== undefined)
      addAllocation(allocation, devices, sharedDevices, consumedCapacity);
  }
  for (const held of snapshot.claimsInFlight?.values() ?? [])
    addAllocation(held.allocation, devices, sharedDevices, consumedCapacity);
  return { devices, sharedDevices, consumedCapacity };
}
