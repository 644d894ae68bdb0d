// Acceptance: claims in core gangs (test/fixtures/core-gang-dra.yaml) simulated end to end: a PodGroup's shared claim refused, members' own claims placed, one claim two members share placed together.
import { describe, expect, it } from 'vitest';
import { simulateFixture } from '../support/simulate-fixture.ts';

const run = () => simulateFixture('core-gang-dra.yaml');

describe('the core-gang-dra fixture on the simulated cluster', () => {
  const summary = run();

  it('binds no member of the group whose members share its claim, each saying why', () => {
    for (let i = 0; i < 4; i++) {
      expect(summary.placements[`ml/train-${i}`]).toBeUndefined();
      expect(summary.pending[`ml/train-${i}`]).toBe(
        'pod group ml/train (scheduling.k8s.io): claims shared by a PodGroup are not supported yet: pod ml/train-0 uses spec.resourceClaims "fabric" of PodGroup ml/train',
      );
    }
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
