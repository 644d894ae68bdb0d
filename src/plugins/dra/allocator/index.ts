// The DRA structured allocator's public API: index slices once, then allocate or filter per node.

export { allocate, allocateCounted, defaultShareId } from './allocate.ts';
export { allocatedStateFrom } from './allocated-state.ts';
export {
  type FilterInput,
  type FilterOutcome,
  filterClaims,
  unavailableClaimMessage,
} from './filter.ts';
export { indexSlices } from './pools.ts';
export {
  type AllocatedState,
  type AllocateInput,
  type AllocateOutcome,
  allocationResultsMaxSize,
  type CapacityAmounts,
  type CelDevice,
  cannotAllocateMessage,
  deviceKey,
  invalidPoolsMessage,
  type SelectorMatcher,
  type SliceIndex,
  type TaintRules,
} from './types.ts';
