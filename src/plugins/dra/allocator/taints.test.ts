// Device taints (from slices and DeviceTaintRules) with tolerations, and binding conditions.

import { describe, expect, it } from 'vitest';
import type {
  DeviceTaint,
  DeviceTaintRuleInfo,
  DeviceToleration,
} from '../../../model/dra-types.ts';
import * as f from './test-fixtures.ts';
import type { AllocateOutcome } from './types.ts';

const { allocated, cannot, claim, classA, dev, local, localA, req, resA, run } = f;

const noSchedule: DeviceTaint = { key: 'taint-key', value: 'taint-value', effect: 'NoSchedule' };
const noExecute: DeviceTaint = { key: 'taint-key', value: 'taint-value', effect: 'NoExecute' };
const none: DeviceTaint = { key: 'taint-key', value: 'taint-value', effect: 'None' };
const tolerate = (effect: DeviceToleration['effect']): DeviceToleration => ({
  key: 'taint-key',
  operator: 'Exists',
  effect,
});
const asking = (tolerations: DeviceToleration[] = [], extra = {}) =>
  claim('claim-0', [
    req('req-0', 'class-a', { ...(tolerations.length > 0 && { tolerations }), ...extra }),
  ]);
const world = (claims: f.Case['claims'], slices: f.Case['slices'], more: Partial<f.Case> = {}) => ({
  claims,
  classes: [classA],
  slices,
  ...more,
});
const rule = (
  name: string,
  selector: DeviceTaintRuleInfo['deviceSelector'],
): DeviceTaintRuleInfo => ({
  name,
  ...(selector !== undefined && { deviceSelector: selector }),
  taint: noSchedule,
});
const conditions = {
  bindingConditions: ['IsPrepared'],
  bindingFailureConditions: ['BindingFailed'],
};

const cases: [string, f.Case, AllocateOutcome][] = [
  [
    'cannot allocate devices with NoSchedule or NoExecute taints',
    world(
      [asking()],
      [
        localA([
          dev('device-1', { taints: [noSchedule] }),
          dev('device-2', { taints: [noExecute] }),
        ]),
      ],
    ),
    cannot,
  ],
  [
    'takes the device whose taint is tolerated and copies the tolerations',
    world(
      [asking([tolerate('NoExecute')])],
      [
        localA([
          dev('device-1', { taints: [noSchedule] }),
          dev('device-2', { taints: [noExecute] }),
        ]),
      ],
    ),
    allocated(
      local(
        'node-1',
        resA('req-0', 'device-2', 'pool-1', { tolerations: [tolerate('NoExecute')] }),
      ),
    ),
  ],
  [
    'needs every blocking taint of a device tolerated',
    world(
      [asking([tolerate('NoSchedule')])],
      [localA([dev('device-1', { taints: [noSchedule, noExecute] })])],
    ),
    cannot,
  ],
  [
    'ignores taints with effect None',
    world([asking()], [localA([dev('device-1', { taints: [none] })])]),
    allocated(local('node-1', resA('req-0', 'device-1'))),
  ],
  [
    'does not let admin access bypass taints',
    world(
      [asking([], { adminAccess: true })],
      [localA([dev('device-1', { taints: [noSchedule] })])],
    ),
    cannot,
  ],
  [
    'cannot allocate All when a device is tainted',
    world(
      [asking([], { allocationMode: 'All' })],
      [localA([dev('device-1', { taints: [noSchedule] })])],
    ),
    cannot,
  ],
  [
    'applies a DeviceTaintRule to the device it selects',
    world([asking()], [localA([dev('device-1'), dev('device-2')])], {
      rules: [rule('r', { driver: 'driver-a', pool: 'pool-1', device: 'device-1' })],
    }),
    allocated(local('node-1', resA('req-0', 'device-2'))),
  ],
  [
    'applies a DeviceTaintRule without device name to every device of its pool',
    world([asking()], [localA([dev('device-1'), dev('device-2')])], {
      rules: [rule('r', { pool: 'pool-1' })],
    }),
    cannot,
  ],
  [
    'ignores a DeviceTaintRule without a device selector or for another driver',
    world([asking()], [localA([dev('device-1')])], {
      rules: [rule('r1', undefined), rule('r2', { driver: 'driver-b' })],
    }),
    allocated(local('node-1', resA('req-0', 'device-1'))),
  ],
  [
    'copies binding conditions of the device into the result',
    world([asking()], [localA([dev('device-1', conditions)])]),
    allocated(local('node-1', resA('req-0', 'device-1', 'pool-1', conditions))),
  ],
  [
    'tries pools with binding conditions after all others',
    world(
      [asking()],
      [
        localA([dev('device-1', conditions)], 'slice-1', 'pool-1'),
        localA([dev('device-1')], 'slice-2', 'pool-2'),
      ],
    ),
    allocated(local('node-1', resA('req-0', 'device-1', 'pool-2'))),
  ],
];

describe('allocate: taints and binding conditions', () => {
  it.each(cases)('%s', (_name, c, expected) => {
    expect(run(c)).toEqual(expected);
  });
});
