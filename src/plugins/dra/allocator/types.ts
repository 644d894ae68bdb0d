// The DRA allocator's inputs and outputs: allocated state, the injected CEL matcher, outcomes.

import { deviceKeyOf } from '../../../cluster/allocated-devices.ts';
import type {
  AllocationResult,
  Device,
  DeviceClassInfo,
  DeviceTaintRuleInfo,
  ResourceClaimInfo,
  ResourceSliceInfo,
} from '../../../model/dra-types.ts';
import type { NodeLike } from '../../node-selector.ts';
import type { CelDevice } from '../cel-env.ts';

/** The most devices one claim's allocation may hold (kube's AllocationResultsMaxSize). */
export const allocationResultsMaxSize = 32;

/** A device as a CEL selector sees it (kube's cel.Device). */
export type { CelDevice } from '../cel-env.ts';

/**
 * Evaluates one CEL selector expression against a device. An error is a compile error when
 * `compileError` is true, else a runtime error; kube words the two differently.
 */
export type SelectorMatcher = (
  expression: string,
  device: CelDevice,
) => { matches: boolean } | { error: string; compileError?: boolean };

/** Capacity name → consumed amount in nano-units. */
export type CapacityAmounts = ReadonlyMap<string, bigint>;

/** A set of device keys, as the allocator asks it (a Set, or a map of counts). */
export interface DeviceKeys {
  has(key: string): boolean;
}

/**
 * What is allocated already (kube's AllocatedState), keyed by {@link deviceKey}: claims'
 * allocations and in-flight (reserved, not yet written) allocations alike.
 */
export interface AllocatedState {
  /** Devices held whole by some claim (admin-access results do not count). */
  readonly devices: DeviceKeys;
  /** Devices holding at least one share (results with a shareID). */
  readonly sharedDevices?: DeviceKeys;
  /** The summed consumed capacity of each shared device. */
  readonly consumedCapacity?: ReadonlyMap<string, CapacityAmounts>;
  /**
   * A number that moves whenever an allocation of a device of pool `driver/pool` comes or
   * goes, whole or shared (absent: not tracked; what is derived from it is recomputed).
   */
  poolVersion?(poolId: string): number;
}

/** The key of a device: `driver/pool/device`, as kube's DeviceID prints. */
export const deviceKey: (driver: string, pool: string, device: string) => string = deviceKeyOf;

/** Each published device's key, made once (a device object belongs to one slice's pool). */
const publishedKeys = new WeakMap<Device, string>();

/**
 * {@link deviceKey} of a device a slice publishes, built once per device object: the same
 * string every time, so the sets it is looked up in hash it once.
 */
export function publishedDeviceKey(driver: string, pool: string, device: Device): string {
  let key = publishedKeys.get(device);
  if (key === undefined) {
    key = deviceKey(driver, pool, device.name);
    publishedKeys.set(device, key);
  }
  return key;
}

/** All slices of a snapshot, grouped as kube's allocator groups them (see indexSlices). */
export interface SliceIndex {
  readonly byNode: ReadonlyMap<string, readonly ResourceSliceInfo[]>;
  readonly shared: readonly ResourceSliceInfo[];
  readonly all: readonly ResourceSliceInfo[];
}

/** Everything one Allocate call reads. */
export interface AllocateInput {
  /** The pod's unallocated claims, in the pod's order. */
  readonly claims: readonly ResourceClaimInfo[];
  readonly classes: ReadonlyMap<string, DeviceClassInfo>;
  /** From {@link indexSlices}: build it once per snapshot and reuse it for every node. */
  readonly slices: SliceIndex;
  readonly allocated: AllocatedState;
  readonly node: NodeLike;
  readonly matcher: SelectorMatcher;
  /**
   * The shareID of a new share of a multi-allocatable device. kube draws a random UUID;
   * berth derives it from the claim and the result's position so replays agree.
   */
  readonly shareId?: (claim: ResourceClaimInfo, resultIndex: number) => string;
  /**
   * The most search steps (allocateOne calls) the search may take before it gives up as
   * timed out: berth's deterministic stand-in for kube's FilterTimeout (see
   * `filterTimeoutSteps`). Absent: no limit.
   */
  readonly maxSearchSteps?: number;
}

/** DeviceTaintRules a slice index applies (kube's ResourceSlice tracker). */
export type TaintRules = readonly DeviceTaintRuleInfo[];

/**
 * The outcome for one node: one AllocationResult per claim (in the claims' order), or
 * "cannot allocate" with the plugin's Unschedulable message, or an error (kube's
 * Filter returns Error: a broken claim, class or CEL expression).
 */
export type AllocateOutcome =
  | { readonly kind: 'allocated'; readonly results: AllocationResult[] }
  | { readonly kind: 'unschedulable'; readonly message: string }
  | { readonly kind: 'error'; readonly message: string }
  /** The search used up `maxSearchSteps` (kube: the filter timeout's context expired). */
  | { readonly kind: 'timeout' };

/** kube's Filter error when the allocator's filter timeout expired on `node`. */
export function timedOutMessage(node: string): string {
  return `node ${node}: timed out trying to allocate devices`;
}

/** The Filter's message when the allocator finds no solution on the node. */
export const cannotAllocateMessage = 'cannot allocate all claims';
/** The Filter's message when no solution was found and some pool for the node is invalid. */
export const invalidPoolsMessage = 'invalid resource pools were encountered';

/** A fatal allocation problem: Allocate returns it as an `error` outcome. */
export class AllocatorError extends Error {}

/** The search used up its steps: Allocate returns a `timeout` outcome. */
export class SearchTimeout extends Error {}

/** kube's klog.KObj for a namespaced object: `namespace/name`, or `name` without namespace. */
export function kobj(o: { namespace?: string; name: string }): string {
  return o.namespace ? `${o.namespace}/${o.name}` : o.name;
}
