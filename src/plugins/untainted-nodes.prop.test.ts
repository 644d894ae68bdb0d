// Filters that claim `passesUntaintedNodes` pass every pod on every node neither cordoned nor tainted.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chargePod, Gi, makeNode, makePod } from '../../test/support/builders.ts';
import type { FilterPlugin } from '../framework/types.ts';
import type { Toleration } from '../model/objects.ts';
import { registry } from './registry.ts';

const toleration = fc.record(
  {
    key: fc.constantFrom('node.kubernetes.io/unschedulable', 'k', ''),
    operator: fc.constantFrom('Exists', 'Equal'),
    value: fc.constantFrom('v', ''),
    effect: fc.constantFrom('NoSchedule', 'NoExecute', 'PreferNoSchedule', ''),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<Toleration>;

const requests = fc.record({
  milliCPU: fc.constantFrom(0, 100, 4000, 9000),
  memory: fc.constantFrom(0, Gi, 64 * Gi),
});

const pod = fc
  .record({ requests, tolerations: fc.array(toleration, { maxLength: 3 }) })
  .map((p) => makePod(p));

/** An untainted, uncordoned node, full or empty, large or small. */
const untaintedNode = fc
  .record({
    milliCPU: fc.constantFrom(0, 1000, 4000),
    memory: fc.constantFrom(0, Gi, 32 * Gi),
    pods: fc.constantFrom(0, 1, 110),
    charged: fc.array(requests, { maxLength: 3 }),
  })
  .map((n) => {
    const node = makeNode({
      allocatable: { milliCPU: n.milliCPU, memory: n.memory, pods: n.pods },
    });
    for (const r of n.charged) chargePod(node, makePod({ requests: r }));
    return node;
  });

const claimants = [...registry.values()]
  .map((make) => make() as Partial<FilterPlugin>)
  .filter(
    (p): p is FilterPlugin => typeof p.filter === 'function' && p.passesUntaintedNodes === true,
  );

describe('passesUntaintedNodes', () => {
  it('is claimed by NodeUnschedulable and TaintToleration', () => {
    expect(claimants.map((p) => p.name).sort()).toEqual(['NodeUnschedulable', 'TaintToleration']);
  });

  for (const plugin of claimants) {
    it(`${plugin.name}: passes every pod on untainted, uncordoned nodes`, () => {
      fc.assert(
        fc.property(pod, untaintedNode, (p, node) => {
          expect(plugin.filter(p, node, new Map()).code).toBe('Success');
        }),
        { numRuns: 300 },
      );
    });
  }
});
