// DynamicResources' PreFilter, Filter, Reserve, PostFilter and Score for pods with claims or DRA-backed extended resources, as kube-scheduler 1.37.2 runs them.

import { groupKeyOf } from '../../cluster/core-pod-groups.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../../cluster/types.ts';
import type { PodGroupRef, ReservedClaim } from '../../events/types.ts';
import {
  type CycleState,
  cycleNowKey,
  type PostFilterResult,
  type PreFilterResult,
  type Status,
  status,
  success,
} from '../../framework/types.ts';
import type { AllocationResult, ResourceClaimInfo } from '../../model/dra-types.ts';
import type { NodeSelectorTerm } from '../../model/objects.ts';
import { matchesAnyTerm } from '../node-selector.ts';
import { allocatedState } from './allocated-state.ts';
import { type NodeAllocator, rememberingAllocator } from './allocation-memo.ts';
import { type AllocateInput, timedOutMessage } from './allocator/types.ts';
import { bindingFailed } from './binding-conditions.ts';
import {
  type ExtendedClaim,
  extendedFilter,
  extendedPreFilter,
  type NodeExtendedClaim,
} from './extended-claim.ts';
import { deviceClassFor, draBackedKey } from './extended-resources.ts';
import { claimBindings, type PodClaim, podClaims } from './pod-claims.ts';
import { celSelectorMatcher } from './selector-matcher.ts';
import { sliceIndexOf } from './slice-index-cache.ts';

/** The plugin's name, as kube's. */
export const name = 'DynamicResources';
/** The cycle state key of the pod's claims (kube's stateKey). */
const stateKey = 'DynamicResources/claims';

/**
 * Set in the cycle state as soon as the PreFilter runs (kube writes its state before it
 * looks at the pod): its PostFilter answers Error "not found" only when this is missing.
 */
export const preFilterRanKey = 'DynamicResources/prefilter-ran';

/** kube's Filter message when an allocated claim's devices cannot be used on the node. */
export const notAvailableOnNode = 'resourceclaim not available on the node';

/** What Filter found on a node: the allocations, and the special claim fitted to the node. */
interface NodeAllocation {
  readonly results: AllocationResult[];
  readonly extended?: NodeExtendedClaim;
}

/**
 * How DynamicResources runs (from its args and the log's format): `binding` checks
 * binding conditions with kube's bindingTimeout; `maxSearchSteps` bounds each node's
 * allocator search (the filter timeout's deterministic form).
 */
export interface ClaimsOptions {
  binding?: { timeoutMs: number };
  maxSearchSteps?: number;
  /** Back extended resources by DRA (DRAExtendedResource). */
  extendedResources?: boolean;
}

/**
 * The cycle's allocator: for the pod's claims alone, and for them with each special claim
 * fitted to nodes (one object per set of DRA-served resources, so one allocator each).
 */
interface ClaimsAllocator {
  readonly input: Omit<AllocateInput, 'node'>;
  readonly perNode: NodeAllocator;
  readonly withExtended: Map<NodeExtendedClaim, NodeAllocator>;
}

function allocatorFor(a: ClaimsAllocator, extended: NodeExtendedClaim | undefined): NodeAllocator {
  if (extended === undefined) return a.perNode;
  let allocator = a.withExtended.get(extended);
  if (allocator === undefined) {
    const claims = [...a.input.claims, extended.claim];
    allocator = rememberingAllocator({ ...a.input, claims });
    a.withExtended.set(extended, allocator);
  }
  return allocator;
}

/** What PreFilter found for the pod, for its Filter and Reserve. */
interface ClaimsState {
  readonly claims: readonly PodClaim[];
  /** Per claim: the node selector of its allocation (absent: usable on every node). */
  readonly availableOn: readonly (readonly NodeSelectorTerm[] | undefined)[];
  /**
   * Indexes of the allocated claims whose binding failed or timed out (kube's Filter checks
   * isClaimReadyForBinding and isClaimTimeout on every node; the answer is the same on all).
   */
  readonly bindingBlocked: readonly number[];
  /** The claims without an allocation, in the pod's order, and the allocator's inputs. */
  readonly toAllocate: readonly ResourceClaimInfo[];
  /** By index into `claims`: the allocation another member of the pod's group holds in flight. */
  readonly pending: ReadonlyMap<number, AllocationResult>;
  /** The pod's group (its claims' allocations are shared with its other members). */
  readonly group: string | undefined;
  /** By index into `claims`: the core PodGroup to reserve it for instead of the pod. */
  readonly bindTo: readonly (PodGroupRef | undefined)[] | undefined;
  readonly allocator: ClaimsAllocator | undefined;
  /** Filter's allocations by node name, for Reserve. */
  readonly nodeAllocations: Map<string, NodeAllocation>;
  /** The special claim of the pod's DRA-backed extended resources, when it has any. */
  readonly extended?: ExtendedClaim;
  readonly classes: ClusterSnapshot['objects']['DeviceClass'];
  /**
   * Indexes (into `claims`) of the allocated claims some node's Filter found unusable there
   * (kube's unavailableClaims), for PostFilter. Written by Filter, like `nodeAllocations`:
   * the cycle state is the cycle's scratch space, never the snapshot.
   */
  readonly unavailable: Set<number>;
}

