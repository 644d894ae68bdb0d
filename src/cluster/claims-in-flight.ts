// DRA allocations decided and not yet on their claims (kube's pending allocations), and the claims each reserved pod's bind writes.
import type { ExtendedClaimSpec, PodGroupRef, ReservedClaim } from '../events/types.ts';
import type { AllocationResult, ResourceClaimInfo } from '../model/dra-types.ts';
import { type AllocatedDevices, countAllocations } from './allocated-devices.ts';

/**
 * An allocation a reserved pod's cycle chose for a claim, held as allocated until the
 * claim itself shows an allocation (its bind wrote it, or someone else's did), the claim is
 * deleted, or the reservation is released.
 */
export interface ClaimInFlight {
  /** The claim's `namespace/name`. */
  key: string;
  podUid: string;
  attempt: number;
  allocation: AllocationResult;
  /** The reserving pod's group: its other members share the allocation (see ReservedClaim). */
  group?: string;
  /** The other pods of `group` reserved with this allocation; it is held while any is. */
  sharers?: string[];
}

/** The claims a reserved pod's bind writes (kube's PreBind), for its attempt. */
export interface ClaimReservation {
  attempt: number;
  claims: ReservedClaim[];
}

/** Where the state keeps them (both created on first use). */
export interface ClaimsInFlightState {
  /** By claim uid. */
  claimsInFlight?: Map<string, ClaimInFlight>;
  /** By pod uid. */
  claimReservations?: Map<string, ClaimReservation>;
  /**
   * Bumped on every change of a ResourceSlice or DeviceTaintRule (absent: none yet), so
   * what is derived from the slices alone can be kept until it moves.
   */
  sliceVersion?: number;
  /**
   * The devices claims' allocations and in-flight ones hold, counted as they change
   * (absent: not kept, e.g. a hand-built state; readers then gather them).
   */
  allocatedDevices?: AllocatedDevices;
}

/** Reserve: holds the allocations of `claims` and remembers what the pod's bind writes. */
export function reserveClaims(
  state: ClaimsInFlightState,
  podUid: string,
  attempt: number,
  claims: readonly ReservedClaim[],
): void {
  releaseClaims(state, podUid);
  state.claimReservations ??= new Map();
  state.claimReservations.set(podUid, { attempt, claims: [...claims] });
  for (const c of claims) {
    if (c.allocation === undefined) continue;
    state.claimsInFlight ??= new Map();
    const held = state.claimsInFlight.get(c.uid);
    if (held !== undefined && held.group !== undefined && held.group === c.group) {
      // Another member of the group shares the pending allocation: it is held once.
      held.sharers = [...(held.sharers ?? []), podUid];
      continue;
    }
    state.allocatedDevices?.remove(held?.allocation);
    const group = c.group === undefined ? {} : { group: c.group };
    state.claimsInFlight.set(c.uid, {
      key: c.key,
      podUid,
      attempt,
      allocation: c.allocation,
      ...group,
    });
    state.allocatedDevices?.add(c.allocation);
  }
}

/** Takes pod `podUid` off claim `uid`'s in-flight allocation; it ends with its last holder. */
function letGo(state: ClaimsInFlightState, uid: string, podUid: string): void {
  const held = state.claimsInFlight?.get(uid);
  if (held === undefined) return;
  const sharers = held.sharers ?? [];
  let rest = sharers.filter((u) => u !== podUid);
  if (held.podUid === podUid) {
    const [next, ...others] = rest;
    if (next === undefined) {
      dropInFlight(state, uid);
      return;
    }
    held.podUid = next;
    rest = others;
  }
  if (rest.length > 0) held.sharers = rest;
  else delete held.sharers;
}

/**
 * Unreserve (a failed bind, a rejected wait, the pod gone): drops the pod's reservation and
 * the allocations it held in flight; with `attempt`, only if they are that attempt's.
 */
export function releaseClaims(state: ClaimsInFlightState, podUid: string, attempt?: number): void {
  const reservation = state.claimReservations?.get(podUid);
  if (reservation === undefined) return;
  if (attempt !== undefined && reservation.attempt !== attempt) return;
  state.claimReservations?.delete(podUid);
  for (const c of reservation.claims) letGo(state, c.uid, podUid);
}

/**
 * The pod's bind went out and succeeded: its reservation is done, but the allocations stay
 * in flight until the claims' watch shows them (the bind's claim writes may arrive later).
 */
export function bindDone(state: ClaimsInFlightState, podUid: string, attempt: number): void {
  const reservation = state.claimReservations?.get(podUid);
  if (reservation?.attempt === attempt) state.claimReservations?.delete(podUid);
}

/**
 * A claim changed (`after`) or was deleted (undefined): an allocation held in flight for it
 * ends once the claim carries one, or once it is gone (a recreated claim has another uid).
 */
export function claimChanged(
  state: ClaimsInFlightState,
  before: ResourceClaimInfo | undefined,
  after: ResourceClaimInfo | undefined,
): void {
  state.allocatedDevices?.remove(before?.status?.allocation);
  state.allocatedDevices?.add(after?.status?.allocation);
  if (after === undefined) {
    if (before === undefined) return;
    dropInFlight(state, before.uid);
    // The special claim of a pod's extended resources was held under berth's stand-in uid.
    if (before.extendedResourceClaim === true && before.ownerPodUid !== undefined)
      dropInFlight(state, inMemoryExtendedUid(before.ownerPodUid));
    return;
  }
  if (before !== undefined && before.uid !== after.uid) dropInFlight(state, before.uid);
  if (after.status?.allocation === undefined) return;
  dropInFlight(state, after.uid);
  if (after.extendedResourceClaim === true && after.ownerPodUid !== undefined)
    dropInFlight(state, inMemoryExtendedUid(after.ownerPodUid));
}

