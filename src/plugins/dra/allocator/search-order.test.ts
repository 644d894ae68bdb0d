// The search's order and amount of work match kube's: same picks, same number of search steps.

import { describe, expect, it } from 'vitest';
import type { Device, DeviceRequest } from '../../../cluster/dra-types.ts';
import * as f from './test-fixtures.ts';
import type { AllocateOutcome } from './types.ts';

const { allocated, claim, classA, dev, local, localA, req, resA, runCounted } = f;

const typed = (name: string, type: string, extra: Partial<Device> = {}) =>
  dev(name, { attributes: { type: { string: type } }, ...extra });
const typeX = { selectors: [{ cel: { expression: 'attr type == X' } }] };
const twoThenX = claim('claim-0', [
  req('req-1', 'class-a', { count: 2 }),
  req('req-2', 'class-a', typeX),
]);
const kind = (name: string, k: string, color: string, extra: Partial<Device> = {}) =>
  dev(name, { attributes: { kind: { string: k }, color: { string: color } }, ...extra });
const kindIs = (...kinds: string[]) => ({
  selectors: [{ cel: { expression: kinds.map((k) => `attr kind == ${k}`).join(' || ') } }],
});
const firstOf = (name: string, ...subs: { name: string; count: number }[]): DeviceRequest => ({
  name,
  firstAvailable: subs.map((s) => ({
    deviceClassName: 'class-a',
    allocationMode: 'ExactCount',
    ...s,
  })),
});

const asking2 = (name: string) =>
  req(name, 'class-a', { capacity: { requests: { 'capacity-0': '2' } } });
const sharedOf = (name: string, color: string, value: string) =>
  dev(name, {
    attributes: { color: { string: color } },
    allowMultipleAllocations: true,
    capacity: {
      'capacity-0': {
        value,
        requestPolicy: { default: '2', validRange: { min: '2', step: '2', max: '4' } },
      },
    },
  });
const shareOf = (request: string, device: string, shareID: string) =>
  resA(request, device, 'pool-1', { shareID, consumedCapacity: { 'capacity-0': '2' } });

const cases: [string, f.Case, AllocateOutcome, number][] = [
  [
    'backtracks over combinations, not permutations, of one request',
    {
      claims: [twoThenX],
      classes: [classA],
      slices: [localA([typed('device-1', 'X'), typed('device-2', 'Y'), typed('device-3', 'Y')])],
    },
    allocated(
      local(
        'node-1',
        resA('req-1', 'device-2'),
        resA('req-1', 'device-3'),
        resA('req-2', 'device-1'),
      ),
    ),
    12,
  ],
  [
    'backtracks across slices and pools, a binding-condition pool last',
    {
      claims: [twoThenX],
      classes: [classA],
      slices: [
        localA([typed('device-1', 'X')], 'slice-1', 'pool-1', { resourceSliceCount: 2 }),
        localA([typed('device-2', 'Y')], 'slice-2', 'pool-1', { resourceSliceCount: 2 }),
        localA([typed('device-3', 'Y', { bindingConditions: ['IsPrepare'] })], 'slice-3', 'pool-2'),
      ],
    },
    allocated(
      local(
        'node-1',
        resA('req-1', 'device-2'),
        resA('req-1', 'device-3', 'pool-2', { bindingConditions: ['IsPrepare'] }),
        resA('req-2', 'device-1'),
      ),
    ),
    12,
  ],
  [
    'prunes a first subrequest that overflows the claim without trying devices',
    {
      claims: [
        claim('claim-0', [
          req('req-0', 'class-a'),
          firstOf('req-1', { name: 'subReq-0', count: 2 ** 53 }, { name: 'subReq-1', count: 1 }),
        ]),
      ],
      classes: [classA],
      slices: [localA([dev('device-1'), dev('device-2')])],
    },
    allocated(local('node-1', resA('req-0', 'device-1'), resA('req-1/subReq-1', 'device-2'))),
    8,
  ],
  [
    'keeps the first share of a partition charged when a later share backtracks',
    {
      claims: [
        claim('claim-0', [req('req-0', 'class-a', kindIs('shared'))]),
        claim(
          'claim-1',
          [
            req('req-1', 'class-a', kindIs('shared', 'fallback')),
            req('req-2', 'class-a', kindIs('gate')),
            req('req-3', 'class-a', kindIs('shared')),
          ],
          { constraints: [{ matchAttribute: 'driver-a/color', requests: ['req-1', 'req-2'] }] },
        ),
      ],
      classes: [classA],
      slices: [
        localA(
          [
            kind('device-1', 'shared', 'red', {
              allowMultipleAllocations: true,
              consumesCounters: [{ counterSet: 'set-1', counters: { c: { value: '1' } } }],
            }),
            kind('device-2', 'fallback', 'blue'),
            kind('device-3', 'gate', 'blue'),
          ],
          'slice-1',
          'pool-1',
          { resourceSliceCount: 2 },
        ),
        {
          ...localA([], 'slice-2', 'pool-1', { resourceSliceCount: 2 }),
          sharedCounters: [{ name: 'set-1', counters: { c: { value: '1' } } }],
        },
      ],
    },
    allocated(
      local('node-1', resA('req-0', 'device-1', 'pool-1', { shareID: 'share-claim-0-0' })),
      local(
        'node-1',
        resA('req-1', 'device-2'),
        resA('req-2', 'device-3'),
        resA('req-3', 'device-1', 'pool-1', { shareID: 'share-claim-1-2' }),
      ),
    ),
    -1,
  ],
  [
    'moves both shares of a constrained claim to the larger shared device',
    {
      claims: [
        claim('claim-0', [asking2('req-0'), asking2('req-1')], {
          constraints: [{ matchAttribute: 'driver-a/color' }],
        }),
        claim('claim-1', [asking2('req-0')]),
      ],
      classes: [classA],
      slices: [localA([sharedOf('device-2', 'one', '2'), sharedOf('device-1', 'two', '4')])],
    },
    allocated(
      local(
        'node-1',
        shareOf('req-0', 'device-1', 'share-claim-0-0'),
        shareOf('req-1', 'device-1', 'share-claim-0-1'),
      ),
      local('node-1', shareOf('req-0', 'device-2', 'share-claim-1-0')),
    ),
    -1,
  ],
];

describe('allocate: search order and work', () => {
  it.each(cases)('%s', (_name, c, expected, calls) => {
    const r = runCounted(c);
    expect(r.outcome).toEqual(expected);
    if (calls >= 0) expect(r.calls).toBe(calls);
  });
});
