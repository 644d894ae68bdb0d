// The allocator's search budget, berth's deterministic form of kube's DRA filter timeout: a search past its steps stops as timed out.
import { describe, expect, it } from 'vitest';
import { allocateCounted } from './allocate.ts';
import { indexSlices } from './pools.ts';
import * as f from './test-fixtures.ts';

/** 40 devices with 4 numa values; a claim for 5 devices with distinct numa: no solution, 14,641 steps to prove it. */
function hopeless() {
  const devices = Array.from({ length: 40 }, (_, i) =>
    f.dev(`d-${i}`, { attributes: { numa: { int: i % 4 } } }),
  );
  const claims = [
    f.claim('c', [f.req('r', 'class-a', { count: 5 })], {
      constraints: [{ distinctAttribute: 'driver-a/numa' }],
    }),
  ];
  return {
    claims,
    classes: new Map([[f.classA.name, f.classA]]),
    slices: indexSlices([f.localA(devices)], []),
    allocated: { devices: new Set<string>() },
    node: f.node1,
    matcher: f.fakeCel,
  };
}

describe('allocator search budget (filter timeout)', () => {
  it('proves there is no solution within enough steps', () => {
    const r = allocateCounted({ ...hopeless(), maxSearchSteps: 14_641 });
    expect(r.outcome).toEqual(f.cannot);
    expect(r.calls).toBe(14_641);
  });

  it('stops as timed out one step past its budget, as kube stops when its context expires', () => {
    const r = allocateCounted({ ...hopeless(), maxSearchSteps: 14_640 });
    expect(r.outcome).toEqual({ kind: 'timeout' });
    expect(allocateCounted({ ...hopeless(), maxSearchSteps: 100 }).calls).toBe(101);
  });

  it('searches without limit when no budget is given', () => {
    expect(allocateCounted(hopeless()).outcome).toEqual(f.cannot);
  });
});
