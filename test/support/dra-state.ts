// A reduced cluster state with DRA objects (two nodes, node-1's GPUs, claims c1 and c2) and the pods and nodes the DRA plugin tests use.
import { nodeInfoFromObject } from '../../src/cluster/node-info.ts';
import { podInfoFromObject } from '../../src/cluster/pod-info.ts';
import { initialState, reduce } from '../../src/cluster/reducer.ts';
import type { ClusterState, NodeInfo, PodInfo } from '../../src/cluster/types.ts';
import type { BerthEvent } from '../../src/events/types.ts';
import type { ObjectKind } from '../../src/model/kinds.ts';

/** The DRA driver of the slices and class. */
export const driver = 'gpu.example.com';
let seq = 0;
/** Reduces `event` into `state` with the next seq. */
export const apply = (state: ClusterState, event: BerthEvent) =>
  reduce(state, { seq: ++seq, time: 0, event } as never);
/** Reduces an ObjectUpserted of `kind`. */
export const upsert = (state: ClusterState, kind: ObjectKind, object: unknown) =>
  apply(state, { type: 'ObjectUpserted', kind, object } as BerthEvent);

/** ResourceClaim `ml/<name>` (uid `uid-<name>`) asking for one device of class `gpu`; `extra` merged in. */
export const gpuClaim = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'ml', uid: `uid-${name}` },
  spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } },
  ...extra,
});

/** The one slice of `node`'s pool (named after the node), with `devices`. */
export const nodeSlice = (node: string, devices: unknown[]) => ({
  metadata: { name: `${node}-gpus` },
  spec: {
    driver,
    pool: { name: node, generation: 1, resourceSliceCount: 1 },
    nodeName: node,
    devices,
  },
});

/** Two nodes; node-1 publishes two GPUs, node-2 none; class `gpu` selects the driver's devices. */
export function cluster(): ClusterState {
  const state = initialState();
  upsert(state, 'DeviceClass', {
    metadata: { name: 'gpu' },
    spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
  });
  upsert(state, 'ResourceSlice', nodeSlice('node-1', [{ name: 'gpu-0' }, { name: 'gpu-1' }]));
  upsert(state, 'ResourceClaim', gpuClaim('c1'));
  upsert(state, 'ResourceClaim', gpuClaim('c2'));
  return state;
}

/** A node with a hostname label and room for small pods. */
export function node(name: string): NodeInfo {
  const n = nodeInfoFromObject({
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    status: { allocatable: { cpu: '4', memory: '8Gi', pods: '10' } },
  });
  if ('rejected' in n) throw new Error(n.rejected);
  return n;
}

/** Pod `ml/<name>` (uid `pod-<name>`) with `spec.resourceClaims` and, when given, its claim statuses. */
export function pod(name: string, claims: unknown[], statuses?: unknown[]): PodInfo {
  const p = podInfoFromObject({
    metadata: { name, namespace: 'ml', uid: `pod-${name}` },
    spec: { schedulerName: 'berth', containers: [{ name: 'c' }], resourceClaims: claims },
    ...(statuses === undefined ? {} : { status: { resourceClaimStatuses: statuses } }),
  });
  if ('rejected' in p) throw new Error(p.rejected);
  return p;
}

/** `spec.resourceClaims` naming the one claim `claim`. */
export const uses = (claim: string) => [{ name: 'gpu', resourceClaimName: claim }];
