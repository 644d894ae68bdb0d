// The backtracking search of kube's incubating allocator: first fit in pool, slice and device order.

import type { ResourceClaimInfo } from '../../../model/dra-types.ts';
import { CapacityProblem, consumedCapacity, fitsCapacity } from './capacity.ts';
import type { Constraint } from './constraints.ts';
import type { CounterTracker } from './counters.ts';
import type { Pool } from './pools.ts';
import type { Amount } from './quantities.ts';
import { type Candidate, type RequestData, requestName } from './requests.ts';
import type { DeviceSelection } from './selection.ts';
import { taintPreventsAllocation } from './taints.ts';
import {
  type AllocatedState,
  AllocatorError,
  allocationResultsMaxSize,
  publishedDeviceKey,
  SearchTimeout,
} from './types.ts';

/** One picked device of a claim. */
export interface DeviceResult {
  readonly rd: RequestData;
  readonly candidate: Candidate;
  readonly shareId?: string;
  readonly consumed?: ReadonlyMap<string, Amount>;
}

/** What the search reads; its own state lives in {@link Search}. */
export interface SearchInput {
  readonly claims: readonly ResourceClaimInfo[];
  readonly pools: readonly Pool[];
  readonly requests: RequestData[][][];
  readonly constraints: Constraint[][];
  readonly selection: DeviceSelection;
  readonly counters: CounterTracker;
  readonly allocated: AllocatedState;
  readonly shareId: (claim: ResourceClaimInfo, resultIndex: number) => string;
  /** Throw SearchTimeout once allocateOne ran more often than this (absent: never). */
  readonly maxCalls?: number;
}

/** kube's errAllocationResultMaxSizeExceeded: a subtree needs more devices than a claim may hold. */
const maxExceeded = 'maxExceeded';
type Step = boolean | typeof maxExceeded;
type At = { c: number; r: number; s: number; d: number };
type Start = { p: number; sl: number; di: number };
const origin: Start = { p: 0, sl: 0, di: 0 };

/** One Allocate call's search state: devices and capacity being allocated, results per claim. */
export class Search {
  readonly results: DeviceResult[][];
  /** Per claim and request: the index of the subrequest picked (0 without subrequests). */
  readonly selected: number[][];
  /** How often allocateOne ran: kube's NumAllocateOneInvocations, a measure of search work. */
  calls = 0;
  private readonly allocating = new Map<string, Set<number>>();
  private readonly allocatingCapacity = new Map<string, Map<string, bigint>>();

  constructor(private readonly in_: SearchInput) {
    this.results = in_.claims.map(() => []);
    this.selected = in_.claims.map((c) => c.spec.devices.requests.map(() => 0));
  }

  /** True when every claim got all its devices. Throws AllocatorError on fatal problems. */
  run(): boolean {
    return this.allocateOne({ c: 0, r: 0, s: 0, d: 0 }, false, origin) === true;
  }

  private allocateOne(at: At, inSub: boolean, start: Start): Step {
    this.calls++;
    // kube checks its filter timeout's context here, at every step.
    if (this.in_.maxCalls !== undefined && this.calls > this.in_.maxCalls)
      throw new SearchTimeout();
    const { claims, requests } = this.in_;
    if (at.c >= claims.length) return true;
    const claimRequests = requests[at.c] as RequestData[][];
    if (at.r >= claimRequests.length) {
      const step = this.allocateOne({ c: at.c + 1, r: 0, s: 0, d: 0 }, false, origin);
      return step === maxExceeded ? false : step;
    }
    const subs = claimRequests[at.r] as RequestData[];
    const rd = subs[at.s] as RequestData;
    if (!inSub && rd.parent !== undefined) return this.firstAvailable(at, subs.length);
    if (rd.all && rd.allDevices.length === 0) return false;
    if (at.d >= rd.numDevices)
      return this.allocateOne({ c: at.c, r: at.r + 1, s: 0, d: 0 }, false, origin);
    const available = allocationResultsMaxSize - (this.results[at.c] as DeviceResult[]).length;
    if (rd.numDevices - at.d > available) return maxExceeded;
    const next = { ...at, d: at.d + 1 };
    if (rd.all) {
      const undo = this.allocateDevice(at, rd, rd.allDevices[at.d] as Candidate, true);
      if (undo === undefined) return false;
      const step = this.allocateOne(next, inSub, origin);
      if (step !== true) undo();
      return step;
    }
    return this.tryDevices(at, rd, inSub, start);
  }

