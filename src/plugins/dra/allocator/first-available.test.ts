// firstAvailable (prioritized list): subrequest order, naming, constraints, config and the device limit.

import { describe, expect, it } from 'vitest';
import type {
  AllocationResult,
  Device,
  DeviceRequest,
  DeviceRequestDetails,
} from '../../../model/dra-types.ts';
import * as f from './test-fixtures.ts';
import type { AllocateOutcome } from './types.ts';

const { allocated, cannot, claim, classA, cls, dev, local, localA, req, resA, run } = f;

const sub = (name: string, cl: string, extra: Partial<DeviceRequestDetails> = {}) => ({
  name,
  deviceClassName: cl,
  allocationMode: 'ExactCount' as const,
  count: 1,
  ...extra,
});
const firstOf = (name: string, ...subs: ReturnType<typeof sub>[]): DeviceRequest => ({
  name,
  firstAvailable: subs,
});
const memAtLeast = (v: string) => ({
  selectors: [{ cel: { expression: `capacity memory >= ${v}` } }],
});
const gpu = (name: string, memory: string, version?: string): Device =>
  dev(name, {
    capacity: { memory: { value: memory } },
    ...(version !== undefined && { attributes: { driverVersion: { version } } }),
  });
const world = (claims: f.Case['claims'], slices: f.Case['slices'] = []) => ({
  claims,
  classes: [classA, cls('class-b', 'driver-b')],
  slices,
});
/** req-0 (8) and req-1 (2, else 1) under matchAttribute driverVersion for `requests`. */
const versionMatch = (requests: string[]) =>
  world(
    [
      claim(
        'claim-0',
        [
          req('req-0', 'class-a', memAtLeast('8')),
          firstOf(
            'req-1',
            sub('subReq-0', 'class-a', memAtLeast('2')),
            sub('subReq-1', 'class-a', memAtLeast('1')),
          ),
        ],
        { constraints: [{ requests, matchAttribute: 'driver-a/driverVersion' }] },
      ),
    ],
    [
      localA([gpu('device-1', '8', '1.0.0')]),
      localA([gpu('device-2', '2', '2.0.0'), gpu('device-3', '1', '1.0.0')], 'slice-2', 'pool-2'),
    ],
  );
const config = (text: string) => ({ opaque: { driver: 'driver-a', parameters: { text } } });

/** req-0 (first of class-a, class-b) and req-1, with one claim config for `requests`. */
const withClaimConfig = (requests: string[]) =>
  world(
    [
      claim(
        'claim-0',
        [
          firstOf('req-0', sub('subReq-0', 'class-a'), sub('subReq-1', 'class-b')),
          req('req-1', 'class-a'),
        ],
        { config: [{ requests, ...config('x') }] },
      ),
    ],
    [localA([dev('device-0'), dev('device-1')])],
  );
const configured = (config: NonNullable<AllocationResult['devices']['config']>) =>
  allocated({
    ...local('node-1'),
    devices: { results: [resA('req-0/subReq-0', 'device-0'), resA('req-1', 'device-1')], config },
  });

const cases: [string, f.Case, AllocateOutcome][] = [
  [
    'takes the second subrequest when the first has no device and names it req/sub',
    world(
      [
        claim('claim-0', [
          firstOf('req-0', sub('subReq-0', 'class-b'), sub('subReq-1', 'class-a')),
        ]),
      ],
      [localA([dev('device-1')])],
    ),
    allocated(local('node-1', resA('req-0/subReq-1', 'device-1'))),
  ],
  [
    'cannot allocate when no subrequest fits',
    world(
      [
        claim('claim-0', [
          firstOf('req-0', sub('subReq-0', 'class-b'), sub('subReq-1', 'class-b')),
        ]),
      ],
      [localA([dev('device-1')])],
    ),
    cannot,
  ],
  [
    'backtracks into the next subrequest when a later request needs the first pick',
    world(
      [
        claim('claim-0', [
          firstOf(
            'req-0',
            sub('subReq-0', 'class-a', memAtLeast('8')),
            sub('subReq-1', 'class-a', memAtLeast('4')),
          ),
          req('req-1', 'class-a', memAtLeast('8')),
        ]),
      ],
      [localA([gpu('device-1', '8')]), localA([gpu('device-2', '4')], 'slice-2', 'pool-2')],
    ),
    allocated(
      local('node-1', resA('req-0/subReq-1', 'device-2', 'pool-2'), resA('req-1', 'device-1')),
    ),
  ],
  [
    'applies a constraint naming the parent request to its subrequests',
    versionMatch(['req-0', 'req-1']),
    allocated(
      local('node-1', resA('req-0', 'device-1'), resA('req-1/subReq-1', 'device-3', 'pool-2')),
    ),
  ],
  [
    'applies a constraint naming one subrequest only to that subrequest',
    versionMatch(['req-0', 'req-1/subReq-0']),
    allocated(
      local('node-1', resA('req-0', 'device-1'), resA('req-1/subReq-1', 'device-2', 'pool-2')),
    ),
  ],
  [
    'skips a subrequest over the device limit and takes the next',
    world(
      [
        claim('claim-0', [
          firstOf('req-0', sub('subReq-0', 'class-b', { count: 500 }), sub('subReq-1', 'class-a')),
        ]),
      ],
      [localA([dev('device-1')])],
    ),
    allocated(local('node-1', resA('req-0/subReq-1', 'device-1'))),
  ],
  [
    'checks the claim limit with the smallest subrequest',
    world([
      claim('claim-0', [
        req('req-0', 'class-a', { count: 20 }),
        firstOf(
          'req-1',
          sub('subReq-0', 'class-a', { count: 20 }),
          sub('subReq-1', 'class-a', { count: 24 }),
        ),
      ]),
    ]),
    {
      kind: 'error',
      message:
        'claim claim-0, request req-1: adding 20 devices exceeds the claim limit of 32, with 20 already accounted for',
    },
  ],
  [
    'takes a huge first subrequest out of the search and allocates the second',
    world(
      [
        claim('claim-0', [
          req('req-0', 'class-a'),
          firstOf(
            'req-1',
            sub('subReq-0', 'class-a', { count: 2 ** 53 }),
            sub('subReq-1', 'class-a'),
          ),
        ]),
      ],
      [localA([dev('device-1'), dev('device-2')])],
    ),
    allocated(local('node-1', resA('req-0', 'device-1'), resA('req-1/subReq-1', 'device-2'))),
  ],
  [
    'keeps a claim config scoped to subrequests of one request',
    withClaimConfig(['req-0/subReq-0', 'req-0/subReq-1']),
    configured([
      { source: 'FromClaim', requests: ['req-0/subReq-0', 'req-0/subReq-1'], ...config('x') },
    ]),
  ],
  [
    'clears the requests of a claim config that covers every request',
    withClaimConfig(['req-0/subReq-0', 'req-1']),
    configured([{ source: 'FromClaim', ...config('x') }]),
  ],
];

describe('allocate: firstAvailable', () => {
  it.each(cases)('%s', (_name, c, expected) => {
    expect(run(c)).toEqual(expected);
  });
});
