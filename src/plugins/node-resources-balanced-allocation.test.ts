// Table tests for NodeResourcesBalancedAllocation, after kube's TestNodeResourcesBalancedAllocation.
import { describe, expect, it } from 'vitest';
import {
  Gi,
  makeNode,
  makeNodeWith,
  makePod,
  type NodeInput,
  type PodInput,
} from '../../test/support/builders.ts';
import {
  newNodeResourcesBalancedAllocation,
  nodeResourcesBalancedAllocation,
  nodeResourcesBalancedAllocationSince136,
} from './node-resources-balanced-allocation.ts';

describe('NodeResourcesBalancedAllocation', () => {
  const cases: {
    name: string;
    pod: PodInput;
    node: NodeInput;
    existing?: PodInput[];
    want: number;
  }[] = [
    {
      name: 'a best-effort pod (no cpu, no memory requests) is not scored: 0 everywhere',
      pod: {},
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      existing: [{ requests: { milliCPU: 3000 } }],
      want: 0,
    },
    {
      name: 'nothing scheduled, resources requested, differently sized nodes (node 1)',
      pod: { requests: { milliCPU: 3000, memory: 5000 } },
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      // fractions 0.75 and 0.5: std 0.125 → 87
      want: 87,
    },
    {
      name: 'nothing scheduled, resources requested, differently sized nodes (node 2)',
      pod: { requests: { milliCPU: 3000, memory: 5000 } },
      node: { allocatable: { milliCPU: 6000, memory: 10000 } },
      // fractions 0.5 and 0.5 → 100
      want: 100,
    },
    {
      name: 'resources requested, pods scheduled with resources',
      pod: { requests: { milliCPU: 3000, memory: 5000 } },
      node: { allocatable: { milliCPU: 10000, memory: 20000 } },
      existing: [{ requests: { milliCPU: 3000, memory: 5000 } }],
      // fractions 0.6 and 0.5: std 0.05 → 95
      want: 95,
    },
    {
      name: 'existing pods without requests count as zero (actual requests, not the non-zero defaults)',
      pod: { requests: { milliCPU: 1000, memory: 1 * Gi } },
      node: { allocatable: { milliCPU: 4000, memory: 4 * Gi } },
      existing: [{}, {}, {}],
      want: 100,
    },
    {
      name: 'a pod requesting only cpu is scored (memory fraction 0)',
      pod: { requests: { milliCPU: 2000 } },
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      // fractions 0.5 and 0: std 0.25 → 75
      want: 75,
    },
    {
      name: 'fractions over 1 are capped at 1',
      pod: { requests: { milliCPU: 6000, memory: 5000 } },
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      // fractions min(1.5, 1) = 1 and 0.5: std 0.25 → 75
      want: 75,
    },
    {
      name: 'a resource with zero allocatable is left out: one fraction means std 0',
      pod: { requests: { milliCPU: 3000, memory: 5000 } },
      node: { allocatable: { milliCPU: 0, memory: 10000 } },
      want: 100,
    },
    {
      name: 'the score truncates toward zero like Go\u2019s int64 conversion',
      pod: { requests: { milliCPU: 1000, memory: 3000 } },
      node: { allocatable: { milliCPU: 3000, memory: 10000 } },
      // fractions 0.333… and 0.3: std 0.01666… → 98.33 → 98
      want: 98,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const node = makeNodeWith(c.node, c.existing ?? []);
      expect(nodeResourcesBalancedAllocation.score(makePod(c.pod), node)).toBe(c.want);
    });
  }

  it('prefers the node where the pod keeps cpu and memory usage even', () => {
    const pod = makePod({ requests: { milliCPU: 1000, memory: 4 * Gi } });
    const cpuHeavy = makeNodeWith({ allocatable: { milliCPU: 4000, memory: 16 * Gi } }, [
      { requests: { milliCPU: 3000 } },
    ]);
    const even = makeNode({ allocatable: { milliCPU: 4000, memory: 16 * Gi } });
    expect(nodeResourcesBalancedAllocation.score(pod, even)).toBeGreaterThan(
      nodeResourcesBalancedAllocation.score(pod, cpuHeavy),
    );
  });
});