  /** Tries the subrequests in order; the first that leads to a full solution wins. */
  private firstAvailable(at: At, count: number): Step {
    let allExceeded = true;
    for (let s = 0; s < count; s++) {
      const step = this.allocateOne({ ...at, s }, true, origin);
      if (step === maxExceeded) continue;
      allExceeded = false;
      if (step) {
        (this.selected[at.c] as number[])[at.r] = s;
        return true;
      }
    }
    return allExceeded ? maxExceeded : false;
  }

  private tryDevices(at: At, rd: RequestData, inSub: boolean, start: Start): Step {
    const { pools } = this.in_;
    for (let p = start.p; p < pools.length; p++) {
      const pool = pools[p] as Pool;
      if (pool.incomplete || pool.invalid) continue;
      for (let sl = p === start.p ? start.sl : 0; sl < pool.slices.length; sl++) {
        const slice = pool.slices[sl]!;
        const first = p === start.p && sl === start.sl ? start.di : 0;
        for (let di = first; di < slice.devices.length; di++) {
          const device = slice.devices[di]!;
          const id = publishedDeviceKey(pool.driver, pool.pool, device);
          if (rd.adminAccess ? this.allocatingFor(id, at.c) : this.inUse(id)) continue;
          if (!this.in_.selection.isSelectable(rd.key, rd, slice, device, id)) continue;
          const candidate = { id, device, slice, pool };
          if (!this.fits(rd, candidate, 'checking')) continue;
          const undo = this.allocateDevice(at, rd, candidate, false);
          if (undo === undefined) continue;
          const step = this.allocateOne({ ...at, d: at.d + 1 }, inSub, { p, sl, di: di + 1 });
          if (step === true) return true;
          undo();
          if (step === maxExceeded) return maxExceeded;
        }
      }
    }
    return false;
  }

  private inUse(id: string): boolean {
    return this.in_.allocated.devices.has(id) || (this.allocating.get(id)?.size ?? 0) > 0;
  }

  private allocatingFor(id: string, claim: number): boolean {
    return this.allocating.get(id)?.has(claim) ?? false;
  }

  private capacityInUse(id: string): boolean {
    const a = this.in_.allocated;
    return (
      (a.consumedCapacity?.has(id) ?? false) ||
      (a.sharedDevices?.has(id) ?? false) ||
      this.allocatingCapacity.has(id)
    );
  }

  private fits(rd: RequestData, cand: Candidate, verb: 'checking' | 'rechecking'): boolean {
    try {
      return fitsCapacity(
        this.in_.allocated.consumedCapacity?.get(cand.id),
        rd.details.capacity?.requests,
        cand.device.capacity,
        this.allocatingCapacity.get(cand.id),
      );
    } catch (e) {
      if (!(e instanceof CapacityProblem)) throw e;
      throw new AllocatorError(
        `claim ${rd.claimName}, request ${rd.name}: ${verb} capacity for device ${cand.id}: ${e.message}`,
      );
    }
  }

