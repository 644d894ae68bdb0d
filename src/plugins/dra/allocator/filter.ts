// The DRA part of kube's DynamicResources Filter for one node: allocated claims by selector, the rest by the allocator.

import type { AllocationResult, ResourceClaimInfo } from '../../../model/dra-types.ts';
import { matchesAnyTerm } from '../../node-selector.ts';
import { allocate } from './allocate.ts';
import { type AllocateInput, timedOutMessage } from './types.ts';

/** The Filter's message when an allocated claim's node selector excludes the node. */
export const unavailableClaimMessage = 'resourceclaim not available on the node';

/** The pod's claims (allocated or not, in the pod's order) and the allocator's world. */
export type FilterInput = AllocateInput;

/**
 * `feasible` with one new allocation per unallocated claim (in order), `unschedulable`
 * with the Filter's message (and the indices of allocated claims the node cannot use), or
 * `error` (kube's Filter returns Error: a broken claim, class or CEL expression).
 */
export type FilterOutcome =
  | { readonly kind: 'feasible'; readonly allocations: AllocationResult[] }
  | {
      readonly kind: 'unschedulable';
      readonly message: string;
      readonly unavailableClaims: number[];
    }
  | { readonly kind: 'error'; readonly message: string };

/**
 * kube's Filter for claims, default gates: an allocated claim whose allocation's node
 * selector misses the node makes the node unavailable, but only after the unallocated
 * claims were tried, so a failed allocation wins the message (kube's order).
 */
export function filterClaims(input: FilterInput): FilterOutcome {
  const unavailableClaims: number[] = [];
  const toAllocate: ResourceClaimInfo[] = [];
  input.claims.forEach((claim, i) => {
    const allocation = claim.status?.allocation;
    if (allocation === undefined) toAllocate.push(claim);
    else if (
      allocation.nodeSelector &&
      !matchesAnyTerm(allocation.nodeSelector.nodeSelectorTerms, input.node)
    ) {
      unavailableClaims.push(i);
    }
  });
  let allocations: AllocationResult[] = [];
  if (toAllocate.length > 0) {
    const outcome = allocate({ ...input, claims: toAllocate });
    if (outcome.kind === 'error') return outcome;
    if (outcome.kind === 'timeout')
      return { kind: 'error', message: timedOutMessage(input.node.name) };
    if (outcome.kind === 'unschedulable') return { ...outcome, unavailableClaims };
    allocations = outcome.results;
  }
  if (unavailableClaims.length > 0) {
    return { kind: 'unschedulable', message: unavailableClaimMessage, unavailableClaims };
  }
  return { kind: 'feasible', allocations };
}
