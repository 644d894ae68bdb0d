// Pins effective pod requests: init/sidecar rule, limits, pod-level resources, resize, overhead, non-zero defaults.
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

describe('limits-only containers', () => {
  const limitsOnly = { resources: { limits: { cpu: '1', memory: '1Gi' } } };

  it('charges limits as requests, as the API server defaults them', () => {
    const r = computePodRequests({ containers: [limitsOnly] });
    expect(r.requests.milliCPU).toBe(1000);
    expect(r.requests.memory).toBe(1024 * MI);
    expect(r.nonZeroRequests).toEqual({ milliCPU: 1000, memory: 1024 * MI });
  });

  it('so three 1-cpu limits-only pods ask for more than a 1-cpu node has', () => {
    const perPod = computePodRequests({ containers: [limitsOnly] }).requests.milliCPU;
    expect(Number(perPod) * 3).toBeGreaterThan(1000);
    expect(Number(perPod) * 2).toBeGreaterThan(1000);
  });

  it('defaults init containers and sidecars the same way', () => {
    const r = computePodRequests({
      initContainers: [
        { resources: { limits: { cpu: '3' } } },
        { restartPolicy: 'Always', resources: { limits: { cpu: '500m' } } },
      ],
      containers: [{ resources: { limits: { cpu: '1' } } }],
    });
    // init step 3 vs app 1 + sidecar 0.5
    expect(r.requests.milliCPU).toBe(3000);
  });

  it('keeps an explicit zero request over a limit', () => {
    const r = computePodRequests({
      containers: [{ resources: { limits: { cpu: '2' }, requests: { cpu: '0' } } }],
    });
    expect(r.requests.milliCPU).toBe(0);
    expect(r.nonZeroRequests.milliCPU).toBe(0);
  });

  it('reports an unparsable limit naming the field', () => {
    const r = computePodRequests({ containers: [{ resources: { limits: { cpu: 'lots' } } }] });
    expect(r.invalid).toBe(
      'invalid quantity "lots" at spec.containers[0].resources.limits.cpu: no digits',
    );
  });
});

