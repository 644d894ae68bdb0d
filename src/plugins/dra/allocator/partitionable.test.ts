// Partitionable devices (shared counters) and consumable capacity with multi-allocatable devices.

import { describe, expect, it } from 'vitest';
import type { Device, DeviceCapacity, ResourceSliceInfo } from '../../../model/dra-types.ts';
import * as f from './test-fixtures.ts';
import type { AllocateOutcome } from './types.ts';

const { allocated, cannot, claim, classA, dev, local, localA, req, resA, run, slice } = f;

const uses = (memory: string, set = 'counter-set-1') => ({
  consumesCounters: [{ counterSet: set, counters: { memory: { value: memory } } }],
});
/** A slice holding only counter-set-1 with `memory`, in pool-1 of two slices. */
const counters = (memory: string, name = 'slice-2', extra: Partial<ResourceSliceInfo> = {}) =>
  withCounters(
    memory,
    slice(name, { node: 'node-1', ...extra }, 'pool-1', 'driver-a', [], { resourceSliceCount: 2 }),
  );
function withCounters(memory: string, base: ResourceSliceInfo): ResourceSliceInfo {
  return {
    ...base,
    sharedCounters: [{ name: 'counter-set-1', counters: { memory: { value: memory } } }],
  };
}
const partitioned = (devices: Device[], total: string) => [
  localA(devices, 'slice-1', 'pool-1', { resourceSliceCount: 2 }),
  counters(total),
];
const shared = (capacity: Record<string, DeviceCapacity>, extra: Partial<Device> = {}) =>
  dev('device-1', { allowMultipleAllocations: true, capacity, ...extra });
const ranged: DeviceCapacity = {
  value: '4',
  requestPolicy: { default: '2', validRange: { min: '2', step: '2', max: '4' } },
};
const asking = (name: string, capacity?: string) =>
  claim(name, [
    req(
      'req-0',
      'class-a',
      capacity === undefined ? {} : { capacity: { requests: { 'capacity-0': capacity } } },
    ),
  ]);
const share = (claimName: string, i: number, consumed: Record<string, string>) =>
  local(
    'node-1',
    resA('req-0', 'device-1', 'pool-1', {
      shareID: `share-${claimName}-${i}`,
      consumedCapacity: consumed,
    }),
  );
/** One claim asking `request` of a shared device with one capacity. */
const sharing = (request: string, capacity: DeviceCapacity) =>
  world([asking('claim-0', request)], [localA([shared({ 'capacity-0': capacity })])]);
const world = (claims: f.Case['claims'], slices: f.Case['slices'], more: Partial<f.Case> = {}) => ({
  claims,
  classes: [classA],
  slices,
  ...more,
});
const twoRequests = [claim('claim-0', [req('req-0', 'class-a'), req('req-1', 'class-a')])];

