// Acceptance: claims in core gangs (test/fixtures/core-gang-dra.yaml) simulated end to end: a PodGroup's shared claim, members' own claims, one claim two members name.
import { describe, expect, it } from 'vitest';
import { simulateFixture } from '../support/simulate-fixture.ts';

const run = () => simulateFixture('core-gang-dra.yaml');

describe('the core-gang-dra fixture on the simulated cluster', () => {
  const summary = run();

  it('binds the gang whose members share its PodGroup’s claim, on the node of its one allocation', () => {
    const nodes = [0, 1, 2, 3].map((i) => summary.placements[`ml/train-${i}`]);
    expect(nodes[0]).toBeDefined();
    expect(new Set(nodes).size).toBe(1);
    const devices = [0, 1, 2, 3].map((i) => JSON.stringify(summary.devices[`ml/train-${i}`]));
    expect(new Set(devices).size).toBe(1);
  });

  it('binds the gang whose members’ claims match none of its PodGroup’s, each with its own claim', () => {
    expect(summary.placements['ml/eval-0']).toBeDefined();
    expect(summary.placements['ml/eval-1']).toBeDefined();
  });

  it('binds both members sharing one claim, on the node of its one allocation', () => {
    const [a, b] = [summary.placements['ml/pair-0'], summary.placements['ml/pair-1']];
    expect(a).toBeDefined();
    expect(b).toBe(a);
    expect(summary.devices['ml/pair-0']).toHaveLength(1);
    expect(summary.devices['ml/pair-1']).toEqual(summary.devices['ml/pair-0']);
  });

  it('decides the same on every run', () => {
    expect(run().decisionDigest).toBe(summary.decisionDigest);
  });
});
