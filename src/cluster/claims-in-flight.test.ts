// The in-flight allocations the reducer keeps: one a group's members share is held until its last holder lets go.
import { describe, expect, it } from 'vitest';
import type { ReservedClaim } from '../events/types.ts';
import type { AllocationResult } from '../model/dra-types.ts';
import { countAllocations } from './allocated-devices.ts';
import {
  type ClaimsInFlightState,
  releaseClaims,
  reserveClaims,
  reservedClaimsOf,
} from './claims-in-flight.ts';

const allocation: AllocationResult = {
  devices: { results: [{ request: 'gpu', driver: 'd', pool: 'n1', device: 'gpu-0' }] },
};
const shared = (group?: string): ReservedClaim => ({
  key: 'ml/shared',
  uid: 'claim-shared',
  allocation,
  ...(group === undefined ? {} : { group }),
});
const fresh = (): ClaimsInFlightState => ({ allocatedDevices: countAllocations([]) });
const held = (s: ClaimsInFlightState) => s.allocatedDevices?.devices.get('d/n1/gpu-0') ?? 0;

describe('claims in flight shared by a group’s members', () => {
  it('holds a shared allocation once, while any member that reserved it still does', () => {
    const s = fresh();
    reserveClaims(s, 'w0', 1, [shared('ml/train')]);
    reserveClaims(s, 'w1', 1, [shared('ml/train')]);
    reserveClaims(s, 'w2', 1, [shared('ml/train')]);
    expect(held(s)).toBe(1);
    releaseClaims(s, 'w0', 1); // the first holder goes first: the others keep it
    expect(s.claimsInFlight?.get('claim-shared')).toMatchObject({ podUid: 'w1', sharers: ['w2'] });
    expect(held(s)).toBe(1);
    releaseClaims(s, 'w2', 1);
    expect(s.claimsInFlight?.get('claim-shared')?.sharers).toBeUndefined();
    releaseClaims(s, 'w1', 1);
    expect(s.claimsInFlight?.size).toBe(0);
    expect(held(s)).toBe(0);
  });

  it('lets a pod of another group, or of none, take the claim over as before', () => {
    const s = fresh();
    reserveClaims(s, 'w0', 1, [shared('ml/train')]);
    reserveClaims(s, 'x', 1, [shared('ml/eval')]);
    expect(s.claimsInFlight?.get('claim-shared')).toMatchObject({ podUid: 'x', group: 'ml/eval' });
    reserveClaims(s, 'y', 1, [shared()]);
    expect(s.claimsInFlight?.get('claim-shared')?.podUid).toBe('y');
    expect(held(s)).toBe(1);
  });

  it('reads the group back from a logged reservation, only with an allocation', () => {
    expect(reservedClaimsOf([shared('ml/train'), { key: 'a/b', uid: 'u', group: 'g' }])).toEqual([
      shared('ml/train'),
      { key: 'a/b', uid: 'u' },
    ]);
  });
});
