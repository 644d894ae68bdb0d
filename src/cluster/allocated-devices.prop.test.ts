// The reducer's running count of allocated devices always equals gathering every claim's and in-flight allocation afresh.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apply, upsert } from '../../test/support/dra-state.ts';
import type { BerthEvent } from '../events/types.ts';
import { allocatedStateFrom } from '../plugins/dra/allocator/allocated-state.ts';
import type { AllocatedState } from '../plugins/dra/allocator/types.ts';
import { initialState } from './reducer.ts';
import { restoreClusterState, serializeClusterState } from './serialize.ts';
import type { ClusterState } from './types.ts';

const result = fc.record(
  {
    request: fc.constant('gpu'),
    driver: fc.constant('gpu.example.com'),
    pool: fc.constantFrom('node-1', 'node-2'),
    device: fc.constantFrom('gpu-0', 'gpu-1', 'gpu-2'),
    adminAccess: fc.boolean(),
    shareID: fc.constantFrom('share-a', 'share-b'),
    consumedCapacity: fc.record(
      { memory: fc.constantFrom('1Gi', '512Mi', '0'), cores: fc.constantFrom('1', '2') },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['request', 'driver', 'pool', 'device'] },
);
const allocation = fc.record({
  devices: fc.record({ results: fc.array(result, { maxLength: 3 }) }),
});
const claimName = fc.constantFrom('c0', 'c1', 'c2', 'c3');
const podName = fc.constantFrom('p0', 'p1', 'p2');

type Step =
  | { op: 'claim'; name: string; generation: number; allocation?: unknown }
  | { op: 'deleteClaim'; name: string }
  | { op: 'reserve'; pod: string; attempt: number; claims: { name: string; allocation: unknown }[] }
  | { op: 'unreserve' | 'bound' | 'deletePod'; pod: string; attempt: number }
  | { op: 'restore' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record(
    {
      op: fc.constant('claim' as const),
      name: claimName,
      generation: fc.integer({ min: 0, max: 1 }),
      allocation,
    },
    { requiredKeys: ['op', 'name', 'generation'] },
  ),
  fc.record({ op: fc.constant('deleteClaim' as const), name: claimName }),
  fc.record({
    op: fc.constant('reserve' as const),
    pod: podName,
    attempt: fc.integer({ min: 1, max: 2 }),
    claims: fc.array(fc.record({ name: claimName, allocation }), { maxLength: 2 }),
  }),
  fc.record({
    op: fc.constantFrom('unreserve' as const, 'bound' as const, 'deletePod' as const),
    pod: podName,
    attempt: fc.integer({ min: 1, max: 2 }),
  }),
  fc.constant({ op: 'restore' as const }),
);

const ref = (pod: string, attempt: number) => ({ uid: `pod-${pod}`, key: `ml/${pod}`, attempt });

/** Reduces a pod event of `type` on node `n` for the step's pod and attempt. */
function podEvent(
  state: ClusterState,
  type: string,
  s: { pod: string; attempt: number },
  extra: object,
): ClusterState {
  apply(state, { type, ...ref(s.pod, s.attempt), node: 'n', ...extra } as BerthEvent);
  return state;
}

function run(state: ClusterState, s: Step): ClusterState {
  switch (s.op) {
    case 'claim':
      upsert(state, 'ResourceClaim', {
        metadata: { name: s.name, namespace: 'ml', uid: `uid-${s.name}-${s.generation}` },
        spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } },
        ...(s.allocation === undefined ? {} : { status: { allocation: s.allocation } }),
      });
      return state;
    case 'deleteClaim':
      apply(state, { type: 'ObjectDeleted', kind: 'ResourceClaim', key: `ml/${s.name}` });
      return state;
    case 'reserve': {
      const claims = s.claims.map((c) => ({
        key: `ml/${c.name}`,
        uid: `uid-${c.name}-0`,
        allocation: c.allocation,
      }));
      return podEvent(state, 'PodReserved', s, { claims });
    }
    case 'unreserve':
      return podEvent(state, 'PodUnreserved', s, { reason: 'test' });
    case 'bound':
      return podEvent(state, 'BindSucceeded', s, {});
    case 'deletePod':
      apply(state, { type: 'PodDeleted', uid: `pod-${s.pod}`, key: `ml/${s.pod}` } as BerthEvent);
      return state;
    case 'restore':
      return restoreClusterState(JSON.parse(JSON.stringify(serializeClusterState(state))));
  }
}

/**
 * Both states as sorted plain data, so a count map and a set compare; a capacity summed
 * to zero reads as none (the allocator adds nothing for it either way).
 */
function plain(a: AllocatedState) {
  const keys = (s: { has(k: string): boolean } | undefined) =>
    s === undefined ? [] : [...(s as Iterable<string> & Map<string, unknown>).keys()].sort();
  const capacity = [...(a.consumedCapacity ?? new Map())]
    .map(([id, m]) => [id, [...m].filter(([, n]) => n !== 0n).sort()] as const)
    .sort();
  return { devices: keys(a.devices), shared: keys(a.sharedDevices), capacity };
}

function gathered(state: ClusterState): AllocatedState {
  const all = [
    ...[...state.objects.ResourceClaim.values()].flatMap((c) => c.status?.allocation ?? []),
    ...[...(state.claimsInFlight?.values() ?? [])].map((h) => h.allocation),
  ];
  return allocatedStateFrom(all);
}

describe('allocated devices kept by the reducer', () => {
  it('equal the allocations gathered afresh after every event and restore', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        let state = initialState();
        for (const s of steps) {
          state = run(state, s);
          const counted = state.allocatedDevices;
          expect(counted).toBeDefined();
          expect(plain(counted as AllocatedState)).toEqual(plain(gathered(state)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
