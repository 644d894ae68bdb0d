// DynamicResources and NodeResourcesFit with extended resources backed by DRA: kube 1.37.2's special claim, its requests and mappings, and its messages.
import { describe, expect, it } from 'vitest';
import { apply, cluster, driver, upsert } from '../../../test/support/dra-state.ts';
import { nodeInfoFromObject } from '../../cluster/node-info.ts';
import { podInfoFromObject } from '../../cluster/pod-info.ts';
import type { ClusterState, NodeInfo, PodInfo } from '../../cluster/types.ts';
import type { BerthEvent, ReservedClaim } from '../../events/types.ts';
import { dynamicResources } from '../dynamic-resources.ts';
import { nodeResourcesFit } from '../node-resources-fit.ts';
import { claimsFilter, claimsReserve, claimsScore } from './claims-cycle.ts';

/** Cluster with class `gpu` backing `example.com/gpu`; node-1 has two devices. */
function withExplicit(): ClusterState {
  const state = cluster();
  upsert(state, 'DeviceClass', {
    metadata: { name: 'gpu' },
    spec: {
      selectors: [{ cel: { expression: `device.driver == "${driver}"` } }],
      extendedResourceName: 'example.com/gpu',
    },
  });
  return state;
}

function gpuPod(
  name: string,
  resource = 'example.com/gpu',
  count = '1',
  init?: unknown[],
): PodInfo {
  const p = podInfoFromObject({
    metadata: { name, namespace: 'ml', uid: `pod-${name}` },
    spec: {
      schedulerName: 'berth',
      ...(init === undefined ? {} : { initContainers: init }),
      containers: [{ name: 'c', resources: { requests: { cpu: '1', [resource]: count } } }],
    },
  });
  if ('rejected' in p) throw new Error(p.rejected);
  return p;
}

function node(name: string, scalar: Record<string, string> = {}): NodeInfo {
  const n = nodeInfoFromObject({
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    status: { allocatable: { cpu: '4', memory: '8Gi', pods: '10', ...scalar } },
  });
  if ('rejected' in n) throw new Error(n.rejected);
  return n;
}

const plugin = dynamicResources(undefined, '1.37', { extendedResources: true });

/** The metadata of the special claim kube made for pod `ml/<pod>` (uid `pod-<pod>`). */
const specialMeta = (pod: string, name: string, uid: string) => ({
  name,
  namespace: 'ml',
  uid,
  annotations: { 'resource.kubernetes.io/extended-resource-claim': 'true' },
  ownerReferences: [
    { apiVersion: 'v1', kind: 'Pod', name: pod, uid: `pod-${pod}`, controller: true },
  ],
});

