// The allocated state the allocator reads, gathered from allocations as kube's allocatedDevices does.

import type { AllocationResult } from '../../../model/dra-types.ts';
import { nanosOf } from './quantities.ts';
import { type AllocatedState, deviceKey } from './types.ts';

/**
 * kube's allocated state from allocations (claims' status and in-flight ones alike):
 * admin-access results take nothing; a result with a shareID is a share and adds its
 * consumed capacity to the device's total; any other result holds its device whole.
 */
export function allocatedStateFrom(allocations: Iterable<AllocationResult>): AllocatedState {
  const devices = new Set<string>();
  const sharedDevices = new Set<string>();
  const consumedCapacity = new Map<string, Map<string, bigint>>();
  for (const allocation of allocations) {
    for (const r of allocation.devices.results) {
      if (r.adminAccess === true) continue;
      const id = deviceKey(r.driver, r.pool, r.device);
      if (r.shareID === undefined) {
        devices.add(id);
        continue;
      }
      sharedDevices.add(id);
      if (r.consumedCapacity === undefined) continue;
      let total = consumedCapacity.get(id);
      if (total === undefined) {
        total = new Map();
        consumedCapacity.set(id, total);
      }
      for (const [name, q] of Object.entries(r.consumedCapacity)) {
        total.set(name, (total.get(name) ?? 0n) + nanosOf(q, `device ${id}: capacity ${name}`));
      }
    }
  }
  return { devices, sharedDevices, consumedCapacity };
}
