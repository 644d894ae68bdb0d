// The requests cache changes cost only: every result equals a fresh computePodRequests.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeRelease } from '../model/kube-release.ts';
import { computePodRequests } from './requests.ts';
import { podRequestsOf, requestsKey } from './requests-cache.ts';

const quantity = fc.oneof(
  fc.constantFrom('1', '100m', '0.5', '1Gi', '200Mi', '1e3', 'abc', '-1', ''),
  fc.integer({ min: -2, max: 5 }),
  fc.constant(Number.NaN),
  fc.constant(null),
);
const resourceName = fc.constantFrom('cpu', 'memory', 'nvidia.com/gpu', 'hugepages-2Mi', 'pods');
const list = fc.oneof(
  fc.dictionary(resourceName, quantity, { maxKeys: 3 }),
  fc.constant(undefined),
  fc.constant('not a list'),
);
const resources = fc.oneof(
  fc.record({ requests: list, limits: list }, { requiredKeys: [] }),
  fc.constant(undefined),
  fc.constant(null),
);
const container = fc.record(
  {
    name: fc.constantFrom('a', 'b', 'c'),
    restartPolicy: fc.constantFrom('Always', 'Never', undefined),
    resources,
  },
  { requiredKeys: ['name'] },
);
const containers = fc.oneof(fc.array(container, { maxLength: 3 }), fc.constant(undefined));
const spec = fc.record(
  { containers, initContainers: containers, overhead: list, resources },
  { requiredKeys: [] },
);
const status = fc.oneof(
  fc.constant(undefined),
  fc.record({ phase: fc.constant('Pending') }),
  fc.record(
    {
      containerStatuses: fc.array(
        fc.record(
          { name: fc.constantFrom('a', 'b'), resources, allocatedResources: list },
          { requiredKeys: ['name'] },
        ),
        { maxLength: 2 },
      ),
      conditions: fc.constantFrom([], [{ type: 'PodResizePending', reason: 'Infeasible' }]),
      // Pod-level resize status (read from kube 1.36).
      allocatedResources: list,
      resources,
    },
    { requiredKeys: ['containerStatuses'] },
  ),
);
const releases: readonly KubeRelease[] = ['1.34', '1.35', '1.36', '1.37'];

describe('podRequestsOf', () => {
  it('always equals computePodRequests of its release, however often the same fields come back', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(spec, status), { minLength: 1, maxLength: 8 }), (pods) => {
        // Each pod twice under every release: a later call is answered from the cache when
        // the shape is keyed, whichever release filled it.
        for (const [s, st] of [...pods, ...pods])
          for (const r of releases)
            expect(podRequestsOf(s, st, r)).toEqual(computePodRequests(s, st, r));
      }),
      { numRuns: 300 },
    );
  });

  it('shares one frozen result between pods that differ only in names', () => {
    const a = { containers: [{ name: 'web', resources: { requests: { cpu: '250m' } } }] };
    const b = { containers: [{ name: 'api', resources: { requests: { cpu: '250m' } } }] };
    const first = podRequestsOf(a, { phase: 'Pending' });
    expect(podRequestsOf(b, undefined)).toBe(first);
    expect(first.requests.milliCPU).toBe(250);
    expect(Object.isFrozen(first.requests)).toBe(true);
    expect(Object.isFrozen(first.requests.scalar)).toBe(true);
  });

  it('tells a sidecar from an init container, and requests from limits', () => {
    const init = (restartPolicy: string) => ({
      initContainers: [{ name: 'i', restartPolicy, resources: { requests: { cpu: '1' } } }],
    });
    expect(requestsKey(init('Always'), undefined)).not.toBe(requestsKey(init('Never'), undefined));
    const limits = { containers: [{ name: 'x', resources: { limits: { cpu: '1' } } }] };
    const requests = { containers: [{ name: 'x', resources: { requests: { cpu: '1' } } }] };
    expect(requestsKey(limits, undefined)).not.toBe(requestsKey(requests, undefined));
  });

  it('does not key a resize status, a number quantity or a malformed list', () => {
    const plain = { containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] };
    const resized = { containerStatuses: [{ name: 'a', resources: { requests: { cpu: '2' } } }] };
    expect(requestsKey(plain, resized)).toBeUndefined();
    expect(requestsKey(plain, { conditions: [{ type: 'PodResizePending' }] })).toBeUndefined();
    // What kube 1.36 and 1.37 read besides: allocations alone, pod-level status lists.
    const allocated = { containerStatuses: [{ name: 'a', allocatedResources: { cpu: '2' } }] };
    expect(requestsKey(plain, allocated)).toBeUndefined();
    expect(requestsKey(plain, { allocatedResources: { cpu: '2' } })).toBeUndefined();
    expect(requestsKey(plain, { resources: { requests: { cpu: '2' } } })).toBeUndefined();
    expect(requestsKey({ containers: [{ resources: { requests: { cpu: 1 } } }] }, undefined)).toBe(
      undefined,
    );
    expect(requestsKey({ containers: 'x' }, undefined)).toBeUndefined();
    expect(requestsKey(plain, undefined)).toBeTypeOf('string');
  });
});
