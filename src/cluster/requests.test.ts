// Pins effective pod requests: init/sidecar rule, overhead, extended resources, non-zero defaults.
import { describe, expect, it } from 'vitest';
import { container, podObject } from '../../test/support/objects.ts';
import { computePodRequests } from './requests.ts';

const GB = 1_000_000_000;
const MI = 1024 * 1024;

describe('computePodRequests', () => {
  it('takes the larger of the app sum and the largest init container (kube example)', () => {
    const pod = podObject('p', {
      initContainers: [
        container({ cpu: '2', memory: '1G' }),
        container({ cpu: '2', memory: '3G' }),
      ],
      containers: [container({ cpu: '2', memory: '1G' }), container({ cpu: '1', memory: '1G' })],
    });
    const r = computePodRequests(pod.spec);
    expect(r.requests).toEqual({ milliCPU: 3000, memory: 3 * GB, ephemeralStorage: 0, scalar: {} });
    expect(r.invalid).toBeUndefined();
  });

  it('adds sidecars to the app sum and to every later init container', () => {
    const pod = podObject('p', {
      initContainers: [
        container({ cpu: '1' }), // step: 1
        container({ cpu: '500m' }, 'Always'), // sidecar
        container({ cpu: '2' }), // step: 2 + 0.5 sidecar = 2.5
      ],
      containers: [container({ cpu: '1' })], // app: 1 + 0.5 sidecar = 1.5
    });
    expect(computePodRequests(pod.spec).requests.milliCPU).toBe(2500);
  });

  it('does not add a sidecar to init containers that start before it', () => {
    const pod = podObject('p', {
      initContainers: [container({ cpu: '2' }), container({ cpu: '1' }, 'Always')],
      containers: [container({ cpu: '100m' })],
    });
    // init step 1 needs 2; app + sidecar needs 1.1
    expect(computePodRequests(pod.spec).requests.milliCPU).toBe(2000);
  });

  it('counts only restartPolicy Always as a sidecar', () => {
    const pod = podObject('p', {
      initContainers: [container({ cpu: '1' }, 'OnFailure')],
      containers: [container({ cpu: '1' })],
    });
    expect(computePodRequests(pod.spec).requests.milliCPU).toBe(1000);
  });

  it('adds pod overhead on top', () => {
    const pod = podObject('p', {
      requests: { cpu: '1', memory: '1Gi' },
      overhead: { cpu: '250m', memory: '120Mi' },
    });
    const r = computePodRequests(pod.spec).requests;
    expect(r.milliCPU).toBe(1250);
    expect(r.memory).toBe(1024 * MI + 120 * MI);
  });

  it('sums exactly and rounds once, like kube (two 0.5m containers make 1m)', () => {
    const pod = podObject('p', {
      containers: [
        container({ cpu: '0.5m', memory: '500m' }),
        container({ cpu: '0.5m', memory: '500m' }),
      ],
    });
    const r = computePodRequests(pod.spec).requests;
    expect(r.milliCPU).toBe(1);
    expect(r.memory).toBe(1);
  });

  it('keeps extended resources and hugepages as scalars, ignores pods', () => {
    const pod = podObject('p', {
      containers: [
        container({ 'nvidia.com/gpu': '2', 'hugepages-2Mi': '4Mi', pods: '3' }),
        container({ 'nvidia.com/gpu': 1, 'example.com/foo': '1k', 'ephemeral-storage': '1Gi' }),
      ],
    });
    const r = computePodRequests(pod.spec).requests;
    expect(r.scalar).toEqual({
      'nvidia.com/gpu': 3,
      'hugepages-2Mi': 4 * MI,
      'example.com/foo': 1000,
    });
    expect(r.ephemeralStorage).toBe(1024 * MI);
  });

  it('uses limits for requests that are not given, as the API server defaults them', () => {
    const pod = podObject('p', {
      containers: [{ resources: { limits: { cpu: '2', memory: '1Gi' }, requests: { cpu: '1' } } }],
    });
    const r = computePodRequests(pod.spec);
    expect(r.requests.milliCPU).toBe(1000);
    expect(r.requests.memory).toBe(1024 * MI);
    expect(r.nonZeroRequests).toEqual({ milliCPU: 1000, memory: 1024 * MI });
  });

  it('reports an unparsable quantity with its field path and counts it as zero', () => {
    const pod = podObject('p', {
      containers: [container({ cpu: '1' }), container({ cpu: 'abc', memory: '1Gi' })],
    });
    const r = computePodRequests(pod.spec);
    expect(r.invalid).toBe(
      'invalid quantity "abc" at spec.containers[1].resources.requests.cpu: no digits',
    );
    expect(r.requests.milliCPU).toBe(1000);
    expect(r.requests.memory).toBe(1024 * MI);
  });

  it('reports a negative request', () => {
    const r = computePodRequests(podObject('p', { requests: { memory: '-1Gi' } }).spec);
    expect(r.invalid).toBe(
      'negative quantity "-1Gi" at spec.containers[0].resources.requests.memory',
    );
    expect(r.requests.memory).toBe(0);
  });

  it('reports malformed structure instead of throwing', () => {
    const cases: [unknown, string][] = [
      [null, 'spec is not an object'],
      [{ containers: 'x' }, 'spec.containers is not a list'],
      [{ containers: [7] }, 'spec.containers[0] is not an object'],
      [{ containers: [{ resources: [] }] }, 'spec.containers[0].resources is not an object'],
      [
        { containers: [{ resources: { requests: 'x' } }] },
        'spec.containers[0].resources.requests is not an object',
      ],
      [{ initContainers: {} }, 'spec.initContainers is not a list'],
      [{ overhead: 3 }, 'spec.overhead is not an object'],
    ];
    for (const [spec, reason] of cases) expect(computePodRequests(spec).invalid).toBe(reason);
  });
});

describe('nonZeroRequests', () => {
  it('applies 100m / 200Mi to a container without requests', () => {
    const r = computePodRequests(podObject('p').spec);
    expect(r.requests.milliCPU).toBe(0);
    expect(r.nonZeroRequests).toEqual({ milliCPU: 100, memory: 200 * MI });
  });

  it('applies the defaults per container, only where the resource is missing', () => {
    const pod = podObject('p', {
      containers: [container({ cpu: '500m' }), container({ memory: '1Gi' })],
    });
    expect(computePodRequests(pod.spec).nonZeroRequests).toEqual({
      milliCPU: 600,
      memory: 200 * MI + 1024 * MI,
    });
  });

  it('treats an explicit zero as specified', () => {
    const pod = podObject('p', { requests: { cpu: '0', memory: '0' } });
    expect(computePodRequests(pod.spec).nonZeroRequests).toEqual({ milliCPU: 0, memory: 0 });
  });

  it('combines defaults with the init/sidecar rule and overhead', () => {
    const pod = podObject('p', {
      initContainers: [container({}, 'Always'), container({ cpu: '1' })],
      containers: [container({})],
      overhead: { cpu: '10m', memory: '1Mi' },
    });
    // app 100m + sidecar 100m = 200m; init step = 1 + sidecar 100m = 1100m; + 10m overhead.
    // memory: app 200Mi + sidecar 200Mi = 400Mi vs step 200Mi + 200Mi = 400Mi; + 1Mi.
    expect(computePodRequests(pod.spec).nonZeroRequests).toEqual({
      milliCPU: 1110,
      memory: 401 * MI,
    });
  });
});
