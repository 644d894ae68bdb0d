// The remembered allocator, and the held-pools shortcut, answer exactly as the allocator's full search, while claims are allocated, released and nodes change.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apply, driver, node, nodeSlice, upsert } from '../../../test/support/dra-state.ts';
import { initialState } from '../../cluster/reducer.ts';
import type { ClusterState, NodeInfo } from '../../cluster/types.ts';
import type { BerthEvent } from '../../events/types.ts';
import type { ResourceClaimInfo } from '../../model/dra-types.ts';
import { allocatedState } from './allocated-state.ts';
import { rememberingAllocator } from './allocation-memo.ts';
import { allocate } from './allocator/allocate.ts';
import { allocatedStateFrom } from './allocator/allocated-state.ts';
import { indexSlices } from './allocator/pools.ts';
import { celSelectorMatcher } from './selector-matcher.ts';

const nodes = ['node-0', 'node-1', 'node-2'];

/** Claim specs the steps draw from, so shapes repeat across pods. */
const specs = [
  { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] },
  { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu', count: 2 } }] },
  {
    requests: [
      {
        name: 'gpu',
        exactly: {
          deviceClassName: 'gpu',
          selectors: [{ cel: { expression: 'device.attributes["gpu.example.com"].big == true' } }],
        },
      },
    ],
  },
  {
    requests: [
      {
        name: 'gpu',
        firstAvailable: [
          { name: 'two', deviceClassName: 'gpu', count: 2 },
          { name: 'one', deviceClassName: 'gpu' },
        ],
      },
    ],
  },
  { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu', adminAccess: true } }] },
  // Classes of equal content share answers; the classes two requests share still count.
  { requests: [{ name: 'gpu', exactly: { deviceClassName: 'twin' } }] },
  pair('configured', 'configured'),
  pair('configured', 'configured-twin'),
  pair('configured-twin', 'configured'),
];

function pair(a: string, b: string) {
  return {
    requests: [
      { name: 'a', exactly: { deviceClassName: a } },
      { name: 'b', exactly: { deviceClassName: b } },
    ],
  };
}

type Step =
  | { op: 'allocate'; spec: number; node: number; reserve: boolean }
  | { op: 'release'; pod: number }
  | { op: 'relabel'; node: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('allocate' as const),
    spec: fc.nat(specs.length - 1),
    node: fc.nat(nodes.length - 1),
    reserve: fc.boolean(),
  }),
  fc.record({ op: fc.constant('release' as const), pod: fc.nat(20) }),
  fc.record({ op: fc.constant('relabel' as const), node: fc.nat(nodes.length - 1) }),
);

function cluster(devices: number[]): { state: ClusterState; infos: NodeInfo[] } {
  const state = initialState();
  const selectors = [{ cel: { expression: `device.driver == "${driver}"` } }];
  const config = [{ opaque: { driver, parameters: { mode: 'fast' } } }];
  for (const name of ['gpu', 'twin'])
    upsert(state, 'DeviceClass', { metadata: { name }, spec: { selectors } });
  for (const name of ['configured', 'configured-twin'])
    upsert(state, 'DeviceClass', { metadata: { name }, spec: { selectors, config } });
  nodes.forEach((n, i) => {
    const list = Array.from({ length: devices[i] ?? 0 }, (_, d) => ({
      name: `gpu-${d}`,
      attributes: { big: { bool: d % 2 === 0 } },
    }));
    upsert(state, 'ResourceSlice', nodeSlice(n, list));
  });
  return { state, infos: nodes.map(node) };
}

function* allocationsOf(state: ClusterState) {
  for (const c of state.objects.ResourceClaim.values())
    if (c.status?.allocation !== undefined) yield c.status.allocation;
  for (const held of state.claimsInFlight?.values() ?? []) yield held.allocation;
}

function claim(spec: number, n: number): ResourceClaimInfo {
  const name = `c${n}`;
  return {
    name,
    namespace: 'ml',
    uid: `uid-${name}`,
    spec: { devices: specs[spec] },
  } as unknown as ResourceClaimInfo;
}

describe('the remembered allocator', () => {
  it('answers as the allocator does, step after step', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 3, maxLength: 3 }),
        fc.array(step, { maxLength: 25 }),
        (devices, steps) => {
          const { state, infos } = cluster(devices);
          const slices = indexSlices(
            [...state.objects.ResourceSlice.values()],
            [...state.objects.DeviceTaintRule.values()],
          );
          steps.forEach((s, i) => {
            if (s.op === 'release') {
              apply(state, {
                type: 'PodDeleted',
                uid: `pod-${s.pod}`,
                key: `ml/p${s.pod}`,
              } as BerthEvent);
              return;
            }
            const info = infos[s.node] as NodeInfo;
            if (s.op === 'relabel') {
              info.generation += 1;
              return;
            }
            const input = {
              claims: [claim(s.spec, i)],
              classes: state.objects.DeviceClass,
              slices,
              allocated: allocatedState(state),
              matcher: celSelectorMatcher,
            };
            const remembered = rememberingAllocator(input)(info);
            expect(remembered).toEqual(allocate({ ...input, node: info }));
            // Gathered afresh, the state keeps no pool versions: no shortcut for held pools.
            const gathered = allocatedStateFrom(allocationsOf(state));
            expect(remembered).toEqual(allocate({ ...input, allocated: gathered, node: info }));
            if (!s.reserve || remembered.kind !== 'allocated') return;
            const claims = [
              { key: `ml/c${i}`, uid: `uid-c${i}`, allocation: remembered.results[0] },
            ];
            const ref = { uid: `pod-${i % 21}`, key: `ml/p${i % 21}`, attempt: 1 };
            apply(state, { type: 'PodReserved', ...ref, node: info.name, claims } as BerthEvent);
          });
        },
      ),
      { numRuns: 600 },
    );
  });
});