/** kube's statusUnschedulable: DRA's rejections are UnschedulableAndUnresolvable. */
const unresolvable = (message: string): Status =>
  status('UnschedulableAndUnresolvable', name, message);

/** The class names a claim's requests use, with the request names kube's message gives. */
function classesOf(claim: ResourceClaimInfo): [request: string, className: string][] {
  return claim.spec.devices.requests.flatMap((r): [string, string][] =>
    r.exactly !== undefined
      ? [[r.name, r.exactly.deviceClassName]]
      : (r.firstAvailable ?? []).map((s) => [`${r.name}/${s.name}`, s.deviceClassName]),
  );
}

/**
 * kube's PreFilter: the pod's claims must exist (and be its own when made from a template);
 * an allocated claim limits the nodes to its allocation's node selector; a claim another
 * pod's allocation is in flight for waits; every class an unallocated claim names must
 * exist. Skip (Success, no state) for a pod without claims.
 */
export function claimsPreFilter(
  pod: PodInfo,
  state: CycleState,
  snapshot: ClusterSnapshot,
  opts: ClaimsOptions = {},
): PreFilterResult {
  const { binding, extendedResources = false } = opts;
  state.set(preFilterRanKey, true);
  const extended =
    extendedResources && pod.scalarRequestNames.length > 0
      ? extendedPreFilter(pod, snapshot)
      : undefined;
  if (extended !== undefined) state.set(draBackedKey, draBacked(pod, snapshot));
  if (pod.resourceClaims === undefined && extended === undefined) return success;
  const found = podClaims(pod, snapshot.objects.ResourceClaim);
  if ('message' in found) return unresolvable(found.message);
  if (found.claims.length === 0 && extended === undefined) return success;
  const availableOn: (readonly NodeSelectorTerm[] | undefined)[] = [];
  const bindingBlocked: number[] = [];
  const toAllocate: ResourceClaimInfo[] = [];
  const pending = new Map<number, AllocationResult>();
  const group = groupKeyOf(pod);
  const now = state.get(cycleNowKey);
  for (const [i, { claim }] of found.claims.entries()) {
    if (claim.invalid !== undefined)
      return unresolvable(`resourceclaim "${claim.name}" is invalid: ${claim.invalid}`);
    const allocation = claim.status?.allocation;
    availableOn.push(allocation?.nodeSelector?.nodeSelectorTerms);
    if (allocation !== undefined) {
      if (binding !== undefined && bindingFailed(claim, now, binding.timeoutMs))
        bindingBlocked.push(i);
      continue;
    }
    const held = snapshot.claimsInFlight?.get(claim.uid);
    if (held !== undefined && group !== undefined && held.group === group) {
      // kube's pendingAllocations: another member's allocation, usable where it is.
      availableOn[i] = held.allocation.nodeSelector?.nodeSelectorTerms;
      pending.set(i, held.allocation);
      continue;
    }
    if (held !== undefined)
      return unresolvable(
        `resource claim ${claim.namespace}/${claim.name} is in the process of being allocated`,
      );
    for (const [request, className] of classesOf(claim)) {
      if (className === '')
        return status('Error', name, `request ${request}: unsupported request type`);
      if (!snapshot.objects.DeviceClass.has(className))
        return unresolvable(`request ${request}: device class ${className} does not exist`);
    }
    toAllocate.push(claim);
  }
  const inMemory = extended !== undefined && extended.claim.status?.allocation === undefined;
  const input =
    toAllocate.length === 0 && !inMemory
      ? undefined
      : {
          claims: toAllocate,
          classes: snapshot.objects.DeviceClass,
          slices: sliceIndexOf(snapshot),
          allocated: allocatedState(snapshot),
          matcher: celSelectorMatcher,
          ...(opts.maxSearchSteps === undefined ? {} : { maxSearchSteps: opts.maxSearchSteps }),
        };
  const allocator =
    input === undefined
      ? undefined
      : { input, perNode: rememberingAllocator(input), withExtended: new Map() };
  const s: ClaimsState = {
    claims: found.claims,
    availableOn,
    bindingBlocked,
    toAllocate,
    pending,
    group,
    bindTo: claimBindings(pod, found.claims, snapshot.objects.CorePodGroup),
    allocator,
    nodeAllocations: new Map(),
    unavailable: new Set(),
    ...(extended === undefined ? {} : { extended }),
    classes: snapshot.objects.DeviceClass,
  };
  state.set(stateKey, s);
  return success;
}

