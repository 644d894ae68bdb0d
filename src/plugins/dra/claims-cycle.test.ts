// DynamicResources' PreFilter, Filter and Reserve on a reduced cluster state: kube's messages, the allocator per node, in-flight claims.
import { describe, expect, it } from 'vitest';
import {
  apply,
  cluster,
  driver,
  gpuClaim,
  node,
  nodeSlice,
  pod,
  upsert,
  uses,
} from '../../../test/support/dra-state.ts';
import { podInfoFromObject } from '../../cluster/pod-info.ts';
import type { PodInfo } from '../../cluster/types.ts';
import type { BerthEvent } from '../../events/types.ts';
import { dynamicResources } from '../dynamic-resources.ts';
import {
  claimsFilter,
  claimsFilterSkip,
  claimsPreFilter,
  claimsReserve,
  claimsScore,
} from './claims-cycle.ts';

describe('DynamicResources PreFilter', () => {
  it('skips a pod without claims: no state, every node passes', () => {
    const state = new Map();
    const p = podInfoFromObject({ metadata: { name: 'plain', uid: 'u' }, spec: {} }) as PodInfo;
    expect(claimsPreFilter(p, state, cluster()).code).toBe('Success');
    expect(claimsFilterSkip(p, state)).toBe(true);
  });

  it.each([
    [
      'a claim that does not exist',
      pod('p', uses('gone')),
      'could not find ResourceClaim "ml/gone"',
    ],
    [
      'a template claim not created yet',
      pod('p', [{ name: 'gpu', resourceClaimTemplateName: 't' }]),
      'pod "ml/p": ResourceClaim not created yet',
    ],
    [
      'a template claim made for another pod',
      pod(
        'p',
        [{ name: 'gpu', resourceClaimTemplateName: 't' }],
        [{ name: 'gpu', resourceClaimName: 'c1' }],
      ),
      'ResourceClaim ml/c1 was not created for Pod ml/p (Pod is not owner)',
    ],
    [
      'an entry naming neither a claim nor a template',
      pod('p', [{ name: 'gpu' }]),
      'pod "ml/p", spec.resourceClaim "gpu": none of the supported fields are set',
    ],
  ])('rejects %s with kube’s message, unresolvable', (_what, p, message) => {
    const s = claimsPreFilter(p, new Map(), cluster());
    expect(s).toMatchObject({ code: 'UnschedulableAndUnresolvable', reasons: [message] });
  });

  it('takes a template claim its core PodGroup owns as the member’s, as kube with DRAWorkloadResourceClaims', () => {
    const member = podInfoFromObject({
      metadata: { name: 'w0', namespace: 'ml', uid: 'pod-w0' },
      spec: {
        schedulerName: 'berth',
        containers: [{ name: 'c' }],
        schedulingGroup: { podGroupName: 'train' },
        resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 't' }],
      },
      status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'g' }] },
    }) as PodInfo;
    const ownedBy = (apiVersion: string, kind: string, name: string) => {
      const state = cluster();
      const owner = { apiVersion, kind, name, uid: `${name}-uid`, controller: true };
      upsert(state, 'ResourceClaim', {
        ...gpuClaim('g'),
        metadata: { ...gpuClaim('g').metadata, ownerReferences: [owner] },
      });
      return claimsPreFilter(member, new Map(), state);
    };
    expect(ownedBy('scheduling.k8s.io/v1beta1', 'PodGroup', 'train').code).toBe('Success');
    const neither =
      'ResourceClaim ml/g was not created for Pod ml/w0 (neither Pod nor PodGroup train is the owner)';
    expect(ownedBy('scheduling.k8s.io/v1beta1', 'PodGroup', 'eval').reasons).toEqual([neither]);
    expect(ownedBy('scheduling.x-k8s.io/v1alpha1', 'PodGroup', 'train').reasons).toEqual([neither]);
    expect(ownedBy('v1', 'Pod', 'train').reasons).toEqual([neither]);
  });

  it('names a device class that does not exist, and a claim being deleted', () => {
    const state = cluster();
    upsert(state, 'ResourceClaim', {
      ...gpuClaim('c3'),
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'tpu' } }] } },
    });
    expect(claimsPreFilter(pod('p', uses('c3')), new Map(), state).reasons).toEqual([
      'request gpu: device class tpu does not exist',
    ]);
    upsert(state, 'ResourceClaim', {
      ...gpuClaim('c4'),
      metadata: { ...gpuClaim('c4').metadata, deletionTimestamp: '2026-11-28T00:00:00Z' },
    });
    expect(claimsPreFilter(pod('p', uses('c4')), new Map(), state).reasons).toEqual([
      'resourceclaim "c4" is being deleted',
    ]);
  });

  it('leaves its state when it rejects the pod, so its PostFilter answers Unschedulable and preemption runs (kube writes the state first)', () => {
    const state = cluster();
    upsert(state, 'ResourceClaim', {
      ...gpuClaim('c3'),
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'tpu' } }] } },
    });
    const plugin = dynamicResources();
    const cycle = new Map();
    const p = pod('p', uses('c3'));
    expect(plugin.preFilter(p, cycle, state).code).toBe('UnschedulableAndUnresolvable');
    const args = { preFiltersCompleted: false, state: cycle } as Parameters<
      typeof plugin.postFilter
    >[1];
    expect(plugin.postFilter(p, args)).toMatchObject({ code: 'Unschedulable', reasons: [] });
  });
});

