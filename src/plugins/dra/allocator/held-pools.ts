// A node whose pools have no device left that is not held whole cannot serve a claim's first request: answered without the search.

import type { Pool } from './pools.ts';
import type { RequestData } from './requests.ts';
import { type AllocatedState, publishedDeviceKey } from './types.ts';

/** A pool's count of devices not held whole, as of the allocated state's version for it. */
interface FreeCount {
  readonly state: AllocatedState;
  readonly version: number;
  readonly free: number;
}

const counts = new WeakMap<Pool, FreeCount>();

/** How many of `pool`'s devices are not held whole in `state`, recounted only when its version moved. */
function freeDevices(pool: Pool, state: AllocatedState, version: number): number {
  const known = counts.get(pool);
  if (known !== undefined && known.state === state && known.version === version) return known.free;
  let free = 0;
  for (const slice of pool.slices)
    for (const device of slice.devices)
      if (!state.devices.has(publishedDeviceKey(pool.driver, pool.pool, device))) free++;
  counts.set(pool, { state, version, free });
  return free;
}

/**
 * A request the search can only meet by taking a device no one holds: not admin access
 * (which may take held devices), not All (its devices are fixed beforehand), at least one.
 */
const needsFreeDevice = (rd: RequestData) => !rd.adminAccess && !rd.all && rd.numDevices >= 1;

/**
 * True when the search must fail on this node, so it need not run: the first claim's first
 * request (each of its subrequests) needs a device no one holds, and every pool the search
 * would take devices from (complete and valid ones) has every device held whole. Exact:
 * the search skips held devices before looking at anything else, so it would fail at that
 * first request with the same outcome. False whenever unsure, including when `allocated`
 * keeps no per-pool versions. Returns the search steps kube would have counted, or 0.
 */
export function failsOnHeldPools(
  pools: readonly Pool[],
  requests: readonly (readonly (readonly RequestData[])[])[],
  allocated: AllocatedState,
): number {
  const version = allocated.poolVersion;
  const first = requests[0]?.[0];
  if (version === undefined || first === undefined || first.length === 0) return 0;
  if (!first.every(needsFreeDevice)) return 0;
  for (const pool of pools) {
    if (pool.incomplete || pool.invalid) continue;
    if (freeDevices(pool, allocated, version.call(allocated, pool.id)) > 0) return 0;
  }
  return first[0]?.parent === undefined ? 1 : 1 + first.length;
}