describe('NodeResourcesBalancedAllocation from kube 1.36 (kubernetes#135573: the change in balance)', () => {
  const since136 = nodeResourcesBalancedAllocationSince136;
  const cases: {
    name: string;
    pod: PodInput;
    node: NodeInput;
    existing?: PodInput[];
    /** kube 1.34/1.35's score of the same case. */
    before: number;
    want: number;
  }[] = [
    {
      name: 'a best-effort pod is still skipped: 0 everywhere',
      pod: {},
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      existing: [{ requests: { milliCPU: 3000 } }],
      before: 0,
      want: 0,
    },
    {
      name: 'a balanced pod on an empty node leaves the balance as it was: 75',
      pod: { requests: { milliCPU: 2000, memory: 5000 } },
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      // with 0.5/0.5 → 100, without 0/0 → 100: 50 + (50 + 100 − 100) / 2
      before: 100,
      want: 75,
    },
    {
      name: 'a pod that evens out a memory-heavy node scores above 75',
      pod: { requests: { milliCPU: 2000, memory: 5000 } },
      node: { allocatable: { milliCPU: 4000, memory: 20000 } },
      existing: [{ requests: { memory: 10000 } }],
      // with 0.5/0.75 → 87, without 0/0.5 → 75: 50 + trunc((50 + 87 − 75) / 2) = 50 + 31
      before: 87,
      want: 81,
    },
    {
      name: 'a pod that skews a balanced node scores below 75, truncating like Go',
      pod: { requests: { milliCPU: 2000 } },
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      existing: [{ requests: { milliCPU: 2000, memory: 5000 } }],
      // with 1.0/0.5 → 75, without 0.5/0.5 → 100: 50 + trunc((50 + 75 − 100) / 2) = 50 + 12
      before: 75,
      want: 62,
    },
    {
      name: 'fractions without the pod are capped at 1 too',
      pod: { requests: { milliCPU: 1000, memory: 1000 } },
      node: { allocatable: { milliCPU: 4000, memory: 10000 } },
      existing: [{ requests: { milliCPU: 6000 } }],
      // with min(1.75,1)=1/0.1 → 55, without 1/0 → 50: 50 + trunc((50 + 55 − 50) / 2) = 50 + 27
      before: 55,
      want: 77,
    },
    {
      name: 'one resource with allocatable 0: std 0 with and without the pod, 75',
      pod: { requests: { milliCPU: 3000, memory: 5000 } },
      node: { allocatable: { milliCPU: 0, memory: 10000 } },
      before: 100,
      want: 75,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const node = makeNodeWith(c.node, c.existing ?? []);
      const pod = makePod(c.pod);
      expect(since136.score(pod, node)).toBe(c.want);
      expect(nodeResourcesBalancedAllocation.score(pod, node)).toBe(c.before);
    });
  }

  it('two nodes that 1.35 and 1.36+ rank the other way round', () => {
    const pod = makePod({ requests: { milliCPU: 2000, memory: 5000 } });
    const empty = makeNode({ allocatable: { milliCPU: 4000, memory: 10000 } });
    const memoryHeavy = makeNodeWith({ allocatable: { milliCPU: 4000, memory: 20000 } }, [
      { requests: { memory: 10000 } },
    ]);
    const scores = (release: '1.35' | '1.36' | '1.37') => {
      const plugin = newNodeResourcesBalancedAllocation(undefined, release);
      return [plugin.score(pod, empty), plugin.score(pod, memoryHeavy)];
    };
    expect(scores('1.35')).toEqual([100, 87]);
    expect(scores('1.36')).toEqual([75, 81]);
    expect(scores('1.37')).toEqual([75, 81]);
  });

  it('the factory gives the 1.34 scorer for 1.34 and 1.35, the new one from 1.36, the latest by default', () => {
    expect(newNodeResourcesBalancedAllocation(undefined, '1.34')).toBe(
      nodeResourcesBalancedAllocation,
    );
    expect(newNodeResourcesBalancedAllocation(undefined, '1.35')).toBe(
      nodeResourcesBalancedAllocation,
    );
    expect(newNodeResourcesBalancedAllocation(undefined, '1.36')).toBe(since136);
    expect(newNodeResourcesBalancedAllocation()).toBe(since136);
  });

  it('scoreNodes gives what score gives, node by node', () => {
    const pod = makePod({ requests: { milliCPU: 2000, memory: 5000 } });
    const nodes = [
      makeNode({ allocatable: { milliCPU: 4000, memory: 10000 } }),
      makeNodeWith({ allocatable: { milliCPU: 4000, memory: 20000 } }, [
        { requests: { memory: 10000 } },
      ]),
    ];
    const out = [0, 0];
    since136.scoreNodes(pod, nodes, undefined, out);
    expect(out).toEqual([75, 81]);
  });
});
