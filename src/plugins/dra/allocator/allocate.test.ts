// Basic allocation: kube's allocatortesting cases for pools, nodes, classes and backtracking.

import { describe, expect, it } from 'vitest';
import {
  allocated,
  type Case,
  cannot,
  claim,
  classA,
  dev,
  local,
  localA,
  node2,
  oneDevice,
  req,
  resA,
  run,
  slice,
} from './test-fixtures.ts';
import type { AllocateOutcome } from './types.ts';

const mem = (v: string) => dev(`device-${v}`, { capacity: { memory: { value: v } } });
const atLeast = (v: string) => ({
  selectors: [{ cel: { expression: `capacity memory >= ${v}` } }],
});
const small = req('req-0', 'class-a', atLeast('1'));
const large = req('req-1', 'class-a', atLeast('2'));
const smallThenLarge = local('node-1', resA('req-0', 'device-1'), resA('req-1', 'device-2'));
const error = (message: string): AllocateOutcome => ({ kind: 'error', message });
const world = (claims: Case['claims'], slices: Case['slices'] = [], more: Partial<Case> = {}) => ({
  claims,
  classes: [classA],
  slices,
  ...more,
});

const cases: [string, Case, AllocateOutcome][] = [
  [
    'allocates the one device of a node-local slice, restricted to that node',
    world([oneDevice()], [localA([dev('device-1')])]),
    allocated(local('node-1', resA('req-0', 'device-1'))),
  ],
  [
    'ignores slices of other nodes and devices the class does not select',
    world(
      [oneDevice()],
      [
        slice('slice-1', { node: 'node-1' }, 'pool-1', 'driver-b', [dev('device-1')]),
        slice('slice-2', { node: 'node-2' }, 'pool-2', 'driver-a', [dev('device-1')]),
      ],
      { node: node2 },
    ),
    allocated(local('node-2', resA('req-0', 'device-1', 'pool-2'))),
  ],
  [
    'gives the small request the small device and the large request the large one',
    world([claim('claim-0', [small, large])], [localA([mem('1'), mem('2')])]),
    allocated(smallThenLarge),
  ],
  [
    'backtracks across requests when the first pick starves a later request',
    world([claim('claim-0', [small, large])], [localA([mem('2'), mem('1')])]),
    allocated(smallThenLarge),
  ],
  [
    'backtracks across claims when the first claim starves the second',
    world([claim('claim-0', [small]), claim('claim-1', [large])], [localA([mem('2'), mem('1')])]),
    allocated(
      local('node-1', resA('req-0', 'device-1')),
      local('node-1', resA('req-1', 'device-2')),
    ),
  ],
  [
    'takes two devices from two pools in pool-name order, not slice-name order',
    world(
      [claim('claim-0', [req('req-0', 'class-a', { count: 2 })])],
      [
        localA([dev('device-1')], 'slice-a', 'pool-2'),
        localA([dev('device-1')], 'slice-b', 'pool-1'),
      ],
    ),
    allocated(local('node-1', resA('req-0', 'device-1'), resA('req-0', 'device-1', 'pool-2'))),
  ],
  [
    'does not allocate from a pool whose newest generation is incomplete',
    world(
      [oneDevice()],
      [
        localA([dev('device-1')], 'slice-1-obsolete', 'pool-1', { resourceSliceCount: 2 }),
        localA([dev('device-2')], 'slice-1-obsolete', 'pool-1', {
          resourceSliceCount: 2,
          generation: 2,
        }),
      ],
    ),
    cannot,
  ],
  [
    'says invalid pools were encountered when the only pool has a duplicate device',
    world(
      [oneDevice()],
      [
        localA([dev('device-1')], 'slice-1', 'pool-1', { resourceSliceCount: 2 }),
        localA([dev('device-1')], 'slice-1-2', 'pool-1', { resourceSliceCount: 2 }),
      ],
    ),
    { kind: 'unschedulable', message: 'invalid resource pools were encountered' },
  ],
  [
    'allocates from another pool when one pool is invalid',
    world(
      [oneDevice()],
      [localA([dev('device-1'), dev('device-1')]), localA([dev('device-1')], 'slice-2', 'pool-2')],
    ),
    allocated(local('node-1', resA('req-0', 'device-1', 'pool-2'))),
  ],
  ['cannot allocate without slices', world([oneDevice()]), cannot],
  [
    'cannot allocate two requests from one device',
    world(
      [claim('claim-0', [req('req-0', 'class-a'), req('req-1', 'class-a')])],
      [localA([dev('device-1')])],
    ),
    cannot,
  ],
  [
    'fails with kube error when the class does not exist',
    world([claim('claim-0', [req('req-0', 'unknown-class')])]),
    error(
      'claim claim-0, request req-0: could not retrieve device class unknown-class: deviceclass.resource.k8s.io "unknown-class" not found',
    ),
  ],
  [
    'fails when a request names no class',
    world([claim('claim-0', [req('req-0', '')])]),
    error('claim claim-0, request req-0: missing device class name (unsupported request type?)'),
  ],
  ['allocates nothing for no claims', world([]), allocated()],
  [
    'skips devices already allocated',
    world([oneDevice()], [localA([dev('device-1'), dev('device-2')])], {
      allocated: { devices: new Set(['driver-a/pool-1/device-1']) },
    }),
    allocated(local('node-1', resA('req-0', 'device-2'))),
  ],
  [
    'fails when a request alone exceeds the claim limit of 32 devices',
    world([claim('claim-0', [req('req-0', 'class-a', { count: 500 })])]),
    error(
      'claim claim-0, request req-0: adding 500 devices exceeds the claim limit of 32, with 0 already accounted for',
    ),
  ],
  [
    'names the request that pushes the claim over the limit',
    world([
      claim('claim-0', [
        req('req-0', 'class-a', { count: 20 }),
        req('req-1', 'class-a', { count: 20 }),
      ]),
    ]),
    error(
      'claim claim-0, request req-1: adding 20 devices exceeds the claim limit of 32, with 20 already accounted for',
    ),
  ],
  [
    'words a CEL runtime error of a claim selector with the device',
    world(
      [
        claim('claim-0', [
          req('req-0', 'class-a', { selectors: [{ cel: { expression: 'runtime-error' } }] }),
        ]),
      ],
      [localA([dev('device-1')])],
    ),
    error(
      'claim claim-0: selector #0 on device driver-a/pool-1/device-1: CEL runtime error: no such key: x',
    ),
  ],
  [
    'words a CEL compile error of a class selector without the device',
    {
      claims: [claim('claim-0', [req('req-0', 'class-b')])],
      classes: [{ name: 'class-b', selectors: [{ cel: { expression: 'compile-error' } }] }],
      slices: [localA([dev('device-1')])],
    },
    error('class class-b: selector #0: CEL compile error: syntax error'),
  ],
];

describe('allocate', () => {
  it.each(cases)('%s', (_name, c, expected) => {
    expect(run(c)).toEqual(expected);
  });
});