describe('DynamicResources with DRA-backed extended resources', () => {
  it('allocates example.com/gpu from devices on a node without it in allocatable, and reserves the special claim', () => {
    const state = withExplicit();
    const p = gpuPod('p');
    const cycle = new Map();
    expect(plugin.preFilter(p, cycle, state).code).toBe('Success');
    expect(claimsFilter(p, node('node-1'), cycle).code).toBe('Success');
    expect(claimsFilter(p, node('node-2'), cycle)).toMatchObject({
      code: 'UnschedulableAndUnresolvable',
      reasons: ['cannot allocate all claims'],
    });
    // kube's request name: container 0, index 1 among its sorted request names (cpu first).
    expect(claimsReserve(p, 'node-1', cycle)).toEqual({
      claims: [
        {
          key: 'ml/<extended-resources>',
          uid: '<extended-resources>/pod-p',
          allocation: {
            devices: {
              results: [
                { request: 'container-0-request-1', driver, pool: 'node-1', device: 'gpu-0' },
              ],
            },
            nodeSelector: expect.anything(),
          },
          extended: {
            requests: [
              {
                name: 'container-0-request-1',
                exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 },
              },
            ],
            mappings: [
              {
                containerName: 'c',
                resourceName: 'example.com/gpu',
                requestName: 'container-0-request-1',
              },
            ],
          },
        },
      ],
    });
    // Score: the special claim has no firstAvailable requests (kube scores 0).
    expect(claimsScore(p, node('node-1'), cycle)).toBe(0);
  });

  it('serves the implicit deviceclass.resource.kubernetes.io/<class> name too', () => {
    const p = gpuPod('p', 'deviceclass.resource.kubernetes.io/gpu', '2');
    const cycle = new Map();
    expect(plugin.preFilter(p, cycle, cluster()).code).toBe('Success');
    expect(claimsFilter(p, node('node-1'), cycle).code).toBe('Success');
    const reserved = claimsReserve(p, 'node-1', cycle) as { claims: { allocation: unknown }[] };
    expect(reserved.claims[0]?.allocation).toMatchObject({
      devices: { results: [{ device: 'gpu-0' }, { device: 'gpu-1' }] },
    });
  });

  it('leaves a node that lists the resource to NodeResourcesFit: nothing for DRA to write', () => {
    const p = gpuPod('p');
    const cycle = new Map();
    plugin.preFilter(p, cycle, withExplicit());
    const own = node('node-2', { 'example.com/gpu': '4' });
    expect(claimsFilter(p, own, cycle).code).toBe('Success');
    expect(claimsReserve(p, 'node-2', cycle)).toEqual({});
  });

  it('is off without the flag and before 1.36: no state, the pod is NodeResourcesFit’s alone', () => {
    const p = gpuPod('p');
    for (const pl of [
      dynamicResources(undefined, '1.37'),
      dynamicResources(undefined, '1.35', { extendedResources: true }),
    ]) {
      const cycle = new Map();
      expect(pl.preFilter(p, cycle, withExplicit()).code).toBe('Success');
      expect(pl.preFilterSkip?.(p, cycle)).toBe(true);
    }
  });

  it('says kube’s "cannot schedule extended resource claim" while a claim from an earlier cycle is there', () => {
    const state = withExplicit();
    upsert(state, 'ResourceClaim', {
      metadata: specialMeta('p', 'p-extended-resources-abcde', 'uid-old'),
      spec: {
        devices: {
          requests: [{ name: 'container-0-request-1', exactly: { deviceClassName: 'gpu' } }],
        },
      },
    });
    const p = gpuPod('p');
    const cycle = new Map();
    expect(plugin.preFilter(p, cycle, state).code).toBe('Success');
    expect(claimsFilter(p, node('node-1'), cycle)).toMatchObject({
      code: 'UnschedulableAndUnresolvable',
      reasons: ['cannot schedule extended resource claim'],
    });
    // PostFilter: kube deletes it so that the next attempt starts afresh.
    const args = { preFiltersCompleted: true, state: cycle } as Parameters<
      typeof plugin.postFilter
    >[1];
    expect(plugin.postFilter(p, args)).toEqual({
      code: 'Unschedulable',
      reasons: ['deletion of ResourceClaim completed'],
      plugin: 'DynamicResources',
      deallocate: { key: 'ml/p-extended-resources-abcde', uid: 'uid-old', delete: true },
    });
  });

  it('gives an explicit name two classes share to the newer class, then the lower name', () => {
    const state = withExplicit();
    const cel = [{ cel: { expression: `device.driver == "${driver}"` } }];
    const cls = (name: string, at: string) => ({
      metadata: { name, creationTimestamp: at },
      spec: { selectors: cel, extendedResourceName: 'example.com/gpu' },
    });
    upsert(state, 'DeviceClass', cls('gpu', '2026-01-01T00:00:00Z'));
    upsert(state, 'DeviceClass', cls('zz-newer', '2026-02-01T00:00:00Z'));
    upsert(state, 'DeviceClass', cls('aa-older', '2025-12-01T00:00:00Z'));
    const p = gpuPod('p');
    const cycle = new Map();
    plugin.preFilter(p, cycle, state);
    claimsFilter(p, node('node-1'), cycle);
    const reserved = claimsReserve(p, 'node-1', cycle) as {
      claims: { extended: { requests: { exactly: { deviceClassName: string } }[] } }[];
    };
    expect(reserved.claims[0]?.extended.requests[0]?.exactly.deviceClassName).toBe('zz-newer');
  });

  it('lets short-lived init containers reuse the app containers’ devices (kube’s mappings)', () => {
    const state = withExplicit();
    const init = [{ name: 'i', resources: { requests: { 'example.com/gpu': '1' } } }];
    const p = gpuPod('p', 'example.com/gpu', '1', init);
    const cycle = new Map();
    plugin.preFilter(p, cycle, state);
    expect(claimsFilter(p, node('node-1'), cycle).code).toBe('Success');
    const reserved = claimsReserve(p, 'node-1', cycle) as {
      claims: { extended: { requests: unknown[]; mappings: unknown[] } }[];
    };
    expect(reserved.claims[0]?.extended).toEqual({
      requests: [
        {
          name: 'container-1-request-1',
          exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 },
        },
      ],
      mappings: [
        {
          containerName: 'c',
          resourceName: 'example.com/gpu',
          requestName: 'container-1-request-1',
        },
        {
          containerName: 'i',
          resourceName: 'example.com/gpu',
          requestName: 'container-1-request-1',
        },
      ],
    });
  });
});

