// A DRA scenario for the PostFilter's deallocation: claim ml/c1 allocated on n1, pod ml/p using it but required on n2; both nodes publish one GPU.
import type { PodObject } from '../../src/model/objects.ts';
import type { JsonRecord } from '../../src/model/record.ts';
import { podObject } from './objects.ts';

/** The DRA driver of the slices and the class. */
export const pinnedDriver = 'gpu.example.com';

const object = (kind: string, o: JsonRecord): JsonRecord => ({ kind, ...o });

/** The ResourceSlice of `node`: one GPU in a pool named after the node. */
const slice = (node: string) =>
  object('ResourceSlice', {
    metadata: { name: `${node}-gpus` },
    spec: {
      driver: pinnedDriver,
      pool: { name: node, generation: 1, resourceSliceCount: 1 },
      nodeName: node,
      devices: [{ name: 'gpu-0' }],
    },
  });

/** An allocation of `node`'s GPU, usable on `node` only. */
export const allocationOn = (node: string) => ({
  devices: { results: [{ request: 'gpu', driver: pinnedDriver, pool: node, device: 'gpu-0' }] },
  nodeSelector: {
    nodeSelectorTerms: [
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] },
    ],
  },
});

/** Claim `ml/c1` (uid `uid-c1`, resourceVersion 7), allocated on n1, reserved for `holders`. */
export const pinnedClaim = (holders: JsonRecord[] = []) =>
  object('ResourceClaim', {
    metadata: { name: 'c1', namespace: 'ml', uid: 'uid-c1', resourceVersion: '7' },
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } },
    status: {
      allocation: allocationOn('n1'),
      ...(holders.length > 0 ? { reservedFor: holders } : {}),
    },
  });

/** DeviceClass `gpu`, the slices of n1 and n2, and `pinnedClaim(holders)`, each with its `kind`. */
export const pinnedObjects = (holders: JsonRecord[] = []): JsonRecord[] => [
  object('DeviceClass', {
    metadata: { name: 'gpu' },
    spec: { selectors: [{ cel: { expression: `device.driver == "${pinnedDriver}"` } }] },
  }),
  slice('n1'),
  slice('n2'),
  pinnedClaim(holders),
];

/** Pod `ml/p` (uid `uid-p`, scheduler berth) using claim c1, required (node affinity) on n2. */
export function pinnedPod(): PodObject {
  const p = podObject('p', { namespace: 'ml', schedulerName: 'berth' });
  p.metadata.uid = 'uid-p';
  const spec = p.spec as JsonRecord;
  spec.resourceClaims = [{ name: 'gpu', resourceClaimName: 'c1' }];
  spec.affinity = {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] },
        ],
      },
    },
  };
  return p;
}
