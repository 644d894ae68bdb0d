// Acceptance: Kubernetes' own PodGroups (test/fixtures/core-gang.yaml) simulated end to end, and the run replayed.
import { describe, expect, it } from 'vitest';
import { simulateFixture } from '../support/simulate-fixture.ts';

const run = () => simulateFixture('core-gang.yaml');

describe('the core-gang fixture on the simulated cluster', () => {
  const summary = run();

  it('binds the gang that fits whole', () => {
    const bert = ['ml/bert-0', 'ml/bert-1', 'ml/bert-2', 'ml/bert-3'].map(
      (k) => summary.placements[k],
    );
    expect(bert.every((n) => n !== undefined)).toBe(true);
  });

  it('binds no member of the gang that does not fit, each saying why in kube-scheduler 1.37.2’s words', () => {
    const condition =
      'minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, pod group preemption: No preemption victims found for incoming preemptor';
    for (let i = 0; i < 4; i++) {
      expect(summary.placements[`ml/llama-${i}`]).toBeUndefined();
      // The two that fitted carry the PodGroup's condition, the others their own reason.
      expect(summary.pending[`ml/llama-${i}`]).toBe(
        i < 2
          ? `pod group is unschedulable, ${condition}`
          : '0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
      );
    }
  });

  it('places the member of a basic PodGroup on its own', () => {
    expect(summary.placements['ml/eval-0']).toBeDefined();
  });

  it('refuses the pod that names two pod groups, saying so', () => {
    expect(summary.placements['ml/both-0']).toBeUndefined();
    expect(summary.pending['ml/both-0']).toContain('pod names two pod groups');
  });

  it('decides the same on every run', () => {
    expect(run().decisionDigest).toBe(summary.decisionDigest);
  });
});
