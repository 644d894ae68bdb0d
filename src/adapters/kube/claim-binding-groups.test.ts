// DRA PreBind for a pod group's members in the KubeBinder: a claim shared in flight is written once, a PodGroup's claim is reserved for the PodGroup.
import { describe, expect, it } from 'vitest';
import { attempt } from '../../../test/adapters/kube-effects-harness.ts';
import { FakeClaimApi } from '../../../test/support/fake-claim-api.ts';
import { testEffects } from '../../../test/support/kube-api-doubles.ts';
import type { AllocationResult } from '../../model/dra-types.ts';

const allocation: AllocationResult = {
  devices: {
    results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' }],
  },
};
const podRef = { resource: 'pods', name: 'p', uid: 'uid-p' };

function setup() {
  const api = new FakeClaimApi();
  const t = testEffects(api.clients());
  /** Binds pod `pod` (default ns/p) with `claims`, each to allocate `allocation`. */
  const bind = async (
    claims: { name: string; uid: string; podGroup?: { name: string; uid: string } }[],
    pod = 'ns/p',
  ) => {
    const c = claims.map((x) => ({ namespace: 'ns', ...x, allocation }));
    t.binder.execute({ kind: 'bind', attempt: attempt(pod, 2), node: 'n1', claims: c });
    await t.binder.idle();
  };
  return { api, ...t, bind };
}

describe('KubeBinder DRA PreBind for a pod group', () => {
  it('only reserves a claim another member of its group allocated with the same devices (a shared pending allocation)', async () => {
    const t = setup();
    const member = { resource: 'pods', name: 'w0', uid: 'uid-w0' };
    const written = { ...allocation, allocationTimestamp: '2030-01-01T00:00:00Z' };
    t.api.put('ns/c1', 'uid-c1', {
      finalizers: ['resource.kubernetes.io/delete-protection'],
      status: { allocation: written, reservedFor: [member] },
    });
    await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
    expect(t.api.lines()).toEqual([
      'GET c1',
      'PUT c1/status',
      'POST /api/v1/namespaces/ns/pods/p/binding',
    ]);
    expect(t.api.claims.get('ns/c1')?.status).toEqual({
      allocation: written,
      reservedFor: [member, podRef],
    });
    expect(t.ingested.map((e) => e.type)).toEqual(['BindSucceeded']);
  });

  it('reserves a PodGroup’s claim for the PodGroup once (kube’s BindTo), and skips it for the next member', async () => {
    const group = { name: 'train', uid: 'uid-train' };
    const groupRef = { apiGroup: 'scheduling.k8s.io', resource: 'podgroups', ...group };
    const t = setup();
    t.api.put('ns/c1', 'uid-c1', { finalizers: ['resource.kubernetes.io/delete-protection'] });
    await t.bind([{ name: 'c1', uid: 'uid-c1', podGroup: group }]);
    expect(t.api.claims.get('ns/c1')?.status?.reservedFor).toEqual([groupRef]);
    await t.bind([{ name: 'c1', uid: 'uid-c1', podGroup: group }], 'ns/q');
    expect(t.api.lines()).toEqual([
      'GET c1',
      'PUT c1/status',
      'POST /api/v1/namespaces/ns/pods/p/binding',
      'GET c1',
      'POST /api/v1/namespaces/ns/pods/q/binding',
    ]);
    expect(t.api.claims.get('ns/c1')?.status?.reservedFor).toEqual([groupRef]);
  });
});
