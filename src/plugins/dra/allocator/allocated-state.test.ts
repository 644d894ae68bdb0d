// Allocated state from allocations, canonical quantity strings, and default shareIDs.

import { describe, expect, it } from 'vitest';
import { defaultShareId } from './allocate.ts';
import { allocatedStateFrom } from './allocated-state.ts';
import { amountOf, formatAmount } from './quantities.ts';
import { oneDevice, resA } from './test-fixtures.ts';

describe('allocatedStateFrom', () => {
  it('holds plain results whole, skips admin access and sums the capacity of shares', () => {
    const state = allocatedStateFrom([
      {
        devices: {
          results: [resA('r', 'device-1'), resA('r', 'device-2', 'pool-1', { adminAccess: true })],
        },
      },
      {
        devices: {
          results: [
            resA('r', 'device-3', 'pool-1', { shareID: 'a', consumedCapacity: { mem: '1Gi' } }),
          ],
        },
      },
      {
        devices: {
          results: [
            resA('r', 'device-3', 'pool-1', { shareID: 'b', consumedCapacity: { mem: '512Mi' } }),
          ],
        },
      },
      { devices: { results: [resA('r', 'device-4', 'pool-1', { shareID: 'c' })] } },
    ]);
    expect(state.devices).toEqual(new Set(['driver-a/pool-1/device-1']));
    expect(state.sharedDevices).toEqual(
      new Set(['driver-a/pool-1/device-3', 'driver-a/pool-1/device-4']),
    );
    expect(state.consumedCapacity).toEqual(
      new Map([['driver-a/pool-1/device-3', new Map([['mem', 1536n * 2n ** 20n * 10n ** 9n]])]]),
    );
  });
});

describe('formatAmount', () => {
  it.each([
    ['0', '0'],
    ['1', '1'],
    ['1000', '1k'],
    ['1500', '1500'],
    ['0.5', '500m'],
    ['250m', '250m'],
    ['1Gi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['1000Mi', '1000Mi'],
    ['1024', '1024'],
    ['2e3', '2e3'],
    ['12e2', '1200'],
    ['-4Ki', '-4Ki'],
  ])('prints %s as kube does: %s', (raw, printed) => {
    expect(formatAmount(amountOf(raw, 'test'))).toBe(printed);
  });

  it('prints a binary amount below 1Ki in decimal', () => {
    expect(formatAmount({ nanos: 1000n * 10n ** 9n, format: 'BinarySI' })).toBe('1k');
    expect(formatAmount({ nanos: 1023n * 10n ** 9n, format: 'BinarySI' })).toBe('1023');
  });
});

describe('defaultShareId', () => {
  it('is a UUID-shaped id that depends only on the claim and the result position', () => {
    const a = defaultShareId(oneDevice('claim-0'), 0);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(defaultShareId(oneDevice('claim-0'), 0)).toBe(a);
    expect(defaultShareId(oneDevice('claim-0'), 1)).not.toBe(a);
    expect(defaultShareId(oneDevice('claim-1'), 0)).not.toBe(a);
  });
});
