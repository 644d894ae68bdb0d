// Table test for numFeasibleNodesToFind against kube's integer arithmetic.
import { describe, expect, it } from 'vitest';
import { numFeasibleNodesToFind } from './sampling.ts';

describe('numFeasibleNodesToFind', () => {
  const cases: { nodes: number; pct: number; want: number; why: string }[] = [
    { nodes: 0, pct: 0, want: 0, why: 'no nodes' },
    { nodes: 50, pct: 0, want: 50, why: 'fewer than 100 nodes: all of them' },
    { nodes: 99, pct: 0, want: 99, why: 'fewer than 100 nodes: all of them' },
    { nodes: 100, pct: 0, want: 100, why: '50% of 100 is 50, raised to the floor of 100' },
    { nodes: 125, pct: 0, want: 100, why: 'pct 49: 61, raised to 100' },
    { nodes: 250, pct: 0, want: 120, why: 'pct 50 − 2 = 48: 120' },
    { nodes: 1000, pct: 0, want: 420, why: 'pct 50 − 8 = 42: 420' },
    { nodes: 5000, pct: 0, want: 500, why: 'pct 50 − 40 = 10: 500' },
    { nodes: 5624, pct: 0, want: 337, why: 'pct 50 − 44 = 6: trunc(337.44)' },
    { nodes: 5625, pct: 0, want: 281, why: 'pct 50 − 45 = 5: trunc(281.25)' },
    { nodes: 6000, pct: 0, want: 300, why: 'pct 50 − 48 = 2, raised to the 5% minimum: 300' },
    { nodes: 15000, pct: 0, want: 750, why: 'pct would be negative: 5%' },
    {
      nodes: 50,
      pct: 30,
      want: 50,
      why: 'an explicit percentage still searches all of a small cluster',
    },
    { nodes: 5000, pct: 10, want: 500, why: 'explicit 10%' },
    { nodes: 5000, pct: 1, want: 100, why: 'explicit 1% is 50, raised to 100' },
    { nodes: 100000, pct: 1, want: 1000, why: 'explicit 1% of a huge cluster' },
    { nodes: 5000, pct: 100, want: 5000, why: '100% is every node' },
    { nodes: 5000, pct: 150, want: 5000, why: 'above 100% acts as 100%' },
    { nodes: 5000, pct: -5, want: 500, why: 'a negative percentage is treated as adaptive' },
  ];
  for (const c of cases) {
    it(`${c.nodes} nodes at ${c.pct}% → ${c.want} (${c.why})`, () => {
      expect(numFeasibleNodesToFind(c.nodes, c.pct)).toBe(c.want);
    });
  }
});
