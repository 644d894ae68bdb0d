// The DRA structured allocator for one node, as kube-scheduler 1.37 runs it (incubating variant, default gates).

import { createHash } from 'node:crypto';
import type { AllocationResult, ResourceClaimInfo } from '../../../model/dra-types.ts';
import { type Constraint, makeConstraints } from './constraints.ts';
import { CounterTracker } from './counters.ts';
import { failsOnHeldPools } from './held-pools.ts';
import { gatherPools } from './pools.ts';
import { prepareRequests } from './requests.ts';
import { buildResult } from './result.ts';
import { Search } from './search.ts';
import { DeviceSelection } from './selection.ts';
import {
  type AllocateInput,
  type AllocateOutcome,
  AllocatorError,
  cannotAllocateMessage,
  invalidPoolsMessage,
  kobj,
  SearchTimeout,
} from './types.ts';

/**
 * A stable UUID-shaped shareID for the `resultIndex`-th device of a claim's allocation
 * (kube draws a random UUID; any unique value serves, and this one replays the same).
 */
export function defaultShareId(claim: ResourceClaimInfo, resultIndex: number): string {
  const h = createHash('sha256').update(`${claim.uid}/${resultIndex}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

type Found = AllocationResult[] | 'none' | 'invalidPools';

function search(input: AllocateInput, count: (calls: number) => void): Found {
  const pools = gatherPools(input.slices, input.node);
  const selection = new DeviceSelection(input.matcher, input.node);
  const constraints: Constraint[][] = [];
  const requests = prepareRequests(
    { classes: input.classes, pools, selection },
    input.claims,
    (c) => {
      const claim = input.claims[c] as ResourceClaimInfo;
      constraints.push(makeConstraints(claim.spec.devices.constraints ?? [], kobj(claim)));
    },
  );
  const skipped = failsOnHeldPools(pools, requests, input.allocated);
  if (skipped > 0) {
    count(skipped);
    return pools.some((p) => p.invalid) ? 'invalidPools' : 'none';
  }
  const s = new Search({
    claims: input.claims,
    pools,
    requests,
    constraints,
    selection,
    counters: new CounterTracker(input.allocated),
    allocated: input.allocated,
    shareId: input.shareId ?? defaultShareId,
    ...(input.maxSearchSteps === undefined ? {} : { maxCalls: input.maxSearchSteps }),
  });
  let ok: boolean;
  try {
    ok = s.run();
  } finally {
    count(s.calls);
  }
  if (!ok) return pools.some((p) => p.invalid) ? 'invalidPools' : 'none';
  return input.claims.map((claim, c) =>
    buildResult(claim, requests[c]!, s.selected[c]!, s.results[c]!, input.node),
  );
}

/**
 * Decides whether the claims can all be allocated on the node, picking exactly the devices
 * kube's allocator picks. Pure: same input, same outcome.
 *
 * - `allocated`: one AllocationResult per claim, in the claims' order;
 * - `unschedulable`: no solution on this node, with the Filter's message (`cannot allocate
 *   all claims`, or kube's invalid-pools message when some pool for the node is invalid);
 * - `error`: a broken claim, class or CEL expression, worded as kube words it;
 * - `timeout`: the search took more than `maxSearchSteps` steps (kube's filter timeout).
 */
export function allocate(input: AllocateInput): AllocateOutcome {
  return allocateCounted(input).outcome;
}

/**
 * {@link allocate}, also saying how many search steps it took (kube's
 * NumAllocateOneInvocations; 0 when it failed before searching).
 */
export function allocateCounted(input: AllocateInput): { outcome: AllocateOutcome; calls: number } {
  let calls = 0;
  const counted = (outcome: AllocateOutcome) => ({ outcome, calls });
  try {
    const r = search(input, (n) => {
      calls = n;
    });
    if (r === 'none') return counted({ kind: 'unschedulable', message: cannotAllocateMessage });
    if (r === 'invalidPools')
      return counted({ kind: 'unschedulable', message: invalidPoolsMessage });
    return counted({ kind: 'allocated', results: r });
  } catch (e) {
    if (e instanceof AllocatorError) return counted({ kind: 'error', message: e.message });
    if (e instanceof SearchTimeout) return counted({ kind: 'timeout' });
    throw e;
  }
}
