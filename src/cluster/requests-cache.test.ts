// The requests cache changes cost only: every result equals a fresh computePodRequests.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
  fc.record({
    containerStatuses: fc.array(
      fc.record({ name: fc.constantFrom('a', 'b'), resources, allocatedResources: list }),
      { maxLength: 2 },
    ),
    conditions: fc.constantFrom([], [{ type: 'PodResizePending', reason: 'Infeasible' }]),
  }),
);

describe('podRequestsOf', () => {
  it('always equals computePodRequests, however often the same fields come back', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(spec, status), { minLength: 1, maxLength: 8 }), (pods) => {
        // Each pod twice: the second call is answered from the cache when the shape is keyed.
        for (const [s, st] of [...pods, ...pods])
          expect(podRequestsOf(s, st)).toEqual(computePodRequests(s, st));
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
    expect(requestsKey({ containers: [{ resources: { requests: { cpu: 1 } } }] }, undefined)).toBe(
      undefined,
    );
    expect(requestsKey({ containers: 'x' }, undefined)).toBeUndefined();
    expect(requestsKey(plain, undefined)).toBeTypeOf('string');
  });
});
