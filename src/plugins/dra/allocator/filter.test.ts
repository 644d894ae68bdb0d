// filterClaims: allocated claims checked by their node selector, unallocated ones allocated, kube's message order.

import { describe, expect, it } from 'vitest';
import type { ResourceClaimInfo } from '../../../model/dra-types.ts';
import { type FilterOutcome, filterClaims } from './filter.ts';
import { indexSlices } from './pools.ts';
import { classA, dev, fakeCel, local, localA, node1, oneDevice, resA } from './test-fixtures.ts';

const onNode = (node: string): ResourceClaimInfo => ({
  ...oneDevice('allocated'),
  status: { allocation: local(node, resA('req-0', 'device-9')) },
});
const filter = (claims: ResourceClaimInfo[], devices = [dev('device-1')]) =>
  filterClaims({
    claims,
    classes: new Map([[classA.name, classA]]),
    slices: indexSlices([localA(devices)], []),
    allocated: { devices: new Set() },
    node: node1,
    matcher: fakeCel,
  });

const cases: [string, () => FilterOutcome, FilterOutcome][] = [
  [
    'allocates the unallocated claims when the allocated ones fit the node',
    () => filter([onNode('node-1'), oneDevice()]),
    { kind: 'feasible', allocations: [local('node-1', resA('req-0', 'device-1'))] },
  ],
  [
    'says the claim is not available when its allocation is for another node',
    () => filter([onNode('node-2'), oneDevice()]),
    {
      kind: 'unschedulable',
      message: 'resourceclaim not available on the node',
      unavailableClaims: [0],
    },
  ],
  [
    'says it cannot allocate before it says a claim is unavailable',
    () => filter([onNode('node-2'), oneDevice()], []),
    { kind: 'unschedulable', message: 'cannot allocate all claims', unavailableClaims: [0] },
  ],
  [
    'runs no allocator when every claim is allocated',
    () => filter([onNode('node-1')]),
    { kind: 'feasible', allocations: [] },
  ],
];

describe('filterClaims', () => {
  it.each(cases)('%s', (_name, outcome, expected) => {
    expect(outcome()).toEqual(expected);
  });
});