describe('the special claim’s devices in flight', () => {
  it('holds them from Reserve until the claim the bind created shows them, then counts the claim', () => {
    const state = withExplicit();
    const reserve = (name: string): ReservedClaim[] | undefined => {
      const p = gpuPod(name);
      const cycle = new Map();
      plugin.preFilter(p, cycle, state);
      if (claimsFilter(p, node('node-1'), cycle).code !== 'Success') return undefined;
      const { claims } = claimsReserve(p, 'node-1', cycle) as { claims: ReservedClaim[] };
      const reserved = { uid: p.uid, key: p.key, attempt: 1, node: 'node-1', claims };
      apply(state, { type: 'PodReserved', ...reserved } as BerthEvent);
      return claims;
    };
    const a = reserve('a');
    expect(a?.[0]?.allocation?.devices.results[0]?.device).toBe('gpu-0');
    expect(reserve('b')?.[0]?.allocation?.devices.results[0]?.device).toBe('gpu-1');
    expect(reserve('c')).toBeUndefined();
    apply(state, {
      type: 'BindSucceeded',
      uid: 'pod-a',
      key: 'ml/a',
      attempt: 1,
      node: 'node-1',
    } as BerthEvent);
    expect(state.claimsInFlight?.has('<extended-resources>/pod-a')).toBe(true);
    const created = {
      metadata: specialMeta('a', 'a-extended-resources-x7k2q', 'uid-a-ext'),
      spec: { devices: { requests: a?.[0]?.extended?.requests } },
    };
    upsert(state, 'ResourceClaim', created);
    expect(state.claimsInFlight?.has('<extended-resources>/pod-a')).toBe(true);
    upsert(state, 'ResourceClaim', { ...created, status: { allocation: a?.[0]?.allocation } });
    expect(state.claimsInFlight?.has('<extended-resources>/pod-a')).toBe(false);
    // The claim's own allocation now holds gpu-0.
    expect(reserve('c')).toBeUndefined();
  });
});

describe('NodeResourcesFit with DRA-backed extended resources', () => {
  it('does not reject a node lacking the resource when a DeviceClass backs it, and still does otherwise', () => {
    const p = gpuPod('p');
    const cycle = new Map();
    plugin.preFilter(p, cycle, withExplicit());
    expect(nodeResourcesFit.filter(p, node('node-1'), cycle).code).toBe('Success');
    expect(nodeResourcesFit.filter(p, node('node-1'), new Map())).toMatchObject({
      code: 'UnschedulableAndUnresolvable',
      reasons: ['Insufficient example.com/gpu'],
    });
    // A node that lists it keeps the ordinary check.
    expect(nodeResourcesFit.filter(p, node('node-2', { 'example.com/gpu': '0' }), cycle).code).toBe(
      'Success',
    );
    const full = node('node-3', { 'example.com/gpu': '1' });
    const big = gpuPod('q', 'example.com/gpu', '2');
    const c2 = new Map();
    plugin.preFilter(big, c2, withExplicit());
    expect(nodeResourcesFit.filter(big, full, c2)).toMatchObject({
      reasons: ['Insufficient example.com/gpu'],
    });
  });
});
