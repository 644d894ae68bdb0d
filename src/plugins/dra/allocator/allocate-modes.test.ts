// Allocation modes and node selection: All, admin access, network-attached and allNodes slices.

import { describe, expect, it } from 'vitest';
import type { DeviceRequest, DraNodeSelector } from '../../../model/dra-types.ts';
import {
  allocated,
  type Case,
  cannot,
  claim,
  classA,
  cls,
  dev,
  local,
  localA,
  node2,
  req,
  resA,
  run,
  slice,
} from './test-fixtures.ts';
import type { AllocateOutcome } from './types.ts';

const all = (name = 'req-0', extra = {}): DeviceRequest =>
  req(name, 'class-a', { allocationMode: 'All', ...extra });
const admin = (extra = {}): DeviceRequest =>
  req('req-0', 'class-a', { adminAccess: true, ...extra });
const adminRes = (device: string) => resA('req-0', device, 'pool-1', { adminAccess: true });
const bothAdmin = allocated(local('node-1', adminRes('device-1'), adminRes('device-2')));
const twoDevices = [localA([dev('device-1'), dev('device-2')])];
const allocatedDevice1 = { allocated: { devices: new Set(['driver-a/pool-1/device-1']) } };
const labelIn = (key: string, value: string): DraNodeSelector => ({
  nodeSelectorTerms: [{ matchExpressions: [{ key, operator: 'In', values: [value] }] }],
});
const network = (name: string, pool: string, where: object) =>
  slice(name, where, pool, 'driver-a', [dev('device-1')]);
const generation = (name: string, g: string) =>
  dev(name, { attributes: { generation: { string: g } } });
const world = (claims: Case['claims'], slices: Case['slices'], more: Partial<Case> = {}) => ({
  claims,
  classes: [classA, cls('class-b', 'driver-b')],
  slices,
  ...more,
});

