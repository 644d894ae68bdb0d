// The devices DRA allocations hold, counted as claims and in-flight allocations come and go, so a cycle need not gather them anew.

import type { AllocationResult } from '../model/dra-types.ts';
import { parseQuantity } from './quantity.ts';

/** A device's key, `driver/pool/device`, as kube's DeviceID prints (the allocator's too). */
export function deviceKeyOf(driver: string, pool: string, device: string): string {
  return `${driver}/${pool}/${device}`;
}

/**
 * kube's allocated state, kept up to date by counting: each allocation (a claim's, or one
 * held in flight) is added once and taken away once. Admin-access results take nothing; a
 * result with a shareID is a share and adds its consumed capacity to the device's total;
 * any other result holds its device whole. The three views read as the allocator's
 * AllocatedState (`devices`, `sharedDevices`, `consumedCapacity`).
 */
export class AllocatedDevices {
  /** Devices held whole, with how many results hold them (never 0). */
  readonly devices = new Map<string, number>();
  /** Devices holding shares, with how many (never 0). */
  readonly sharedDevices = new Map<string, number>();
  /** Summed consumed capacity per shared device whose shares say what they consume. */
  readonly consumedCapacity = new Map<string, Map<string, bigint>>();
  /** How many shares of each device in `consumedCapacity` carry consumed capacity. */
  private readonly capacityShares = new Map<string, number>();
  /**
   * The first malformed consumed-capacity quantity seen, as the allocator words it. While
   * set, readers gather the state afresh, which reports the problem where it arises.
   */
  malformed: string | undefined;
  /** Per pool (`driver/pool`): the change number of the last allocation counted in or out there. */
  private readonly poolChanges = new Map<string, number>();
  private changes = 0;

  /** Moves whenever an allocation of a device of pool `driver/pool` is counted in or out (0: never). */
  poolVersion(poolId: string): number {
    return this.poolChanges.get(poolId) ?? 0;
  }

  /** Counts `allocation`'s results in. */
  add(allocation: AllocationResult | undefined): void {
    this.count(allocation, 1);
  }

  /** Counts `allocation`'s results out again (the same object or an equal one). */
  remove(allocation: AllocationResult | undefined): void {
    this.count(allocation, -1);
  }

  private count(allocation: AllocationResult | undefined, sign: 1 | -1): void {
    if (allocation === undefined) return;
    for (const r of allocation.devices.results) {
      if (r.adminAccess === true) continue;
      const id = deviceKeyOf(r.driver, r.pool, r.device);
      this.poolChanges.set(`${r.driver}/${r.pool}`, ++this.changes);
      if (r.shareID === undefined) {
        bump(this.devices, id, sign);
        continue;
      }
      bump(this.sharedDevices, id, sign);
      if (r.consumedCapacity === undefined) continue;
      this.addCapacity(id, r.consumedCapacity, sign);
    }
  }

  private addCapacity(id: string, consumed: Record<string, string>, sign: 1 | -1): void {
    let total = this.consumedCapacity.get(id);
    if (total === undefined) {
      total = new Map();
      this.consumedCapacity.set(id, total);
    }
    for (const [name, raw] of Object.entries(consumed)) {
      const parsed = parseQuantity(raw);
      if (!parsed.ok) {
        this.malformed ??= `device ${id}: capacity ${name}: ${parsed.error}`;
        continue;
      }
      const sum = (total.get(name) ?? 0n) + BigInt(sign) * parsed.q.nanos;
      total.set(name, sum);
    }
    if (bump(this.capacityShares, id, sign) === 0) this.consumedCapacity.delete(id);
  }
}

/** Adds `by` to `key`'s count, dropping the key at 0; returns the new count. */
function bump(counts: Map<string, number>, key: string, by: number): number {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
  return n;
}

/** A fresh count of `allocations` (a restored snapshot's claims and in-flight ones). */
export function countAllocations(allocations: Iterable<AllocationResult>): AllocatedDevices {
  const counted = new AllocatedDevices();
  for (const a of allocations) counted.add(a);
  return counted;
}