/** True when the pod has no claim state this cycle: its Filter passes every node. */
export function claimsFilterSkip(_pod: PodInfo, state: CycleState): boolean {
  return !state.has(stateKey);
}

/**
 * kube's Filter: allocates the unallocated claims on `node` (the structured allocator), and
 * checks that every allocated claim's devices are usable there; the allocations found are
 * kept for Reserve.
 */
export function claimsFilter(pod: PodInfo, node: NodeInfo, state: CycleState): Status {
  const s = state.get(stateKey) as ClaimsState | undefined;
  if (s === undefined) return success;
  let nodeExtended: NodeExtendedClaim | undefined;
  if (s.extended !== undefined) {
    const fitted = extendedFilter(pod, node, s.extended, s.classes, name);
    if (fitted !== undefined && 'code' in fitted) return fitted;
    nodeExtended = fitted;
    // Every extended resource is the node's own (device plugin), and no claim of the pod's.
    if (nodeExtended === undefined && s.claims.length === 0) return success;
  }
  let unavailable: number[] | undefined;
  for (let i = 0; i < s.availableOn.length; i++) {
    const terms = s.availableOn[i];
    const usable = terms === undefined || matchesAnyTerm(terms, node);
    if (usable && !s.bindingBlocked.includes(i)) continue;
    unavailable ??= [];
    unavailable.push(i);
  }
  let results: AllocationResult[] | undefined;
  if (s.allocator !== undefined) {
    const outcome = allocatorFor(s.allocator, nodeExtended)(node);
    if (outcome.kind === 'error') return status('Error', name, outcome.message);
    // kube: an Error, "potentially transient": the pod backs off instead of being parked.
    if (outcome.kind === 'timeout') return status('Error', name, timedOutMessage(node.name));
    if (outcome.kind === 'unschedulable') return unresolvable(outcome.message);
    results = outcome.results;
  }
  if (unavailable !== undefined) {
    // kube remembers them only here, once the allocator found the rest a place.
    for (const i of unavailable) s.unavailable.add(i);
    return unresolvable(notAvailableOnNode);
  }
  if (results !== undefined)
    s.nodeAllocations.set(
      node.name,
      nodeExtended === undefined ? { results } : { results, extended: nodeExtended },
    );
  return success;
}

/**
 * kube's Reserve: the pod's claims, each with the allocation Filter found for it on `node`
 * when it had none; nothing for a pod without claims.
 */
export function claimsReserve(
  _pod: PodInfo,
  node: string,
  state: CycleState,
): { claims?: ReservedClaim[] } | Status {
  const s = state.get(stateKey) as ClaimsState | undefined;
  if (s === undefined) return {};
  const found = s.nodeAllocations.get(node);
  const extended = found?.extended;
  const want = s.toAllocate.length + (extended === undefined ? 0 : 1);
  if (want > 0 && found?.results.length !== want)
    return status('Error', name, 'claim allocation not found for node');
  const results = found?.results;
  let next = 0;
  const group = s.group === undefined ? {} : { group: s.group };
  const claims = s.claims.map(({ claim }, i): ReservedClaim => {
    const key = `${claim.namespace}/${claim.name}`;
    const podGroup = s.bindTo?.[i];
    const to = podGroup === undefined ? {} : { podGroup };
    if (claim.status?.allocation !== undefined) return { key, uid: claim.uid, ...to };
    const allocation = s.pending.get(i) ?? (results?.[next++] as AllocationResult);
    return { key, uid: claim.uid, allocation, ...group, ...to };
  });
  if (extended !== undefined) {
    const { claim, mappings } = extended;
    claims.push({
      key: `${claim.namespace}/${claim.name}`,
      uid: claim.uid,
      allocation: results?.[next] as AllocationResult,
      extended: { requests: claim.spec.devices.requests, mappings: [...mappings] },
    });
  }
  // A pod whose extended resources are all its node's own has nothing for DRA to write.
  return claims.length === 0 ? {} : { claims };
}