describe('DynamicResources Filter and Reserve', () => {
  it('allocates on the node that has the devices and says kube’s message elsewhere', () => {
    const state = cluster();
    const p = pod('p', uses('c1'));
    const cycle = new Map();
    expect(claimsPreFilter(p, cycle, state).code).toBe('Success');
    expect(claimsFilter(p, node('node-2'), cycle)).toMatchObject({
      code: 'UnschedulableAndUnresolvable',
      reasons: ['cannot allocate all claims'],
    });
    expect(claimsFilter(p, node('node-1'), cycle).code).toBe('Success');
    const reserved = claimsReserve(p, 'node-1', cycle);
    expect(reserved).toMatchObject({
      claims: [
        {
          key: 'ml/c1',
          uid: 'uid-c1',
          allocation: {
            devices: { results: [{ request: 'gpu', driver, pool: 'node-1', device: 'gpu-0' }] },
          },
        },
      ],
    });
  });

  it('counts an allocation in flight as taken, and keeps a second pod off its claim', () => {
    const state = cluster();
    const first = pod('a', uses('c1'));
    const cycle = new Map();
    claimsPreFilter(first, cycle, state);
    claimsFilter(first, node('node-1'), cycle);
    const { claims } = claimsReserve(first, 'node-1', cycle) as { claims: unknown[] };
    apply(state, {
      type: 'PodReserved',
      uid: first.uid,
      key: first.key,
      attempt: 1,
      node: 'node-1',
      claims,
    } as BerthEvent);
    // Another claim gets the other GPU; the in-flight claim itself waits.
    const second = pod('b', uses('c2'));
    const next = new Map();
    claimsPreFilter(second, next, state);
    expect(claimsFilter(second, node('node-1'), next).code).toBe('Success');
    expect(claimsReserve(second, 'node-1', next)).toMatchObject({
      claims: [{ allocation: { devices: { results: [{ device: 'gpu-1' }] } } }],
    });
    expect(claimsPreFilter(pod('c', uses('c1')), new Map(), state).reasons).toEqual([
      'resource claim ml/c1 is in the process of being allocated',
    ]);
    // The failed bind releases it: gpu-0 is free again.
    apply(state, {
      type: 'BindFailed',
      uid: first.uid,
      key: first.key,
      attempt: 1,
      node: 'node-1',
      reason: 'Error',
      message: 'x',
    } as BerthEvent);
    const again = new Map();
    claimsPreFilter(second, again, state);
    claimsFilter(second, node('node-1'), again);
    expect(claimsReserve(second, 'node-1', again)).toMatchObject({
      claims: [{ allocation: { devices: { results: [{ device: 'gpu-0' }] } } }],
    });
  });

  it('sees a slice change between cycles of the same state (the slice index is kept only while no slice moves)', () => {
    const state = cluster();
    const p = pod('p', uses('c1'));
    const first = new Map();
    claimsPreFilter(p, first, state);
    expect(claimsFilter(p, node('node-2'), first).reasons).toEqual(['cannot allocate all claims']);
    upsert(state, 'ResourceSlice', nodeSlice('node-2', [{ name: 'gpu-9' }]));
    const second = new Map();
    claimsPreFilter(p, second, state);
    expect(claimsFilter(p, node('node-2'), second).code).toBe('Success');
    expect(claimsReserve(p, 'node-2', second)).toMatchObject({
      claims: [{ allocation: { devices: { results: [{ device: 'gpu-9' }] } } }],
    });
    // And a slice deleted: node-1's devices are gone for the next cycle.
    apply(state, {
      type: 'ObjectDeleted',
      kind: 'ResourceSlice',
      key: 'node-1-gpus',
    } as BerthEvent);
    const third = new Map();
    claimsPreFilter(p, third, state);
    expect(claimsFilter(p, node('node-1'), third).reasons).toEqual(['cannot allocate all claims']);
  });

  it('keeps a pod with an allocated claim to the allocation’s nodes, and reserves it without a new allocation', () => {
    const state = cluster();
    const onNode1 = {
      devices: { results: [{ request: 'gpu', driver, pool: 'node-1', device: 'gpu-1' }] },
      nodeSelector: {
        nodeSelectorTerms: [
          { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] },
        ],
      },
    };
    upsert(state, 'ResourceClaim', gpuClaim('c1', { status: { allocation: onNode1 } }));
    const p = pod('p', uses('c1'));
    const cycle = new Map();
    claimsPreFilter(p, cycle, state);
    expect(claimsFilter(p, node('node-2'), cycle).reasons).toEqual([
      'resourceclaim not available on the node',
    ]);
    expect(claimsFilter(p, node('node-1'), cycle).code).toBe('Success');
    expect(claimsReserve(p, 'node-1', cycle)).toEqual({
      claims: [{ key: 'ml/c1', uid: 'uid-c1' }],
    });
  });

  it('ends an allocation in flight once the claim shows one', () => {
    const state = cluster();
    const p = pod('a', uses('c1'));
    const cycle = new Map();
    claimsPreFilter(p, cycle, state);
    claimsFilter(p, node('node-1'), cycle);
    const { claims } = claimsReserve(p, 'node-1', cycle) as { claims: { allocation: unknown }[] };
    apply(state, {
      type: 'PodReserved',
      uid: p.uid,
      key: p.key,
      attempt: 1,
      node: 'node-1',
      claims,
    } as BerthEvent);
    expect(state.claimsInFlight?.size).toBe(1);
    apply(state, {
      type: 'BindSucceeded',
      uid: p.uid,
      key: p.key,
      attempt: 1,
      node: 'node-1',
    } as BerthEvent);
    expect(state.claimsInFlight?.size).toBe(1);
    upsert(
      state,
      'ResourceClaim',
      gpuClaim('c1', { status: { allocation: claims[0]?.allocation } }),
    );
    expect(state.claimsInFlight?.size).toBe(0);
  });
});

