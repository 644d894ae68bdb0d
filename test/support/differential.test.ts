// The differential test's comparison: it must flag every kind of disagreement and accept kube's PostFilter suffix.
import { describe, expect, it } from 'vitest';
import {
  compareOutcomes,
  filtersSentence,
  formatMismatches,
  type Outcomes,
  sameMessage,
  withOwnerUids,
} from '../e2e/support/differential.ts';
import { generateScenario, type Scenario } from '../e2e/support/scenarios.ts';

const sentence = '0/4 nodes are available: 1 Insufficient cpu, 3 node(s) had untolerated taint(s).';
const kubeMessage = `${sentence} no new claims to deallocate, preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.`;

/** A scenario with three pods: one fits nowhere, one has one possible node, one has several. */
function scenario(): Scenario {
  const s = generateScenario(1, { pods: 3 });
  return {
    ...s,
    pending: s.pending.slice(0, 3),
    expectations: {
      'p-00': { feasible: [], rejectedBy: {} },
      'p-01': { feasible: ['n01'], rejectedBy: {}, node: 'n01' },
      'p-02': { feasible: ['n01', 'n02'], rejectedBy: {} },
    },
  };
}

function kube(): Outcomes {
  return {
    'p-00': { reason: 'Unschedulable', message: kubeMessage },
    'p-01': { node: 'n01' },
    'p-02': { node: 'n02' },
  };
}

function berth(): Outcomes {
  return {
    'p-00': { reason: 'Unschedulable', message: sentence },
    'p-01': { node: 'n01' },
    'p-02': { node: 'n01' },
  };
}

describe('compareOutcomes', () => {
  it('accepts agreement, and a different node where two nodes could win', () => {
    expect(compareOutcomes(scenario(), kube(), berth())).toEqual([]);
  });

  it('flags a pod bound by one scheduler and pending with the other', () => {
    const b = { ...berth(), 'p-02': { reason: 'Unschedulable', message: sentence } };
    expect(compareOutcomes(scenario(), kube(), b).map((m) => [m.pod, m.kind])).toEqual([
      ['p-02', 'schedulable'],
    ]);
  });

  it('flags a different message or reason for a pod pending in both', () => {
    const other = {
      reason: 'Unschedulable',
      message: sentence.replace('1 Insufficient cpu', '1 Insufficient memory'),
    };
    expect(compareOutcomes(scenario(), kube(), { ...berth(), 'p-00': other })).toMatchObject([
      { pod: 'p-00', kind: 'message' },
    ]);
    const reason = { reason: 'SchedulerError', message: sentence };
    expect(compareOutcomes(scenario(), kube(), { ...berth(), 'p-00': reason })).toMatchObject([
      { pod: 'p-00', kind: 'message' },
    ]);
  });

  it('flags a different node where only one node can win', () => {
    const b = { ...berth(), 'p-01': { node: 'n02' } };
    expect(
      compareOutcomes(scenario(), kube(), b)
        .map((m) => m.kind)
        .sort(),
    ).toEqual(['berth-infeasible', 'node']);
  });

  it('flags kube-scheduler contradicting the model (the harness is wrong, not berth)', () => {
    const k = { ...kube(), 'p-00': { node: 'n01' } };
    expect(compareOutcomes(scenario(), k, berth()).map((m) => m.kind)).toContain('model');
  });

  it('skips the pods it is told to skip', () => {
    const b = { ...berth(), 'p-02': { reason: 'Unschedulable', message: sentence } };
    expect(compareOutcomes(scenario(), kube(), b, new Set(['p-02']))).toEqual([]);
  });

  it('reports seed, pod, spec, both outcomes and how to reproduce', () => {
    const b = { ...berth(), 'p-02': { reason: 'Unschedulable', message: sentence } };
    const s = scenario();
    const text = formatMismatches(s, compareOutcomes(s, kube(), b), kube(), b);
    expect(text).toContain('seed 1');
    expect(text).toContain('BERTH_DIFF_SEED=1');
    expect(text).toContain('diff/p-02 [schedulable]');
    expect(text).toContain('kube-scheduler: bound to n02');
    expect(text).toContain(`berth:          pending (Unschedulable): ${JSON.stringify(sentence)}`);
    expect(text).toContain('spec: {');
  });
});

describe('messages', () => {
  it("cuts kube's PostFilter suffix off the filters' sentence", () => {
    expect(filtersSentence(kubeMessage)).toBe(sentence);
    expect(filtersSentence(sentence)).toBe(sentence);
  });

  it('holds a berth message without a suffix to the sentence, one with a suffix to the whole', () => {
    expect(sameMessage(kubeMessage, sentence)).toBe(true);
    expect(sameMessage(kubeMessage, kubeMessage)).toBe(true);
    expect(sameMessage(kubeMessage, `${sentence} preemption: something else.`)).toBe(false);
    expect(sameMessage(kubeMessage, undefined)).toBe(false);
  });
});

describe('withOwnerUids', () => {
  it("writes the loaded controller's uid into the ownerReference, a uid of nothing for a missing one", () => {
    const s = generateScenario(1, { features: ['requests'] });
    const pod = s.pending[0] as Scenario['pending'][number];
    expect(withOwnerUids(pod, new Map())).toBe(pod);
    const ref = (name: string) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name,
      uid: `owner:ReplicaSet/${name}`,
      controller: true,
    });
    const owned = {
      ...pod,
      metadata: { ...pod.metadata, ownerReferences: [ref('rs-a'), ref('rs-gone')] },
    };
    const got = withOwnerUids(owned, new Map([['owner:ReplicaSet/rs-a', 'uid-1']]));
    expect(got.metadata.ownerReferences?.map((o) => o.uid)).toEqual([
      'uid-1',
      '00000000-0000-4000-8000-000000000000',
    ]);
    // The generated pod itself is left as it was (both runs load the same scenario).
    expect(owned.metadata.ownerReferences?.[0]?.uid).toBe('owner:ReplicaSet/rs-a');
  });
});
