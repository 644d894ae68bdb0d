// The running count of allocated devices: shares and capacity, and a malformed quantity that sends readers back to gathering.
import { describe, expect, it } from 'vitest';
import { allocatedState } from '../plugins/dra/allocated-state.ts';
import { AllocatorError } from '../plugins/dra/allocator/types.ts';
import { AllocatedDevices } from './allocated-devices.ts';
import { initialState } from './reducer.ts';

const share = (memory: string) => ({
  devices: {
    results: [
      {
        request: 'r',
        driver: 'd',
        pool: 'p',
        device: 'x',
        shareID: 's',
        consumedCapacity: { memory },
      },
    ],
  },
});

describe('AllocatedDevices', () => {
  it('sums shares’ capacity and forgets a device once its last share goes', () => {
    const counted = new AllocatedDevices();
    counted.add(share('1Gi'));
    counted.add(share('1Gi'));
    expect(counted.consumedCapacity.get('d/p/x')?.get('memory')).toBe(2n * 1024n ** 3n * 10n ** 9n);
    counted.remove(share('1Gi'));
    counted.remove(share('1Gi'));
    expect(counted.sharedDevices.size).toBe(0);
    expect(counted.consumedCapacity.size).toBe(0);
  });

  it('marks a malformed quantity, and the plugin then gathers afresh and reports it', () => {
    const state = initialState();
    state.allocatedDevices?.add(share('lots'));
    expect(state.allocatedDevices?.malformed).toMatch(
      /^device d\/p\/x: capacity memory: invalid quantity/,
    );
    state.claimsInFlight = new Map([
      ['c', { key: 'ml/c', podUid: 'p', attempt: 1, allocation: share('lots') }],
    ]);
    expect(() => allocatedState(state)).toThrow(AllocatorError);
  });
});