const cases: [string, Case, AllocateOutcome][] = [
  [
    'takes every matching device for allocationMode All',
    world([claim('claim-0', [all()])], twoDevices),
    allocated(local('node-1', resA('req-0', 'device-1'), resA('req-0', 'device-2'))),
  ],
  [
    'fails All when a pool for the node is incomplete',
    world(
      [claim('claim-0', [all()])],
      [localA([dev('device-1')], 'slice-1', 'pool-1', { resourceSliceCount: 2 })],
    ),
    {
      kind: 'error',
      message:
        'claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated',
    },
  ],
  [
    'fails All when a pool for the node is invalid',
    world([claim('claim-0', [all()])], [localA([dev('device-1'), dev('device-1')])]),
    {
      kind: 'error',
      message:
        'claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently invalid',
    },
  ],
  [
    'cannot allocate All when some device is allocated',
    world([claim('claim-0', [all()])], twoDevices, allocatedDevice1),
    cannot,
  ],
  ['cannot allocate All when no device matches', world([claim('claim-0', [all()])], []), cannot],
  [
    'allocates All with admin access even when a device is allocated',
    world([claim('claim-0', [all('req-0', { adminAccess: true })])], twoDevices, allocatedDevice1),
    bothAdmin,
  ],
  [
    'cannot give an admin All request a device the same claim already takes',
    world([claim('claim-0', [admin(), all('req-1', { adminAccess: true })])], twoDevices),
    cannot,
  ],
  [
    'counts allocated devices with admin access',
    world([claim('claim-0', [admin({ count: 2 })])], twoDevices, allocatedDevice1),
    bothAdmin,
  ],
  [
    'lets two claims with admin access share a device',
    world([claim('claim-0', [admin()]), claim('claim-1', [admin()])], twoDevices),
    allocated(local('node-1', adminRes('device-1')), local('node-1', adminRes('device-1'))),
  ],
  [
    'gives an admin claim a device another claim is taking',
    world([claim('claim-0', [req('req-0', 'class-a')]), claim('claim-1', [admin()])], twoDevices),
    allocated(local('node-1', resA('req-0', 'device-1')), local('node-1', adminRes('device-1'))),
  ],
  [
    'keeps a network-attached slice selector as the allocation node selector',
    world(
      [claim('claim-0', [req('req-0', 'class-a')])],
      [network('slice-1', 'pool-1', { nodeSelector: labelIn('region', 'region-1') })],
    ),
    allocated({
      devices: { results: [resA('req-0', 'device-1')] },
      nodeSelector: labelIn('region', 'region-1'),
    }),
  ],
  [
    'cannot allocate a network-attached device whose selector misses the node',
    world(
      [claim('claim-0', [req('req-0', 'class-a')])],
      [network('slice-1', 'pool-1', { nodeSelector: labelIn('region', 'region-1') })],
      { node: node2 },
    ),
    cannot,
  ],
  [
    'gives an allNodes device no node selector',
    world(
      [claim('claim-0', [req('req-0', 'class-a')])],
      [network('slice-1', 'pool-1', { allNodes: true })],
    ),
    allocated({ devices: { results: [resA('req-0', 'device-1')] } }),
  ],
  [
    'merges the selectors of network-attached devices into one term',
    world(
      [claim('claim-0', [req('req-0', 'class-a', { count: 3 })])],
      [
        network('slice-1', 'pool-1', { nodeSelector: labelIn('region', 'region-1') }),
        network('slice-1', 'pool-2', { allNodes: true }),
        network('slice-1', 'pool-3', { nodeSelector: labelIn('planet', 'earth') }),
      ],
      { node: { name: 'node-1', labels: { region: 'region-1', planet: 'earth' } } },
    ),
    allocated({
      devices: {
        results: [
          resA('req-0', 'device-1'),
          resA('req-0', 'device-1', 'pool-2'),
          resA('req-0', 'device-1', 'pool-3'),
        ],
      },
      nodeSelector: {
        nodeSelectorTerms: [
          {
            matchExpressions: [
              { key: 'region', operator: 'In', values: ['region-1'] },
              { key: 'planet', operator: 'In', values: ['earth'] },
            ],
          },
        ],
      },
    }),
  ],
  [
    'restricts to the node once any device is node-local',
    world(
      [claim('claim-0', [req('req-0', 'class-a', { count: 2 })])],
      [
        network('slice-1', 'pool-1', { nodeSelector: labelIn('region', 'region-1') }),
        localA([dev('device-1')], 'slice-1', 'pool-2'),
      ],
    ),
    allocated(local('node-1', resA('req-0', 'device-1'), resA('req-0', 'device-1', 'pool-2'))),
  ],
  [
    'restricts to the node when a network device binds to its node',
    world(
      [claim('claim-0', [req('req-0', 'class-a')])],
      [
        slice('slice-1', { allNodes: true }, 'pool-1', 'driver-a', [
          dev('device-1', { bindsToNode: true }),
        ]),
      ],
    ),
    allocated(local('node-1', resA('req-0', 'device-1'))),
  ],
  [
    'takes All of a multi-host pool only from the slices that reach the node',
    world(
      [claim('claim-0', [all()])],
      [
        localA([dev('device-1')], 'slice-1', 'pool-1', { resourceSliceCount: 2 }),
        slice('slice-2', { node: 'node-2' }, 'pool-1', 'driver-a', [dev('device-2')], {
          resourceSliceCount: 2,
        }),
      ],
    ),
    allocated(local('node-1', resA('req-0', 'device-1'))),
  ],
  [
    'falls back to the All subrequest that has devices on this node',
    world(
      [
        claim('claim-0', [
          {
            name: 'req-0',
            firstAvailable: ['v6', 'v5'].map((g, i) => ({
              name: `subReq-${i}`,
              deviceClassName: 'class-a',
              allocationMode: 'All' as const,
              selectors: [{ cel: { expression: `attr generation == ${g}` } }],
            })),
          },
        ]),
      ],
      [
        localA([generation('device-1', 'v5')]),
        slice('slice-2', { node: 'node-2' }, 'pool-2', 'driver-a', [
          generation('device-1', 'v5'),
          generation('device-2', 'v6'),
        ]),
      ],
    ),
    allocated(local('node-1', resA('req-0/subReq-1', 'device-1'))),
  ],
];

describe('allocate: modes and node selection', () => {
  it.each(cases)('%s', (_name, c, expected) => {
    expect(run(c)).toEqual(expected);
  });
});
