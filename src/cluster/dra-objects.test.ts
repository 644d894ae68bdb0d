// Parsing DRA objects: well-formed ones become their JSON views, what kube's validation would refuse is named, nothing throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { objectParsers } from './cluster-objects.ts';
import { parseDeviceClass, parseDeviceTaintRule, parseResourceClaim } from './dra-objects.ts';
import { parseResourceSlice } from './dra-slices.ts';

const claim = (devices: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name: 'gpu', namespace: 'ml', uid: 'c1', resourceVersion: '7' },
  spec: { devices },
  ...extra,
});

const gpu = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  attributes: { model: { string: 'a100' }, 'gpu.example.com/index': { int: 0 } },
  capacity: { memory: { value: '40Gi' } },
  ...extra,
});

const slice = (spec: Record<string, unknown>) => ({
  metadata: { name: 'node-1-gpus' },
  spec: {
    driver: 'gpu.example.com',
    pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 },
    ...spec,
  },
});

describe('ResourceClaim', () => {
  it('keeps requests, constraints, the owning pod, the allocation and the consumers', () => {
    const devices = {
      requests: [
        {
          name: 'gpu',
          exactly: {
            deviceClassName: 'gpu',
            count: 2,
            selectors: [{ cel: { expression: 'true' } }],
          },
        },
        {
          name: 'nic',
          firstAvailable: [
            { name: 'fast', deviceClassName: 'nic', allocationMode: 'All' },
            { name: 'slow', deviceClassName: 'nic' },
          ],
        },
      ],
      constraints: [{ requests: ['gpu'], matchAttribute: 'gpu.example.com/numa' }],
    };
    const raw = claim(devices, {
      metadata: {
        name: 'pod-gpu-x1',
        namespace: 'ml',
        uid: 'c1',
        annotations: { 'resource.kubernetes.io/pod-claim-name': 'gpu' },
        ownerReferences: [{ kind: 'Pod', name: 'pod', uid: 'p1', controller: true }],
      },
      status: {
        allocation: {
          devices: {
            results: [
              { request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' },
            ],
          },
          nodeSelector: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] },
            ],
          },
        },
        reservedFor: [{ resource: 'pods', name: 'pod', uid: 'p1' }],
      },
    });
    const parsed = parseResourceClaim(raw);
    expect(parsed).toEqual({
      value: {
        namespace: 'ml',
        name: 'pod-gpu-x1',
        uid: 'c1',
        ownerPodUid: 'p1',
        podClaimName: 'gpu',
        spec: {
          devices,
        },
        status: (raw as { status?: unknown }).status,
      },
    });
    // The view is plain JSON: it survives a snapshot unchanged.
    const value = (parsed as { value: unknown }).value;
    expect(JSON.parse(JSON.stringify(value))).toEqual(value);
  });

  it.each([
    [
      'a claim with 33 requests',
      {
        requests: Array.from({ length: 33 }, (_, i) => ({
          name: `r${i}`,
          exactly: { deviceClassName: 'gpu' },
        })),
      },
      'spec.devices.requests has 33 entries, more than the 32 allowed',
    ],
    [
      'a request with both exactly and firstAvailable',
      {
        requests: [
          {
            name: 'r',
            exactly: { deviceClassName: 'gpu' },
            firstAvailable: [{ name: 's', deviceClassName: 'gpu' }],
          },
        ],
      },
      'spec.devices.requests[0]: exactly one of exactly and firstAvailable must be set',
    ],
    [
      'a request without a class',
      { requests: [{ name: 'r', exactly: {} }] },
      'spec.devices.requests[0].exactly.deviceClassName is required',
    ],
    [
      'an unknown allocation mode',
      { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', allocationMode: 'Some' } }] },
      'spec.devices.requests[0].exactly.allocationMode: unsupported value "Some"',
    ],
    [
      'a selector without CEL',
      { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', selectors: [{}] } }] },
      'spec.devices.requests[0].exactly.selectors[0].cel is required',
    ],
    ['requests that are not a list', { requests: 'gpu' }, 'spec.devices.requests is not a list'],
  ])('names %s as invalid', (_what, devices, reason) => {
    const parsed = parseResourceClaim(claim(devices));
    expect(parsed).toMatchObject({ value: { name: 'gpu', invalid: reason } });
  });

  it('rejects only an object without a name', () => {
    expect(parseResourceClaim({ metadata: {} })).toEqual({
      rejected: 'ResourceClaim has no metadata.name',
    });
    expect(parseResourceClaim(42)).toEqual({ rejected: 'ResourceClaim has no metadata.name' });
    expect(parseResourceClaim({ metadata: { name: 'x' } })).toMatchObject({
      value: { name: 'x', namespace: 'default', spec: { devices: { requests: [] } } },
    });
  });
});

