// Pins what trimming keeps of the DRA kinds: everything their parsers read, of the drivers' status only the binding conditions' parts.
import { describe, expect, it } from 'vitest';
import { objectParsers } from '../cluster/cluster-objects.ts';
import { trimObject } from './trim.ts';

describe('trimObject DRA kinds', () => {
  const claim = {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: {
      name: 'pod-gpu',
      namespace: 'ml',
      uid: 'c1',
      resourceVersion: '9',
      managedFields: [{ manager: 'kube-controller-manager' }],
      annotations: { 'resource.kubernetes.io/pod-claim-name': 'gpu', other: 'x' },
      finalizers: ['resource.kubernetes.io/delete-protection'],
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Pod', name: 'pod', uid: 'p1', controller: true },
      ],
    },
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } },
    status: {
      allocation: { devices: { results: [] } },
      reservedFor: [{ resource: 'pods', name: 'pod', uid: 'p1' }],
      devices: [
        {
          driver: 'd',
          pool: 'p',
          device: 'x',
          data: { big: 'blob' },
          networkData: { ips: ['10.0.0.1'] },
          conditions: [
            {
              type: 'Attached',
              status: 'True',
              reason: 'Done',
              message: 'ok',
              lastTransitionTime: '2026-01-01T00:00:00Z',
              observedGeneration: 3,
            },
          ],
        },
      ],
    },
  };

  it("keeps a claim's spec, allocation, consumers, owner, pod-claim annotation and device conditions; drops drivers' data", () => {
    expect(trimObject('ResourceClaim', claim)).toStrictEqual({
      metadata: {
        name: 'pod-gpu',
        namespace: 'ml',
        uid: 'c1',
        resourceVersion: '9',
        annotations: { 'resource.kubernetes.io/pod-claim-name': 'gpu' },
        finalizers: ['resource.kubernetes.io/delete-protection'],
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name: 'pod', uid: 'p1', controller: true },
        ],
      },
      spec: claim.spec,
      status: {
        allocation: claim.status.allocation,
        reservedFor: claim.status.reservedFor,
        devices: [
          {
            driver: 'd',
            pool: 'p',
            device: 'x',
            conditions: [{ type: 'Attached', status: 'True', reason: 'Done', message: 'ok' }],
          },
        ],
      },
    });
  });

  it('loses nothing the parsers read, for every DRA kind', () => {
    const objects = {
      ResourceClaim: claim,
      DeviceClass: {
        metadata: { name: 'gpu' },
        spec: {
          selectors: [{ cel: { expression: 'true' } }],
          extendedResourceName: 'example.com/gpu',
        },
      },
      ResourceSlice: {
        metadata: { name: 's' },
        spec: {
          driver: 'd',
          pool: { name: 'p', generation: 2, resourceSliceCount: 1 },
          allNodes: true,
          devices: [{ name: 'x' }],
        },
      },
      DeviceTaintRule: {
        metadata: { name: 'r' },
        spec: { taint: { key: 'k', effect: 'NoSchedule' } },
        status: { conditions: [] },
      },
    } as const;
    for (const [kind, raw] of Object.entries(objects) as [keyof typeof objects, unknown][])
      expect(objectParsers[kind](trimObject(kind, raw))).toEqual(objectParsers[kind](raw));
  });
});
