// The search's order and amount of work match kube's: same picks, same number of search steps.

import { describe, expect, it } from 'vitest';
import type { Device, DeviceRequest, DeviceRequestDetails } from '../../../model/dra-types.ts';
import * as f from './test-fixtures.ts';
import type { AllocateOutcome } from './types.ts';

const { allocated, claim, classA, dev, local, localA, req, resA, runCounted } = f;

const typed = (name: string, type: string, extra: Partial<Device> = {}) =>
  dev(name, { attributes: { type: { string: type } }, ...extra });
const typeIs = (t: string) => ({ selectors: [{ cel: { expression: `attr type == ${t}` } }] });
const twoThenX = claim('claim-0', [
  req('req-1', 'class-a', { count: 2 }),
  req('req-2', 'class-a', typeIs('X')),
]);
const kind = (name: string, k: string, color: string, extra: Partial<Device> = {}) =>
  dev(name, { attributes: { kind: { string: k }, color: { string: color } }, ...extra });
const kindIs = (...kinds: string[]) => ({
  selectors: [{ cel: { expression: kinds.map((k) => `attr kind == ${k}`).join(' || ') } }],
});
const firstOf = (
  name: string,
  ...subs: ({ name: string; count: number } & Partial<DeviceRequestDetails>)[]
): DeviceRequest => ({
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

/** Devices device-<from> … device-<to>. */
const devs = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => dev(`device-${from + i}`));
const fiveOfFour = (slices: f.Case['slices']) => ({
  claims: [claim('claim-0', [req('req-0', 'class-a', { count: 5 })])],
  classes: [classA],
  slices,
});

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
  [
    'tries every combination of four devices for five once (single slice)',
    fiveOfFour([localA(devs(1, 4))]),
    f.cannot,
    16,
  ],
  [
    'tries every combination of four devices for five once (four pools)',
    fiveOfFour([1, 2, 3, 4].map((i) => localA(devs(i, i), `slice-${i}`, `pool-${i}`))),
    f.cannot,
    16,
  ],
  [
    'falls back to the smaller subrequests of two requests at the claim limit',
    {
      claims: [
        claim('claim-0', [
          firstOf('req-0', { name: 'subReq-0', count: 32 }, { name: 'subReq-1', count: 16 }),
          firstOf('req-1', { name: 'subReq-0', count: 32 }, { name: 'subReq-1', count: 16 }),
        ]),
      ],
      classes: [classA],
      slices: [localA(devs(0, 63))],
    },
    allocated(
      local(
        'node-1',
        ...devs(0, 15).map((d) => resA('req-0/subReq-1', d.name)),
        ...devs(16, 31).map((d) => resA('req-1/subReq-1', d.name)),
      ),
    ),
    75,
  ],
  [
    'falls back from All over the limit to an exact subrequest',
    {
      claims: [
        claim('claim-0', [
          {
            name: 'req-0',
            firstAvailable: [
              { name: 'subReq-0', deviceClassName: 'class-a', allocationMode: 'All' },
              {
                name: 'subReq-1',
                deviceClassName: 'class-a',
                allocationMode: 'ExactCount',
                count: 2,
              },
            ],
          },
          req('req-1', 'class-b', { count: 2 }),
        ]),
      ],
      classes: [classA, f.cls('class-b', 'driver-b')],
      slices: [
        localA(devs(0, 30)),
        f.slice('slice-2', { node: 'node-1' }, 'pool-2', 'driver-b', devs(0, 1)),
      ],
    },
    allocated(
      local(
        'node-1',
        resA('req-0/subReq-1', 'device-0'),
        resA('req-0/subReq-1', 'device-1'),
        f.res('req-1', 'driver-b', 'pool-2', 'device-0'),
        f.res('req-1', 'driver-b', 'pool-2', 'device-1'),
      ),
    ),
    42,
  ],
  [
    'backtracks over subrequests of two prioritized lists',
    {
      claims: [
        claim('claim-0', [
          firstOf(
            'req-1',
            { name: 'subReq-0', count: 3, ...typeIs('Y') },
            { name: 'subReq-1', count: 2 },
          ),
          firstOf(
            'req-2',
            { name: 'subReq-0', count: 2 },
            { name: 'subReq-1', count: 1, ...typeIs('X') },
          ),
        ]),
      ],
      classes: [classA],
      slices: [localA([typed('device-1', 'X'), typed('device-2', 'Y'), typed('device-3', 'Y')])],
    },
    allocated(
      local(
        'node-1',
        resA('req-1/subReq-1', 'device-2'),
        resA('req-1/subReq-1', 'device-3'),
        resA('req-2/subReq-1', 'device-1'),
      ),
    ),
    26,
  ],
];

describe('allocate: search order and work', () => {
  it.each(cases)('%s', (_name, c, expected, calls) => {
    const r = runCounted(c);
    expect(r.outcome).toEqual(expected);
    if (calls >= 0) expect(r.calls).toBe(calls);
  });
});
