// allocationMode All with consumable capacity, and pool validation across slices the node does not see.

import { describe, expect, it } from 'vitest';
import type { DeviceRequest, ResourceSliceInfo } from '../../../model/dra-types.ts';
import * as f from './test-fixtures.ts';
import type { AllocateOutcome } from './types.ts';

const { allocated, cannot, claim, classA, dev, local, localA, req, resA, run, slice } = f;

const multi = (name: string, capacity?: string) =>
  dev(name, {
    allowMultipleAllocations: true,
    ...(capacity !== undefined && { capacity: { 'capacity-0': { value: capacity } } }),
  });
const asking = (name: string, amount: string, extra = {}): DeviceRequest =>
  req(name, 'class-a', { capacity: { requests: { 'capacity-0': amount } }, ...extra });
const allAsking = (name: string, amount: string) => asking(name, amount, { allocationMode: 'All' });
const share = (request: string, device: string, id: string, amount: string) =>
  resA(request, device, 'pool-1', { shareID: id, consumedCapacity: { 'capacity-0': amount } });
const used = (amount: bigint) => ({
  allocated: {
    devices: new Set<string>(),
    consumedCapacity: new Map([
      ['driver-a/pool-1/device-1', new Map([['capacity-0', amount * 10n ** 9n]])],
    ]),
  },
});
const world = (claims: f.Case['claims'], slices: f.Case['slices'], more: Partial<f.Case> = {}) => ({
  claims,
  classes: [classA],
  slices,
  ...more,
});
const counterSlice = (name: string, set: string, nodeName = 'node-1'): ResourceSliceInfo => ({
  ...slice(name, { node: nodeName }, 'pool-1', 'driver-a', [], { resourceSliceCount: 3 }),
  sharedCounters: [{ name: set, counters: { memory: { value: '8Gi' } } }],
});
const consuming = (name: string, set: string) =>
  dev(name, { consumesCounters: [{ counterSet: set, counters: { memory: { value: '6Gi' } } }] });

const cases: [string, f.Case, AllocateOutcome][] = [
  [
    'leaves devices without the requested capacity out of All',
    world(
      [claim('claim-0', [allAsking('req-0', '2')])],
      [localA([multi('device-1', '2'), multi('device-2')])],
    ),
    allocated(local('node-1', share('req-0', 'device-1', 'share-claim-0-0', '2'))),
  ],
  [
    'leaves devices too small for the request out of All',
    world(
      [claim('claim-0', [allAsking('req-0', '2')])],
      [localA([multi('device-1', '2'), multi('device-2', '1')])],
    ),
    allocated(local('node-1', share('req-0', 'device-1', 'share-claim-0-0', '2'))),
  ],
  [
    'lets All share a device an earlier request of the claim is sharing',
    world(
      [claim('claim-0', [asking('req-0', '1'), allAsking('req-1', '1')])],
      [localA([multi('device-1', '2'), multi('device-2', '1')])],
    ),
    allocated(
      local(
        'node-1',
        share('req-0', 'device-1', 'share-claim-0-0', '1'),
        share('req-1', 'device-1', 'share-claim-0-1', '1'),
        share('req-1', 'device-2', 'share-claim-0-2', '1'),
      ),
    ),
  ],
  [
    'cannot allocate All when an earlier request used up a device it includes',
    world(
      [claim('claim-0', [asking('req-0', '1'), allAsking('req-1', '1')])],
      [localA([multi('device-1', '1'), multi('device-2', '1')])],
    ),
    cannot,
  ],
  [
    'shares what allocated shares left for All',
    world(
      [claim('claim-0', [allAsking('req-0', '1')])],
      [localA([multi('device-1', '2'), multi('device-2', '1')])],
      used(1n),
    ),
    allocated(
      local(
        'node-1',
        share('req-0', 'device-1', 'share-claim-0-0', '1'),
        share('req-0', 'device-2', 'share-claim-0-1', '1'),
      ),
    ),
  ],
  [
    'cannot allocate All when allocated shares used up an included device',
    world(
      [claim('claim-0', [allAsking('req-0', '1')])],
      [localA([multi('device-1', '1'), multi('device-2', '1')])],
      used(1n),
    ),
    cannot,
  ],
  [
    'marks a pool with one counter set name in two slices invalid',
    world(
      [f.oneDevice()],
      [
        localA([dev('device-1')], 'slice-1', 'pool-1', { resourceSliceCount: 4 }),
        {
          ...counterSlice('slice-2', 'counter-set-1'),
          pool: { name: 'pool-1', generation: 1, resourceSliceCount: 4 },
        },
        localA([dev('device-2')], 'slice-3', 'pool-1', { resourceSliceCount: 4 }),
        {
          ...counterSlice('slice-4', 'counter-set-1'),
          pool: { name: 'pool-1', generation: 1, resourceSliceCount: 4 },
        },
      ],
    ),
    { kind: 'unschedulable', message: 'invalid resource pools were encountered' },
  ],
  [
    'marks a pool invalid for a broken device on a slice of another node',
    world(
      [f.oneDevice()],
      [
        counterSlice('slice-1', 'counter-set-1'),
        localA([consuming('device-1', 'counter-set-1')], 'slice-2', 'pool-1', {
          resourceSliceCount: 3,
        }),
        slice(
          'slice-3',
          { node: 'node-2' },
          'pool-1',
          'driver-a',
          [consuming('device-3', 'counter-set-2')],
          { resourceSliceCount: 3 },
        ),
      ],
    ),
    { kind: 'unschedulable', message: 'invalid resource pools were encountered' },
  ],
];

describe('allocate: All with consumable capacity, pool validation', () => {
  it.each(cases)('%s', (_name, c, expected) => {
    expect(run(c)).toEqual(expected);
  });
});
