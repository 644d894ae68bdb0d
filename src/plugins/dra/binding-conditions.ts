// Device binding conditions (DRADeviceBindingConditions), as kube-scheduler 1.37.2's DynamicResources checks them at Filter and PreBind.
import { parseTimestampMs } from '../../cluster/timestamps.ts';
import type {
  AllocatedDeviceStatus,
  AllocationResult,
  DeviceRequestAllocationResult,
  ResourceClaimInfo,
} from '../../model/dra-types.ts';

/** kube's DynamicResourcesArgs.bindingTimeout default (DynamicResourcesBindingTimeoutDefault). */
export const defaultBindingTimeoutMs = 600_000;

/** kube's ErrDeviceBindingTimeout text. */
export const bindingTimeoutText = 'device binding timeout';
/** kube's ErrDeviceBindingFailed text. */
export const bindingFailedText = 'device binding failed';

/**
 * Where a claim or a pod stands with its binding conditions: every one True (or none to
 * wait for), some still pending, or failed (a binding-failure condition True, the claim
 * gone, or timed out), with kube's error text.
 */
export type BindingState =
  | { readonly kind: 'ready' }
  | { readonly kind: 'pending' }
  | { readonly kind: 'failed'; readonly message: string };

const ready: BindingState = { kind: 'ready' };
const pending: BindingState = { kind: 'pending' };

/** The claim fields the checks read (a parsed ResourceClaimInfo has them). */
export interface ClaimBindingView {
  name: string;
  status?: { allocation?: AllocationResult; devices?: readonly AllocatedDeviceStatus[] };
}

/** True when some device of `allocation` carries binding conditions (kube's hasBindingConditions). */
export function hasBindingConditions(allocation: AllocationResult | undefined): boolean {
  return (allocation?.devices.results ?? []).some((r) => (r.bindingConditions?.length ?? 0) > 0);
}

/** kube's getAllocatedDeviceStatus: the device's status entry, by driver, pool and device. */
function statusOf(
  devices: readonly AllocatedDeviceStatus[] | undefined,
  r: DeviceRequestAllocationResult,
): AllocatedDeviceStatus | undefined {
  return devices?.find((d) => d.device === r.device && d.driver === r.driver && d.pool === r.pool);
}

/** Go's %q for a message (close enough: JSON's escapes for what Go escapes). */
function quoted(s: string): string {
  return JSON.stringify(s);
}

/**
 * kube's isClaimReadyForBinding for `claim` with `allocation` (its own, or the one PreBind
 * just wrote): not allocated is pending; per device with binding conditions, in order, no
 * status yet is pending, a binding-failure condition True fails (`device binding failed:
 * claim=NAME, reason=R, message="M"`), a binding condition not True is pending.
 */
export function claimBindingState(
  claim: ClaimBindingView,
  allocation: AllocationResult | undefined = claim.status?.allocation,
): BindingState {
  if (allocation === undefined) return pending;
  for (const r of allocation.devices.results) {
    if ((r.bindingConditions?.length ?? 0) === 0) continue;
    const s = statusOf(claim.status?.devices, r);
    if (s === undefined) return pending;
    for (const type of r.bindingFailureConditions ?? []) {
      const c = s.conditions?.find((x) => x.type === type);
      if (c?.status === 'True')
        return {
          kind: 'failed',
          message: `${bindingFailedText}: claim=${claim.name}, reason=${c.reason ?? ''}, message=${quoted(c.message ?? '')}`,
        };
    }
    for (const type of r.bindingConditions ?? [])
      if (s.conditions?.find((x) => x.type === type)?.status !== 'True') return pending;
  }
  return ready;
}

/**
 * kube's isClaimTimeout: the allocation has a device with binding conditions and was
 * stamped (`allocationTimestamp`) more than `timeoutMs` before `now` (logical ms).
 */
export function claimTimedOut(
  allocation: AllocationResult | undefined,
  now: number,
  timeoutMs: number,
): boolean {
  const stamped = parseTimestampMs(allocation?.allocationTimestamp);
  if (stamped === undefined || !hasBindingConditions(allocation)) return false;
  return stamped + timeoutMs < now;
}

/**
 * kube's isPodReadyForBinding over the pod's claims, in order: a claim gone fails (the
 * assume cache's `could not find ResourceClaim "ns/name"`); the
 * first claim failed or pending decides (pending past its timeout fails with `device
 * binding timeout: claim=NAME`); all ready is ready. `allocation` (when given) stands in
 * for a claim's own, which the watch may not show yet right after PreBind wrote it.
 */
export function podBindingState(
  claims: readonly {
    key: string;
    claim: ClaimBindingView | undefined;
    allocation?: AllocationResult;
  }[],
  now: number,
  timeoutMs: number,
): BindingState {
  for (const { key, claim, allocation } of claims) {
    if (claim === undefined)
      return { kind: 'failed', message: `could not find ResourceClaim ${quoted(key)}` };
    const own = claim.status?.allocation ?? allocation;
    const state = claimBindingState(claim, own);
    if (state.kind === 'failed') return state;
    if (state.kind === 'pending') {
      if (claimTimedOut(own, now, timeoutMs))
        return { kind: 'failed', message: `${bindingTimeoutText}: claim=${claim.name}` };
      return pending;
    }
  }
  return ready;
}

/**
 * kube's Filter check of an allocated claim: a binding-failure condition True, or binding
 * conditions still pending past the binding timeout (from `allocationTimestamp`, at the
 * cycle's logical time `now`; without one, no timeout is seen).
 */
export function bindingFailed(claim: ResourceClaimInfo, now: unknown, timeoutMs: number): boolean {
  const state = claimBindingState(claim);
  if (state.kind === 'failed') return true;
  return (
    state.kind === 'pending' &&
    typeof now === 'number' &&
    claimTimedOut(claim.status?.allocation, now, timeoutMs)
  );
}