  /**
   * kube's allocateDevice: checks use, counters, taints, constraints and capacity, then
   * records the device. Returns the undo, or undefined when the device cannot be taken.
   */
  private allocateDevice(
    at: At,
    rd: RequestData,
    cand: Candidate,
    must: boolean,
  ): (() => void) | undefined {
    const multi = cand.device.allowMultipleAllocations === true;
    if (!multi && rd.adminAccess && this.allocatingFor(cand.id, at.c)) return undefined;
    if (!rd.adminAccess && this.inUse(cand.id)) return undefined;
    const undos: (() => void)[] = [];
    const rollback = () => {
      for (let i = undos.length - 1; i >= 0; i--) undos[i]!();
    };
    const counters = this.in_.counters;
    // A further share of a multi-allocatable device does not charge its counters again.
    if (
      !(multi && this.capacityInUse(cand.id)) &&
      (cand.device.consumesCounters?.length ?? 0) > 0
    ) {
      if (!counters.take(cand.pool, cand.device)) return undefined;
      undos.push(() => counters.give(cand.pool, cand.device));
    }
    if (taintPreventsAllocation(cand.device, rd.details.tolerations)) return this.reject(rollback);
    const base = rd.parent ?? rd.name;
    const sub = rd.parent === undefined ? '' : rd.name;
    for (const constraint of this.in_.constraints[at.c] as Constraint[]) {
      if (!constraint.add(base, sub, cand.device, cand.pool.driver)) {
        rollback();
        if (must) {
          throw new AllocatorError(
            `claim ${rd.claimName}, request ${rd.name}: cannot add device ${cand.id} because a claim constraint would not be satisfied`,
          );
        }
        return undefined;
      }
      undos.push(() => constraint.remove(base, sub, cand.device, cand.pool.driver));
    }
    if (!multi) this.mark(cand.id, at.c, undos);
    if (!this.fits(rd, cand, 'rechecking')) return this.reject(rollback);
    const results = this.results[at.c] as DeviceResult[];
    let share: Pick<DeviceResult, 'shareId' | 'consumed'> = {};
    if (multi) {
      let consumed: Map<string, Amount>;
      try {
        consumed = consumedCapacity(rd.details.capacity?.requests, cand.device.capacity ?? {});
      } catch (e) {
        rollback();
        if (!(e instanceof CapacityProblem)) throw e;
        throw new AllocatorError(
          `claim ${rd.claimName}, request ${rd.name}: computing consumed capacity for device ${cand.id}: ${e.message}`,
        );
      }
      const claim = this.in_.claims[at.c] as ResourceClaimInfo;
      share = {
        shareId: this.in_.shareId(claim, results.length),
        ...(consumed.size > 0 && { consumed }),
      };
      this.addCapacity(cand.id, consumed, undos);
    }
    results.push({ rd, candidate: cand, ...share });
    undos.push(() => results.pop());
    return rollback;
  }

  private reject(rollback: () => void): undefined {
    rollback();
    return undefined;
  }

  private mark(id: string, claim: number, undos: (() => void)[]): void {
    let set = this.allocating.get(id);
    if (set === undefined) {
      set = new Set();
      this.allocating.set(id, set);
    }
    set.add(claim);
    undos.push(() => this.allocating.get(id)?.delete(claim));
  }

  /** kube's ConsumedCapacityCollection Insert, and a Remove that keeps an earlier share's entry. */
  private addCapacity(
    id: string,
    consumed: ReadonlyMap<string, Amount>,
    undos: (() => void)[],
  ): void {
    const existed = this.allocatingCapacity.get(id);
    const entry = existed ?? new Map<string, bigint>();
    for (const [name, a] of consumed) entry.set(name, (entry.get(name) ?? 0n) + a.nanos);
    this.allocatingCapacity.set(id, entry);
    undos.push(() => {
      for (const [name, a] of consumed) entry.set(name, (entry.get(name) ?? 0n) - a.nanos);
      if ([...entry.values()].every((v) => v === 0n) && existed === undefined) {
        this.allocatingCapacity.delete(id);
      }
    });
  }
}

/** The name a result carries for a picked device. */
export function resultRequestName(r: DeviceResult): string {
  return requestName(r.rd);
}