const cases: [string, f.Case, AllocateOutcome][] = [
  [
    'skips a partition whose counters the first pick already used up',
    world(
      twoRequests,
      partitioned(
        [dev('device-1', uses('4Gi')), dev('device-2', uses('6Gi')), dev('device-3', uses('4Gi'))],
        '8Gi',
      ),
    ),
    allocated(local('node-1', resA('req-0', 'device-1'), resA('req-1', 'device-3'))),
  ],
  [
    'counts the counters of allocated partitions, even over the total',
    world(
      [asking('claim-0')],
      partitioned([dev('device-1', uses('4Gi')), dev('device-2', uses('20Gi'))], '18Gi'),
      {
        allocated: { devices: new Set(['driver-a/pool-1/device-2']) },
      },
    ),
    cannot,
  ],
  [
    'marks the pool invalid when a device uses an unknown counter set',
    world([asking('claim-0')], partitioned([dev('device-1', uses('4Gi', 'counter-set-2'))], '8Gi')),
    { kind: 'unschedulable', message: 'invalid resource pools were encountered' },
  ],
  [
    'finds the counter set in a slice that does not reach the node',
    world(
      [asking('claim-0')],
      [
        localA([dev('device-1', uses('4Gi'))], 'slice-1', 'pool-1', { resourceSliceCount: 2 }),
        counters('8Gi', 'slice-2', { nodeName: 'node-2' }),
      ],
    ),
    allocated(local('node-1', resA('req-0', 'device-1'))),
  ],
  [
    'picks per-device node selection devices that name the node',
    world(
      [asking('claim-0')],
      [
        slice(
          'slice-1',
          { perDeviceNodeSelection: true },
          'pool-1',
          'driver-a',
          [
            dev('device-1', { ...uses('6Gi'), nodeName: 'node-2' }),
            dev('device-2', { ...uses('4Gi'), nodeName: 'node-1' }),
          ],
          { resourceSliceCount: 2 },
        ),
        withCounters(
          '18Gi',
          slice('slice-2', { perDeviceNodeSelection: true }, 'pool-1', 'driver-a', [], {
            resourceSliceCount: 2,
          }),
        ),
      ],
    ),
    allocated(local('node-1', resA('req-0', 'device-2'))),
  ],
  [
    'shares a multi-allocatable device between claims, each consuming its request',
    world(
      [asking('claim-0', '1'), asking('claim-1', '1')],
      [localA([shared({ 'capacity-0': { value: '2' } })])],
    ),
    allocated(
      share('claim-0', 0, { 'capacity-0': '1' }),
      share('claim-1', 0, { 'capacity-0': '1' }),
    ),
  ],
  [
    'cannot share beyond the capacity',
    world(
      [asking('claim-0', '1'), asking('claim-1', '2')],
      [localA([shared({ 'capacity-0': { value: '2' } })])],
    ),
    cannot,
  ],
  [
    'consumes the whole capacity when a share asks for none and there is no policy',
    world([asking('claim-0')], [localA([shared({ 'capacity-0': { value: '2' } })])]),
    allocated(share('claim-0', 0, { 'capacity-0': '2' })),
  ],
  [
    'rounds a request up to the range minimum',
    world(
      [asking('claim-0', '1'), asking('claim-1', '1')],
      [localA([shared({ 'capacity-0': ranged })])],
    ),
    allocated(
      share('claim-0', 0, { 'capacity-0': '2' }),
      share('claim-1', 0, { 'capacity-0': '2' }),
    ),
  ],
  [
    'rounds a request up to the next step',
    world([asking('claim-0', '3')], [localA([shared({ 'capacity-0': ranged })])]),
    allocated(share('claim-0', 0, { 'capacity-0': '4' })),
  ],
  [
    'rounds a fractional request up to the next milli step',
    sharing('250m', {
      value: '1',
      requestPolicy: { default: '200m', validRange: { min: '200m', step: '100m', max: '1' } },
    }),
    allocated(share('claim-0', 0, { 'capacity-0': '300m' })),
  ],
  [
    'rounds a request up to the next valid value',
    sharing('2', { value: '3', requestPolicy: { default: '1', validValues: ['1', '3'] } }),
    allocated(share('claim-0', 0, { 'capacity-0': '3' })),
  ],
  [
    'uses what allocated shares left of the capacity',
    world([asking('claim-0', '2')], [localA([shared({ 'capacity-0': ranged })])], {
      allocated: {
        devices: new Set(),
        consumedCapacity: new Map([
          ['driver-a/pool-1/device-1', new Map([['capacity-0', 2_000_000_000n]])],
        ]),
      },
    }),
    allocated(share('claim-0', 0, { 'capacity-0': '2' })),
  ],
  [
    'aborts when a request cannot be represented in the range arithmetic',
    world([asking('claim-0', '9223372036854775807')], [localA([shared({ 'capacity-0': ranged })])]),
    {
      kind: 'error',
      message:
        'claim claim-0, request req-0: checking capacity for device driver-a/pool-1/device-1: capacity "capacity-0": capacity request cannot be represented in the device\'s range arithmetic: request 9223372036854775807 is not a representable milli value',
    },
  ],
  [
    'checks a capacity request against a dedicated device too',
    world(
      [asking('claim-0', '3')],
      [
        localA([
          dev('device-1', { capacity: { 'capacity-0': { value: '2' } } }),
          dev('device-2', { capacity: { 'capacity-0': { value: '4' } } }),
        ]),
      ],
    ),
    allocated(local('node-1', resA('req-0', 'device-2'))),
  ],
  [
    'does not share a multi-allocatable device already held whole',
    world([asking('claim-0', '1')], [localA([shared({ 'capacity-0': { value: '2' } })])], {
      allocated: { devices: new Set(['driver-a/pool-1/device-1']) },
    }),
    cannot,
  ],
  [
    'charges the counters of a shared partition once',
    world(
      [asking('claim-0', '1'), asking('claim-1', '1')],
      partitioned([shared({ 'capacity-0': { value: '2' } }, uses('8Gi'))], '8Gi'),
    ),
    allocated(
      share('claim-0', 0, { 'capacity-0': '1' }),
      share('claim-1', 0, { 'capacity-0': '1' }),
    ),
  ],
];

describe('allocate: partitionable devices and consumable capacity', () => {
  it.each(cases)('%s', (_name, c, expected) => {
    expect(run(c)).toEqual(expected);
  });
});