describe('DynamicResources Score', () => {
  it('gives a node 8 − i for each firstAvailable subrequest i its allocation used', () => {
    const state = cluster();
    upsert(state, 'DeviceClass', {
      metadata: { name: 'big' },
      spec: {
        selectors: [
          {
            cel: {
              expression:
                '"size" in device.attributes["gpu.example.com"] && device.attributes["gpu.example.com"].size == "big"',
            },
          },
        ],
      },
    });
    upsert(
      state,
      'ResourceSlice',
      nodeSlice('node-2', [{ name: 'gpu-9', attributes: { size: { string: 'big' } } }]),
    );
    upsert(state, 'ResourceClaim', {
      ...gpuClaim('pref'),
      spec: {
        devices: {
          requests: [
            {
              name: 'gpu',
              firstAvailable: [
                { name: 'big', deviceClassName: 'big' },
                { name: 'any', deviceClassName: 'gpu' },
              ],
            },
          ],
        },
      },
    });
    const p = pod('p', uses('pref'));
    const cycle = new Map();
    claimsPreFilter(p, cycle, state);
    const [n1, n2] = [node('node-1'), node('node-2')];
    expect([claimsFilter(p, n1, cycle).code, claimsFilter(p, n2, cycle).code]).toEqual([
      'Success',
      'Success',
    ]);
    // node-2 has the preferred (first) subrequest's device: 8; node-1 only the second: 7.
    expect([claimsScore(p, n1, cycle), claimsScore(p, n2, cycle)]).toEqual([7, 8]);
    expect(claimsScore(pod('q', uses('c1')), n1, new Map())).toBe(0);
  });
});
