// matchAttribute and distinctAttribute constraints, class configuration, and multi-host pool generations.

import { describe, expect, it } from 'vitest';
import type { DeviceAttribute, DeviceConstraint } from '../../../model/dra-types.ts';
import * as f from './test-fixtures.ts';
import type { AllocateOutcome } from './types.ts';

const { allocated, cannot, claim, classA, cls, dev, local, localA, req, resA, run, slice } = f;

const withAttr = (name: string, attr: DeviceAttribute) => dev(name, { attributes: { numa: attr } });
const numa = (name: string, int: number) => withAttr(name, { int });
const constrained = (constraint: DeviceConstraint, count = 2) =>
  claim('claim-0', [req('req-0', 'class-a', { count })], { constraints: [constraint] });
const match: DeviceConstraint = { matchAttribute: 'driver-a/numa' };
const distinct: DeviceConstraint = { distinctAttribute: 'driver-a/numa' };
const world = (claims: f.Case['claims'], slices: f.Case['slices']) => ({
  claims,
  classes: [classA],
  slices,
});
const opaque = (text: string) => ({ opaque: { driver: 'driver-a', parameters: { text } } });
const generation = (name: string, node: string, device: string, gen: number) =>
  slice(name, { node }, 'pool-1', 'driver-a', [dev(device)], {
    generation: gen,
    resourceSliceCount: 2,
  });

/** A claim for `count` devices under `constraint`, and devices with these numa values. */
const numas = (constraint: DeviceConstraint, values: number[], count = 2) =>
  world(
    [constrained(constraint, count)],
    [localA(values.map((v, i) => numa(`device-${i + 1}`, v)))],
  );

const cases: [string, f.Case, AllocateOutcome][] = [
  [
    'picks devices with the same attribute value, skipping a mismatch',
    numas(match, [1, 2, 1]),
    allocated(local('node-1', resA('req-0', 'device-1'), resA('req-0', 'device-3'))),
  ],
  [
    'cannot match an attribute no device has',
    world(
      [constrained({ matchAttribute: 'driver-a/missing' }, 1)],
      [localA([numa('device-1', 1)])],
    ),
    cannot,
  ],
  [
    'finds a fully qualified attribute under its bare id only in the driver domain',
    world(
      [constrained({ matchAttribute: 'other.example.com/numa' }, 1)],
      [localA([numa('device-1', 1)])],
    ),
    cannot,
  ],
  [
    'does not match values of different types',
    world(
      [constrained(match)],
      [localA([numa('device-1', 1), withAttr('device-2', { string: '1' })])],
    ),
    cannot,
  ],
  [
    'fails All when a device breaks the constraint',
    world(
      [
        claim('claim-0', [req('req-0', 'class-a', { allocationMode: 'All' })], {
          constraints: [match],
        }),
      ],
      [localA([numa('device-1', 1), numa('device-2', 2)])],
    ),
    {
      kind: 'error',
      message:
        'claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied',
    },
  ],
  [
    'applies a constraint only to the requests it names',
    world(
      [
        claim(
          'claim-0',
          [req('req-0', 'class-a'), req('req-1', 'class-a'), req('req-2', 'class-a')],
          { constraints: [{ requests: ['req-0', 'req-2'], ...match }] },
        ),
      ],
      [localA([numa('device-1', 1), numa('device-2', 2), numa('device-3', 1)])],
    ),
    allocated(
      local(
        'node-1',
        resA('req-0', 'device-1'),
        resA('req-1', 'device-2'),
        resA('req-2', 'device-3'),
      ),
    ),
  ],
  [
    'picks devices with distinct attribute values',
    numas(distinct, [1, 1, 2]),
    allocated(local('node-1', resA('req-0', 'device-1'), resA('req-0', 'device-3'))),
  ],
  ['cannot find three distinct values among two', numas(distinct, [1, 2, 1], 3), cannot],
  [
    'rejects an empty constraint with kube error',
    world([constrained({}, 1)], [localA([numa('device-1', 1)])]),
    {
      kind: 'error',
      message: 'claim claim-0, constraint #0: empty constraint (unsupported constraint type?)',
    },
  ],
  [
    'adds each class config once, naming every request of the class',
    {
      claims: [
        claim('claim-0', [
          req('req-0', 'class-a'),
          req('req-1', 'class-a'),
          req('req-2', 'class-b'),
        ]),
      ],
      classes: [
        cls('class-a', 'driver-a', { config: [opaque('A')] }),
        cls('class-b', 'driver-b', { config: [opaque('B')] }),
      ],
      slices: [
        localA([dev('device-0'), dev('device-1')]),
        slice('slice-2', { node: 'node-1' }, 'pool-1', 'driver-b', [dev('device-1')]),
      ],
    },
    allocated({
      ...local('node-1'),
      devices: {
        results: [
          resA('req-0', 'device-0'),
          resA('req-1', 'device-1'),
          f.res('req-2', 'driver-b', 'pool-1', 'device-1'),
        ],
        config: [
          { source: 'FromClass', requests: ['req-0', 'req-1'], ...opaque('A') },
          { source: 'FromClass', requests: ['req-2'], ...opaque('B') },
        ],
      },
    }),
  ],
  [
    'keeps allocating from the old generation while the new one does not reach the node',
    world(
      [f.oneDevice()],
      [
        generation('slice-1', 'node-1', 'device-1', 1),
        generation('slice-1', 'node-1', 'device-2', 1),
        generation('slice-2', 'node-2', 'device-1', 2),
      ],
    ),
    allocated(local('node-1', resA('req-0', 'device-1'))),
  ],
  [
    'ignores a stale slice of a pool whose newer generation lives elsewhere',
    world(
      [f.oneDevice()],
      [
        generation('slice-1', 'node-1', 'device-1', 1),
        generation('slice-2', 'node-2', 'device-2', 2),
      ],
    ),
    cannot,
  ],
];

describe('allocate: constraints, class config and pool generations', () => {
  it.each(cases)('%s', (_name, c, expected) => {
    expect(run(c)).toEqual(expected);
  });
});
