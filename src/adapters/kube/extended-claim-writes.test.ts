// Tests PreBind for DRA-backed extended resources in the KubeBinder against a fake claim API: the special claim created as kube makes it, written, named in the pod's status, deleted when the bind fails.
import { describe, expect, it } from 'vitest';
import { attempt } from '../../../test/adapters/kube-effects-harness.ts';
import { FakeClaimApi, statusError } from '../../../test/support/fake-claim-api.ts';
import { testEffects } from '../../../test/support/kube-api-doubles.ts';
import type { ExtendedClaimSpec } from '../../events/types.ts';
import type { AllocationResult } from '../../model/dra-types.ts';

const request = 'container-0-request-1';
const allocation: AllocationResult = {
  devices: { results: [{ request, driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' }] },
};
const extended: ExtendedClaimSpec = {
  requests: [
    { name: request, exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 } },
  ],
  mappings: [{ containerName: 'c', resourceName: 'example.com/gpu', requestName: request }],
};
const created = 'p-extended-resources-x0k2q';

function setup() {
  const api = new FakeClaimApi();
  const t = testEffects(api.clients());
  const bind = async () => {
    t.binder.execute({
      kind: 'bind',
      attempt: attempt('ns/p', 2),
      node: 'n1',
      claims: [{ namespace: 'ns', name: '<extended-resources>', uid: 'x', allocation, extended }],
    });
    await t.binder.idle();
  };
  return { api, ...t, bind };
}

describe('KubeBinder PreBind of extended resources backed by DRA', () => {
  it('creates the special claim, writes its allocation and the pod, names it in the pod status, then binds', async () => {
    const t = setup();
    await t.bind();
    expect(t.api.lines()).toEqual([
      'POST /apis/resource.k8s.io/v1/namespaces/ns/resourceclaims',
      `GET ${created}`,
      `PUT ${created}`,
      `PUT ${created}/status`,
      'PATCH /api/v1/namespaces/ns/pods/p/status',
      'POST /api/v1/namespaces/ns/pods/p/binding',
    ]);
    expect(t.api.calls[0]?.body).toEqual({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: {
        namespace: 'ns',
        generateName: 'p-extended-resources-',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'uid-p', controller: true },
        ],
        annotations: { 'resource.kubernetes.io/extended-resource-claim': 'true' },
      },
      spec: { devices: { requests: extended.requests } },
    });
    expect(t.api.claims.get(`ns/${created}`)?.status).toMatchObject({
      allocation: { devices: allocation.devices },
      reservedFor: [{ resource: 'pods', name: 'p', uid: 'uid-p' }],
    });
    expect(t.api.calls[4]).toMatchObject({
      contentType: 'application/strategic-merge-patch+json',
      body: {
        metadata: { uid: 'uid-p' },
        status: {
          extendedResourceClaimStatus: {
            requestMappings: extended.mappings,
            resourceClaimName: created,
          },
        },
      },
    });
    expect(t.ingested).toEqual([
      { type: 'BindSucceeded', uid: 'uid-p', key: 'ns/p', attempt: 2, node: 'n1' },
    ]);
  });

  it('deletes the claim it created (finalizer off first) when the pod status write fails, and reports kube’s message', async () => {
    const t = setup();
    t.api.podStatus = () => statusError(403, 'Forbidden', 'pods "p" is forbidden');
    await t.bind();
    expect(t.api.lines().slice(4)).toEqual([
      'PATCH /api/v1/namespaces/ns/pods/p/status',
      `GET ${created}`,
      `PUT ${created}`,
      `DELETE ${created}`,
    ]);
    expect(t.api.claims.has(`ns/${created}`)).toBe(false);
    expect(t.ingested).toEqual([
      expect.objectContaining({
        type: 'BindFailed',
        reason: 'Error',
        code: 403,
        message: 'update pod ns/p ExtendedResourceClaimStatus: pods "p" is forbidden',
      }),
    ]);
  });

  it('deletes it when the Binding is refused, and says kube’s message when the create is refused', async () => {
    const t = setup();
    t.api.bind = () => statusError(409, 'Conflict', 'pod p is already assigned to node n2');
    await t.bind();
    expect(t.api.claims.size).toBe(0);
    expect(t.api.lines().at(-1)).toBe(`DELETE ${created}`);
    const u = setup();
    u.api.intercept = (call) =>
      call.method === 'POST' && call.path.endsWith('/resourceclaims')
        ? statusError(403, 'Forbidden', 'resourceclaims is forbidden')
        : undefined;
    await u.bind();
    expect(u.ingested).toEqual([
      expect.objectContaining({
        type: 'BindFailed',
        message: 'create claim for extended resources ns/: resourceclaims is forbidden',
      }),
    ]);
    expect(u.api.lines()).toEqual(['POST /apis/resource.k8s.io/v1/namespaces/ns/resourceclaims']);
  });

  it('deletes a special claim an earlier attempt left when the PostFilter asks (finalizer off first); a refusal comes back', async () => {
    const t = setup();
    t.api.put('ns/old', 'uid-old', { finalizers: ['resource.kubernetes.io/delete-protection'] });
    const pod = attempt('ns/p', 3);
    t.binder.execute({
      kind: 'deallocateClaim',
      pod,
      claim: { key: 'ns/old', uid: 'uid-old', delete: true },
    });
    await t.binder.idle();
    expect(t.api.lines()).toEqual(['GET old', 'PUT old', 'DELETE old']);
    expect(t.api.claims.has('ns/old')).toBe(false);
    const u = setup();
    u.api.put('ns/old', 'uid-old');
    u.api.intercept = (call) =>
      call.method === 'DELETE' ? statusError(403, 'Forbidden', 'forbidden') : undefined;
    u.binder.execute({
      kind: 'deallocateClaim',
      pod,
      claim: { key: 'ns/old', uid: 'uid-old', delete: true },
    });
    await u.binder.idle();
    expect(u.ingested).toEqual([
      expect.objectContaining({
        type: 'ClaimDeallocationFailed',
        message: 'delete resourceclaim ns/old: forbidden',
      }),
    ]);
  });
});