describe('pod-level resources (PodLevelResources)', () => {
  const c = (requests?: Record<string, string>, limits?: Record<string, string>) => ({
    resources: { ...(requests && { requests }), ...(limits && { limits }) },
  });
  const cases: {
    name: string;
    spec: Record<string, unknown>;
    milliCPU: number;
    memory: number;
    nonZero: { milliCPU: number; memory: number };
    scalar?: Record<string, number>;
  }[] = [
    {
      name: 'pod-level requests override the container sum for cpu and memory',
      spec: {
        resources: { requests: { cpu: '2', memory: '3Gi' } },
        containers: [c({ cpu: '500m', memory: '1Gi' }), c({ cpu: '500m' })],
      },
      milliCPU: 2000,
      memory: 3072 * MI,
      nonZero: { milliCPU: 2000, memory: 3072 * MI },
    },
    {
      name: 'a resource the pod level does not name comes from the containers',
      spec: {
        resources: { requests: { cpu: '2' } },
        containers: [c({ cpu: '1', memory: '1Gi' }), c({ memory: '1Gi' })],
      },
      milliCPU: 2000,
      memory: 2048 * MI,
      nonZero: { milliCPU: 2000, memory: 2048 * MI },
    },
    {
      name: 'pod-level requests alone, containers without any',
      spec: { resources: { requests: { cpu: '1', memory: '2Gi' } }, containers: [{}, {}] },
      milliCPU: 1000,
      memory: 2048 * MI,
      nonZero: { milliCPU: 1000, memory: 2048 * MI },
    },
    {
      name: 'pod-level limits alone default the pod-level requests',
      spec: { resources: { limits: { cpu: '2', memory: '1Gi' } }, containers: [{}] },
      milliCPU: 2000,
      memory: 1024 * MI,
      nonZero: { milliCPU: 2000, memory: 1024 * MI },
    },
    {
      name: 'with pod-level limits, container requests win over the limit for the pod request',
      spec: {
        resources: { limits: { cpu: '4', memory: '4Gi' } },
        containers: [c({ cpu: '500m' }), c({ cpu: '250m' })],
      },
      milliCPU: 750,
      memory: 4096 * MI,
      nonZero: { milliCPU: 750, memory: 4096 * MI },
    },
    {
      name: 'an explicit pod-level request wins over the pod-level limit',
      spec: {
        resources: { requests: { cpu: '1' }, limits: { cpu: '4', memory: '2Gi' } },
        containers: [{}],
      },
      milliCPU: 1000,
      memory: 2048 * MI,
      nonZero: { milliCPU: 1000, memory: 2048 * MI },
    },
    {
      name: 'overhead comes on top of pod-level requests',
      spec: {
        resources: { requests: { cpu: '1', memory: '1Gi' } },
        overhead: { cpu: '100m', memory: '10Mi' },
        containers: [c({ cpu: '250m' })],
      },
      milliCPU: 1100,
      memory: 1034 * MI,
      nonZero: { milliCPU: 1100, memory: 1034 * MI },
    },
    {
      name: 'pod-level requests also override the init/sidecar maximum',
      spec: {
        resources: { requests: { cpu: '1500m' } },
        initContainers: [c({ cpu: '3' }), { restartPolicy: 'Always', ...c({ cpu: '200m' }) }],
        containers: [c({ cpu: '1', memory: '100Mi' })],
      },
      milliCPU: 1500,
      memory: 100 * MI,
      nonZero: { milliCPU: 1500, memory: 100 * MI },
    },
    {
      name: 'with pod-level requests, a resource named nowhere gets one default per container',
      spec: { resources: { requests: { memory: '1Gi' } }, containers: [{}, {}] },
      milliCPU: 0,
      memory: 1024 * MI,
      nonZero: { milliCPU: 200, memory: 1024 * MI },
    },
    {
      name: 'with pod-level requests, no default once any container names the resource',
      spec: { resources: { requests: { cpu: '1' } }, containers: [c({ memory: '64Mi' }), {}] },
      milliCPU: 1000,
      memory: 64 * MI,
      nonZero: { milliCPU: 1000, memory: 64 * MI },
    },
    {
      name: 'unsupported pod-level resources are ignored; containers still charge them',
      spec: {
        resources: { requests: { 'ephemeral-storage': '10Gi', 'example.com/gpu': '4' } },
        containers: [c({ 'ephemeral-storage': '1Gi', 'example.com/gpu': '1' })],
      },
      milliCPU: 0,
      memory: 0,
      nonZero: { milliCPU: 100, memory: 200 * MI },
      scalar: { 'example.com/gpu': 1 },
    },
    {
      name: 'a pod-level hugepages limit becomes the hugepages request',
      spec: {
        resources: { requests: { cpu: '1' }, limits: { 'hugepages-2Mi': '8Mi' } },
        containers: [c({ 'hugepages-2Mi': '4Mi' }, { 'hugepages-2Mi': '4Mi' })],
      },
      milliCPU: 1000,
      memory: 0,
      nonZero: { milliCPU: 1000, memory: 200 * MI },
      scalar: { 'hugepages-2Mi': 8 * MI },
    },
    {
      name: 'container hugepages limits default the pod-level hugepages request',
      spec: {
        resources: { limits: { memory: '1Gi' } },
        containers: [
          c(undefined, { 'hugepages-2Mi': '4Mi' }),
          c(undefined, { 'hugepages-2Mi': '2Mi' }),
        ],
      },
      milliCPU: 0,
      memory: 1024 * MI,
      nonZero: { milliCPU: 200, memory: 1024 * MI },
      scalar: { 'hugepages-2Mi': 6 * MI },
    },
  ];
  for (const t of cases) {
    it(t.name, () => {
      const r = computePodRequests(t.spec);
      expect(r.invalid).toBeUndefined();
      expect(r.requests.milliCPU).toBe(t.milliCPU);
      expect(r.requests.memory).toBe(t.memory);
      expect(r.nonZeroRequests).toEqual(t.nonZero);
      expect({ ...r.requests.scalar }).toEqual(t.scalar ?? {});
    });
  }

  it('reports malformed pod-level resources naming the field', () => {
    const cases: [unknown, string][] = [
      [{ resources: 'x' }, 'spec.resources is not an object'],
      [{ resources: { requests: [] } }, 'spec.resources.requests is not an object'],
      [{ resources: { limits: 4 } }, 'spec.resources.limits is not an object'],
      [
        { resources: { requests: { cpu: 'abc' } } },
        'invalid quantity "abc" at spec.resources.requests.cpu: no digits',
      ],
      [
        { resources: { limits: { memory: '-1Gi' } } },
        'negative quantity "-1Gi" at spec.resources.limits.memory',
      ],
    ];
    for (const [spec, reason] of cases) expect(computePodRequests(spec).invalid).toBe(reason);
  });
});