/** Ends the in-flight allocation of claim `uid`, if one is held, and uncounts it. */
function dropInFlight(state: ClaimsInFlightState, uid: string): void {
  const held = state.claimsInFlight?.get(uid);
  if (held === undefined) return;
  state.claimsInFlight?.delete(uid);
  state.allocatedDevices?.remove(held.allocation);
}

/**
 * Counts the devices held anew from `claims` (the state's ResourceClaims) and the in-flight
 * allocations, e.g. after a snapshot restore filled both without counting.
 */
export function recountAllocatedDevices(
  state: ClaimsInFlightState,
  claims: Iterable<ResourceClaimInfo>,
): void {
  state.allocatedDevices = countAllocations(heldAllocations(claims, state.claimsInFlight));
}

/**
 * Every allocation that holds devices: each claim's own (from `claims`), then each one
 * held in flight (its claim does not show it yet), as kube's GatherAllocatedState walks them.
 */
export function* heldAllocations(
  claims: Iterable<ResourceClaimInfo>,
  inFlight: ReadonlyMap<string, ClaimInFlight> | undefined,
): Generator<AllocationResult> {
  for (const claim of claims)
    if (claim.status?.allocation !== undefined) yield claim.status.allocation;
  for (const held of inFlight?.values() ?? []) yield held.allocation;
}

/**
 * The uid a pod's special claim for its DRA-backed extended resources is held under until
 * the claim the bind creates shows its allocation (kube's in-memory claim has a random one).
 */
export function inMemoryExtendedUid(podUid: string): string {
  return `<extended-resources>/${podUid}`;
}

function isExtendedSpec(v: unknown): v is ExtendedClaimSpec {
  if (typeof v !== 'object' || v === null) return false;
  const { requests, mappings } = v as Record<string, unknown>;
  return Array.isArray(requests) && Array.isArray(mappings);
}

function isPodGroupRef(v: unknown): v is PodGroupRef {
  if (typeof v !== 'object' || v === null) return false;
  const { name, uid } = v as Record<string, unknown>;
  return typeof name === 'string' && typeof uid === 'string';
}

function isAllocation(v: unknown): v is AllocationResult {
  if (typeof v !== 'object' || v === null) return false;
  const devices = (v as { devices?: unknown }).devices;
  return (
    typeof devices === 'object' &&
    devices !== null &&
    Array.isArray((devices as { results?: unknown }).results)
  );
}

/**
 * The well-formed entries of a PodReserved's `claims` (a recorded log may hold anything):
 * string key and uid, and an allocation with a results list when there is one.
 */
export function reservedClaimsOf(v: unknown): ReservedClaim[] {
  if (!Array.isArray(v)) return [];
  const out: ReservedClaim[] = [];
  for (const c of v) {
    if (typeof c !== 'object' || c === null) continue;
    const { key, uid, allocation, extended, group, podGroup } = c as Record<string, unknown>;
    if (typeof key !== 'string' || typeof uid !== 'string') continue;
    if (allocation !== undefined && !isAllocation(allocation)) continue;
    if (extended !== undefined && (!isExtendedSpec(extended) || allocation === undefined)) continue;
    out.push({
      key,
      uid,
      ...(allocation === undefined ? {} : { allocation }),
      ...(typeof group === 'string' && allocation !== undefined ? { group } : {}),
      ...(isPodGroupRef(podGroup) ? { podGroup: { name: podGroup.name, uid: podGroup.uid } } : {}),
      ...(extended === undefined ? {} : { extended }),
    });
  }
  return out;
}

/** The snapshot form: both maps as [key, value] pairs in map order; absent when empty. */
export interface ClaimsInFlightData {
  claimsInFlight?: [string, ClaimInFlight][];
  claimReservations?: [string, ClaimReservation][];
}

/** `state`'s in-flight claims and reservations as snapshot data (plain JSON). */
export function claimsInFlightData(state: ClaimsInFlightState): ClaimsInFlightData {
  const held = state.claimsInFlight;
  const reservations = state.claimReservations;
  return {
    ...(held === undefined || held.size === 0 ? {} : { claimsInFlight: [...held] }),
    ...(reservations === undefined || reservations.size === 0
      ? {}
      : { claimReservations: [...reservations] }),
  };
}

/**
 * Restores what `claimsInFlightData` wrote (absent in older snapshots: nothing in flight);
 * malformed data goes to `fail`.
 */
export function restoreClaimsInFlight(
  state: ClaimsInFlightState,
  data: ClaimsInFlightData,
  fail: (message: string) => never,
): void {
  const pairs = (v: unknown, what: string): [string, unknown][] => {
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((p) => !Array.isArray(p) || typeof p[0] !== 'string'))
      fail(`cluster.${what} is not a list of [key, value] pairs`);
    return v as [string, unknown][];
  };
  for (const [uid, c] of pairs(data.claimsInFlight, 'claimsInFlight')) {
    state.claimsInFlight ??= new Map();
    state.claimsInFlight.set(uid, c as ClaimInFlight);
  }
  for (const [uid, r] of pairs(data.claimReservations, 'claimReservations')) {
    state.claimReservations ??= new Map();
    state.claimReservations.set(uid, r as ClaimReservation);
  }
}
