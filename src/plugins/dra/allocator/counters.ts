// Shared counters of partitionable devices: what allocated devices use, and what the search takes.

import type { Device } from '../../../model/dra-types.ts';
import type { Pool } from './pools.ts';
import { nanosOf } from './quantities.ts';
import { type AllocatedState, publishedDeviceKey } from './types.ts';

type CounterSets = Map<string, Map<string, bigint>>;

/** kube's IsDeviceAllocated: held whole, holding a share, or with consumed capacity. */
export function isDeviceAllocated(state: AllocatedState, id: string): boolean {
  return (
    state.devices.has(id) ||
    (state.sharedDevices?.has(id) ?? false) ||
    (state.consumedCapacity?.has(id) ?? false)
  );
}

/**
 * Tracks counters for one Allocate call: per pool, what is left after allocated devices
 * (computed once, may be negative), and what the devices being allocated consume.
 */
export class CounterTracker {
  private readonly available = new Map<string, CounterSets>();
  private readonly consumed = new Map<string, CounterSets>();

  constructor(private readonly allocated: AllocatedState) {}

  private availableFor(pool: Pool): CounterSets {
    const cached = this.available.get(pool.id);
    if (cached) return cached;
    const sets: CounterSets = new Map();
    for (const [name, counters] of pool.counterSets) {
      const m = new Map<string, bigint>();
      for (const [c, q] of Object.entries(counters)) m.set(c, nanosOf(q.value, `counter ${c}`));
      sets.set(name, m);
    }
    for (const slice of [...pool.slices, ...pool.otherSlices]) {
      for (const d of slice.devices) {
        if (
          !isDeviceAllocated(this.allocated, publishedDeviceKey(slice.driver, slice.pool.name, d))
        )
          continue;
        addUse(sets, d, -1n, false);
      }
    }
    this.available.set(pool.id, sets);
    return sets;
  }

  /**
   * Takes the device's counters when every counter of the pool stays within what is
   * available (kube compares all of them, so an over-used pool admits nothing); else
   * takes nothing and returns false.
   */
  take(pool: Pool, device: Device): boolean {
    const available = this.availableFor(pool);
    let consumed = this.consumed.get(pool.id);
    if (consumed === undefined) {
      consumed = new Map();
      this.consumed.set(pool.id, consumed);
    }
    addUse(consumed, device, 1n, true);
    for (const [setName, counters] of available) {
      const used = consumed.get(setName);
      for (const [name, left] of counters) {
        if (left < (used?.get(name) ?? 0n)) {
          this.give(pool, device);
          return false;
        }
      }
    }
    return true;
  }

  /** Returns what {@link take} took for the device. */
  give(pool: Pool, device: Device): void {
    const consumed = this.consumed.get(pool.id);
    if (consumed) addUse(consumed, device, -1n, false);
  }
}

/** Adds `sign` × the device's counter use to `sets`; creates missing entries when `create`. */
function addUse(sets: CounterSets, device: Device, sign: bigint, create: boolean): void {
  for (const use of device.consumesCounters ?? []) {
    let set = sets.get(use.counterSet);
    if (set === undefined) {
      if (!create) continue;
      set = new Map();
      sets.set(use.counterSet, set);
    }
    for (const [name, q] of Object.entries(use.counters)) {
      const current = set.get(name);
      if (current === undefined && !create) continue;
      set.set(name, (current ?? 0n) + sign * nanosOf(q.value, `counter ${name}`));
    }
  }
}
