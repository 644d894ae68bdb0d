// Pins what each release charges a pod mid-resize: per-container max (1.34–1.36), pod-level status (1.36), max of aggregates (1.37).
import { describe, expect, it } from 'vitest';
import type { KubeRelease } from '../model/kube-release.ts';
import { computePodRequests } from './requests.ts';

const MI = 1024 * 1024;
const releases: readonly KubeRelease[] = ['1.34', '1.35', '1.36', '1.37'];

/** cpu (millicores) and memory (bytes) charged by each release, in `releases` order. */
function charged(spec: unknown, status: unknown): [number, number][] {
  return releases.map((release) => {
    const r = computePodRequests(spec, status, release);
    expect(r.invalid).toBeUndefined();
    return [r.requests.milliCPU as number, r.requests.memory as number];
  });
}

const infeasible = { type: 'PodResizePending', status: 'True', reason: 'Infeasible' };

describe('in-place resize by release', () => {
  it('two containers resizing opposite ways: 1.34–1.36 sum each one\u2019s max, 1.37 takes the max of the sums', () => {
    // a asks 1 → 2 cpu (deferred: allocated and actuated still 1); b shrank 2 → 1 (allocated
    // 1, actuated still 2). Per container: 2 + 2 = 4. Aggregates: spec 3, allocated 2,
    // actuated 3 → 3.
    const spec = {
      containers: [
        { name: 'a', resources: { requests: { cpu: '2' } } },
        { name: 'b', resources: { requests: { cpu: '1' } } },
      ],
    };
    const status = {
      conditions: [{ type: 'PodResizePending', status: 'True', reason: 'Deferred' }],
      containerStatuses: [
        { name: 'a', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '1' } } },
        { name: 'b', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '2' } } },
      ],
    };
    expect(charged(spec, status).map(([cpu]) => cpu)).toEqual([4000, 4000, 4000, 3000]);
  });

  it('a status with allocatedResources but no resources counts from 1.37 only', () => {
    const spec = { containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }] };
    const status = { containerStatuses: [{ name: 'app', allocatedResources: { cpu: '4' } }] };
    expect(charged(spec, status).map(([cpu]) => cpu)).toEqual([1000, 1000, 1000, 4000]);
  });

  it('infeasible: 1.37 charges nothing for a container without a status, earlier releases its spec', () => {
    const spec = {
      containers: [
        { name: 'a', resources: { requests: { cpu: '8' } } },
        { name: 'b', resources: { requests: { cpu: '1' } } },
      ],
    };
    const status = {
      conditions: [infeasible],
      containerStatuses: [
        { name: 'a', allocatedResources: { cpu: '1' }, resources: { requests: { cpu: '1' } } },
      ],
    };
    // 1.34–1.36: a max(actuated 1, allocated 1) + b's spec 1 = 2; 1.37: the spec aggregate is
    // dropped and b has neither list: 1.
    expect(charged(spec, status).map(([cpu]) => cpu)).toEqual([2000, 2000, 2000, 1000]);
  });

  it('an ordinary init container\u2019s status counts from 1.37', () => {
    const spec = {
      initContainers: [{ name: 'init', resources: { requests: { cpu: '100m' } } }],
      containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }],
    };
    const status = { initContainerStatuses: [{ name: 'init', allocatedResources: { cpu: '3' } }] };
    expect(charged(spec, status).map(([cpu]) => cpu)).toEqual([1000, 1000, 1000, 3000]);
  });

  it('pod-level status lists stand for the containers\u2019 from 1.37 (and are ignored before 1.36)', () => {
    const spec = { containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }] };
    const status = {
      allocatedResources: { cpu: '2', memory: '1Gi' },
      resources: { requests: { cpu: '2' } },
    };
    expect(charged(spec, status)).toEqual([
      [1000, 0],
      [1000, 0],
      [1000, 0],
      [2000, 1024 * MI],
    ]);
  });

  it('pod-level requests mid-resize: spec (1.34, 1.35), 1.36\u2019s per-spec-resource max, 1.37\u2019s max', () => {
    const spec = {
      resources: { requests: { cpu: '2', memory: '1Gi' } },
      containers: [{ name: 'c', resources: { requests: { cpu: '2', memory: '1Gi' } } }],
    };
    const status = {
      conditions: [infeasible],
      resources: { requests: { cpu: '1' } },
      containerStatuses: [
        {
          name: 'c',
          allocatedResources: { cpu: '2', memory: '1Gi' },
          resources: { requests: { cpu: '2', memory: '1Gi' } },
        },
      ],
    };
    // 1.36 sets each spec resource to max(actuated, allocated) — memory is in neither: 0.
    // 1.37 overrides only what that max names (cpu 1); memory stays the containers' 1Gi.
    expect(charged(spec, status)).toEqual([
      [2000, 1024 * MI],
      [2000, 1024 * MI],
      [1000, 0],
      [1000, 1024 * MI],
    ]);
  });

  it('pod-level requests growing: 1.36 and 1.37 charge the larger of spec, actuated and allocated', () => {
    const spec = {
      resources: { requests: { cpu: '2', memory: '1Gi' } },
      containers: [{ name: 'c' }],
    };
    const status = {
      allocatedResources: { cpu: '3', memory: '2Gi' },
      resources: { requests: { cpu: '3' } },
    };
    expect(charged(spec, status)).toEqual([
      [2000, 1024 * MI],
      [2000, 1024 * MI],
      [3000, 2048 * MI],
      [3000, 2048 * MI],
    ]);
  });

  it('1.37 fills each container\u2019s status lists with the non-zero defaults', () => {
    const spec = { containers: [{ name: 'app' }] };
    const status = { containerStatuses: [{ name: 'app', allocatedResources: { cpu: '500m' } }] };
    const old = computePodRequests(spec, status, '1.36');
    expect(old.requests.milliCPU).toBe(0);
    expect(old.nonZeroRequests).toEqual({ milliCPU: 100, memory: 200 * MI });
    const now = computePodRequests(spec, status, '1.37');
    expect(now.requests.milliCPU).toBe(500);
    expect(now.nonZeroRequests).toEqual({ milliCPU: 500, memory: 200 * MI });
  });

  it('without a resize status every release charges the same', () => {
    const spec = {
      resources: { requests: { cpu: '2' } },
      initContainers: [
        { name: 's', restartPolicy: 'Always', resources: { requests: { cpu: '1' } } },
      ],
      containers: [{ name: 'c', resources: { requests: { memory: '1Gi' } } }],
    };
    const status = { containerStatuses: [{ name: 'c', ready: true }] };
    expect(new Set(charged(spec, status).map((r) => r.join()))).toEqual(
      new Set([`2000,${1024 * MI}`]),
    );
  });

  it('reads 1.37\u2019s extra status fields only when the release does, reporting them after the spec', () => {
    const spec = { containers: [{ name: 'app', resources: { requests: { cpu: '1' } } }] };
    const status = {
      containerStatuses: [{ name: 'app', allocatedResources: { cpu: 'x' } }],
      allocatedResources: { cpu: 'y' },
    };
    expect(computePodRequests(spec, status, '1.35').invalid).toBeUndefined();
    expect(computePodRequests(spec, status, '1.36').invalid).toBe(
      'invalid quantity "y" at status.allocatedResources.cpu: no digits',
    );
    expect(computePodRequests(spec, status, '1.37').invalid).toBe(
      'invalid quantity "x" at status.containerStatuses[0].allocatedResources.cpu: no digits',
    );
  });
});
