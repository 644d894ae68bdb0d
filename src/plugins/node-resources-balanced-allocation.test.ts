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
import { nodeResourcesBalancedAllocation } from './node-resources-balanced-allocation.ts';

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