/** kube's PostFilter message when it deallocated a claim. */
export const deallocationCompleted = 'deallocation of ResourceClaim completed';
/** kube's PostFilter message when it deleted the special claim an earlier attempt left. */
export const deletionCompleted = 'deletion of ResourceClaim completed';

/**
 * kube's deallocateOrDeletePodClaims: among the claims some node's Filter found unavailable,
 * the first in the pod's order (kube picks one at random; berth must be deterministic) that
 * is reserved for nobody or only for `pod` is deallocated, and the answer is Unschedulable
 * "deallocation of ResourceClaim completed" (the core writes the claim). Else a special claim
 * of the pod's extended resources an earlier attempt left is deleted ("deletion of
 * ResourceClaim completed"). None: Unschedulable with `noneReasons`. Undefined when the pod has no claim state this cycle.
 */
export function claimsPostFilter(
  pod: PodInfo,
  state: CycleState,
  noneReasons: readonly string[],
): PostFilterResult | undefined {
  const s = state.get(stateKey) as ClaimsState | undefined;
  if (s === undefined) return undefined;
  for (const i of [...s.unavailable].sort((a, b) => a - b)) {
    const claim = (s.claims[i] as PodClaim).claim;
    // A group member's allocation still in flight is not the claim's to deallocate.
    if (claim.status?.allocation === undefined) continue;
    const holders = claim.status?.reservedFor ?? [];
    if (holders.length > 1 || (holders.length === 1 && holders[0]?.uid !== pod.uid)) continue;
    const deallocate = {
      key: `${claim.namespace}/${claim.name}`,
      uid: claim.uid,
      ...(claim.resourceVersion === undefined ? {} : { resourceVersion: claim.resourceVersion }),
    };
    return { ...status('Unschedulable', name, deallocationCompleted), deallocate };
  }
  const stale = s.extended?.inMemory === false ? s.extended.claim : undefined;
  if (stale !== undefined) {
    const rv =
      stale.resourceVersion === undefined ? {} : { resourceVersion: stale.resourceVersion };
    const key = `${stale.namespace}/${stale.name}`;
    const deallocate = { key, uid: stale.uid, ...rv, delete: true as const };
    return { ...status('Unschedulable', name, deletionCompleted), deallocate };
  }
  return status('Unschedulable', name, ...noneReasons);
}

/** kube's resourceapi.FirstAvailableDeviceRequestMaxSize: a subrequest's score is 8 minus its index. */
const firstAvailableMax = 8;

/**
 * kube's Score (DRAPrioritizedList): for each claim, the allocation on `node` (its own, or the
 * one Filter found) earns `8 - i` for each `firstAvailable` subrequest `i` it used, so nodes
 * where earlier (preferred) subrequests fit score higher. 0 when Filter allocated nothing.
 */
export function claimsScore(_pod: PodInfo, node: NodeInfo, state: CycleState): number {
  const s = state.get(stateKey) as ClaimsState | undefined;
  const results = s?.nodeAllocations.get(node.name)?.results;
  if (s === undefined || results === undefined) return 0;
  let score = 0;
  let next = 0;
  for (const [i, { claim }] of s.claims.entries()) {
    const allocation = claim.status?.allocation ?? s.pending.get(i) ?? results[next++];
    if (allocation === undefined)
      throw new Error(
        `number of allocations ${results.length} is smaller than number of claims needing allocation`,
      );
    const used = new Set(allocation.devices.results.map((r) => r.request));
    for (const request of claim.spec.devices.requests)
      (request.firstAvailable ?? []).forEach((sub, i) => {
        if (used.has(`${request.name}/${sub.name}`)) score += firstAvailableMax - i;
      });
  }
  return score;
}

/** The extended resources `pod` requests that a DeviceClass backs (for NodeResourcesFit). */
function draBacked(pod: PodInfo, snapshot: ClusterSnapshot): ReadonlySet<string> {
  const classes = snapshot.objects.DeviceClass;
  return new Set(pod.scalarRequestNames.filter((n) => deviceClassFor(classes, n) !== undefined));
}