describe('ResourceSlice', () => {
  it('keeps the pool, the node selection and each device', () => {
    const parsed = parseResourceSlice(
      slice({
        nodeName: 'node-1',
        devices: [gpu('gpu-0'), gpu('gpu-1', { taints: [{ key: 'bad', effect: 'NoSchedule' }] })],
      }),
    );
    expect(parsed).toEqual({
      value: {
        name: 'node-1-gpus',
        driver: 'gpu.example.com',
        pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 },
        nodeName: 'node-1',
        devices: [gpu('gpu-0'), gpu('gpu-1', { taints: [{ key: 'bad', effect: 'NoSchedule' }] })],
      },
    });
  });

  it.each([
    [
      'a slice with 129 devices',
      { nodeName: 'n', devices: Array.from({ length: 129 }, (_, i) => gpu(`gpu-${i}`)) },
      'spec.devices has 129 devices, more than the 128 a ResourceSlice may have',
    ],
    [
      'a slice with 65 devices, one of them tainted',
      {
        nodeName: 'n',
        devices: Array.from({ length: 65 }, (_, i) =>
          gpu(`gpu-${i}`, i === 3 ? { taints: [{ key: 'k', effect: 'None' }] } : {}),
        ),
      },
      'spec.devices has 65 devices, more than the 64 a ResourceSlice may have',
    ],
    [
      'a slice with two node selections',
      { nodeName: 'n', allNodes: true, devices: [] },
      'spec: exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection must be set',
    ],
    [
      'an attribute with two values',
      {
        nodeName: 'n',
        devices: [gpu('gpu-0', { attributes: { model: { string: 'a', int: 1 } } })],
      },
      'spec.devices[0].attributes["model"]: exactly one value must be set',
    ],
    [
      'a capacity that is no quantity',
      { nodeName: 'n', devices: [gpu('gpu-0', { capacity: { memory: { value: {} } } })] },
      'spec.devices[0].capacity["memory"].value is not a quantity',
    ],
  ])('names %s as invalid', (_what, spec, reason) => {
    expect(parseResourceSlice(slice(spec))).toMatchObject({ value: { invalid: reason } });
  });
});

describe('DeviceClass and DeviceTaintRule', () => {
  it('keep selectors, configuration and the extended resource; the rule its selector and taint', () => {
    expect(
      parseDeviceClass({
        metadata: { name: 'gpu' },
        spec: {
          selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }],
          extendedResourceName: 'example.com/gpu',
        },
      }),
    ).toEqual({
      value: {
        name: 'gpu',
        selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }],
        extendedResourceName: 'example.com/gpu',
      },
    });
    expect(
      parseDeviceTaintRule({
        metadata: { name: 'maintenance' },
        spec: {
          deviceSelector: { driver: 'gpu.example.com', pool: 'node-1' },
          taint: { key: 'maint', effect: 'NoExecute' },
        },
      }),
    ).toEqual({
      value: {
        name: 'maintenance',
        deviceSelector: { driver: 'gpu.example.com', pool: 'node-1' },
        taint: { key: 'maint', effect: 'NoExecute' },
      },
    });
    expect(
      parseDeviceTaintRule({
        metadata: { name: 'x' },
        spec: { taint: { key: 'k', effect: 'Sometimes' } },
      }),
    ).toMatchObject({
      value: { invalid: 'spec.taint.effect: unsupported value "Sometimes"' },
    });
  });
});

describe('every DRA parser', () => {
  it('never throws, and what it keeps is plain JSON', () => {
    const kinds = ['ResourceClaim', 'DeviceClass', 'ResourceSlice', 'DeviceTaintRule'] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.jsonValue(),
        fc.jsonValue(),
        (kind, spec, status) => {
          const parsed = objectParsers[kind]({ metadata: { name: 'x' }, spec, status });
          if ('value' in parsed)
            expect(JSON.parse(JSON.stringify(parsed.value))).toEqual(parsed.value);
        },
      ),
    );
  });
});