describe('in-place resize (status)', () => {
  const spec = {
    containers: [{ name: 'app', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
  };
  const status = (cs: Record<string, unknown>, conditions: unknown[] = []) => ({
    containerStatuses: [{ name: 'app', ...cs }],
    conditions,
  });

  it('charges the larger of spec, actuated and allocated per resource', () => {
    const r = computePodRequests(
      spec,
      status({
        resources: { requests: { cpu: '2', memory: '512Mi' } },
        allocatedResources: { cpu: '1500m', memory: '2Gi' },
      }),
    );
    expect(r.requests.milliCPU).toBe(2000);
    expect(r.requests.memory).toBe(2048 * MI);
  });

  it('drops the spec from the charge when the resize is infeasible', () => {
    const r = computePodRequests(
      { containers: [{ name: 'app', resources: { requests: { cpu: '8' } } }] },
      status({ resources: { requests: { cpu: '1' } }, allocatedResources: { cpu: '1' } }, [
        { type: 'PodScheduled', status: 'True' },
        { type: 'PodResizePending', reason: 'Infeasible' },
      ]),
    );
    expect(r.requests.milliCPU).toBe(1000);
  });

  it('ignores a status without resources, and statuses of other containers', () => {
    const r1 = computePodRequests(spec, status({ allocatedResources: { cpu: '4' } }));
    expect(r1.requests.milliCPU).toBe(1000);
    const r2 = computePodRequests(spec, {
      containerStatuses: [{ name: 'other', resources: { requests: { cpu: '4' } } }],
    });
    expect(r2.requests.milliCPU).toBe(1000);
  });

  it('applies to sidecars but not to ordinary init containers', () => {
    const withInit = {
      initContainers: [
        { name: 'init', resources: { requests: { cpu: '100m' } } },
        { name: 'side', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } },
      ],
      containers: [{ name: 'app', resources: { requests: { cpu: '100m' } } }],
    };
    const r = computePodRequests(withInit, {
      initContainerStatuses: [
        { name: 'init', resources: { requests: { cpu: '9' } } },
        { name: 'side', resources: { requests: { cpu: '1' } } },
      ],
    });
    // app 100m + sidecar 1 = 1.1; init step 100m + 0 sidecars before it
    expect(r.requests.milliCPU).toBe(1100);
  });

  it('reports a bad status quantity after any spec problem', () => {
    const bad = status({ resources: { requests: { cpu: 'x' } } });
    expect(computePodRequests(spec, bad).invalid).toBe(
      'invalid quantity "x" at status.containerStatuses[0].resources.requests.cpu: no digits',
    );
    expect(computePodRequests({ containers: 'x' }, bad).invalid).toBe(
      'spec.containers is not a list',
    );
  });
});
