// A DRA scenario for device binding conditions: node n1 publishes one GPU that binds to its node once the driver says `Attached`; pod ml/p uses claim ml/c1.
import type { ManifestObject } from '../../src/adapters/sim/manifests.ts';
import type { PodObject } from '../../src/model/objects.ts';
import type { JsonRecord } from '../../src/model/record.ts';
import { podObject } from './objects.ts';

/** The DRA driver of the slice and the class. */
export const bindingDriver = 'fabric.example.com';

const manifest = (kind: string, object: JsonRecord): ManifestObject => ({
  kind: kind as ManifestObject['kind'],
  object: { kind, ...object },
  origin: 'test',
});

/** DeviceClass `fabric`, n1's slice (gpu-0 with binding conditions) and unallocated claim ml/c1. */
export function bindingObjects(): ManifestObject[] {
  return [
    manifest('DeviceClass', {
      metadata: { name: 'fabric' },
      spec: { selectors: [{ cel: { expression: `device.driver == "${bindingDriver}"` } }] },
    }),
    manifest('ResourceSlice', {
      metadata: { name: 'fabric-gpus' },
      spec: {
        driver: bindingDriver,
        pool: { name: 'fabric', generation: 1, resourceSliceCount: 1 },
        allNodes: true,
        devices: [
          {
            name: 'gpu-0',
            bindsToNode: true,
            bindingConditions: ['Attached'],
            bindingFailureConditions: ['AttachFailed'],
          },
        ],
      },
    }),
    manifest('ResourceClaim', {
      metadata: { name: 'c1', namespace: 'ml', uid: 'uid-c1', resourceVersion: '7' },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'fabric' } }] } },
    }),
  ];
}

/** Pod `ml/p` (uid `uid-p`, scheduler berth) using claim c1. */
export function bindingPod(): PodObject {
  const p = podObject('p', { namespace: 'ml', schedulerName: 'berth' });
  p.metadata.uid = 'uid-p';
  (p.spec as JsonRecord).resourceClaims = [{ name: 'gpu', resourceClaimName: 'c1' }];
  return p;
}
