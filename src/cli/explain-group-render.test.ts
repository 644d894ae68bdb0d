// `berth explain group`'s text on explanations of small gangs: the header's figures, the member cycles, the domain and victim tables, the machine's path.
import { describe, expect, it } from 'vitest';
import { gangCore, gangGroup, gangNode, gangPod } from '../../test/support/gang-core.ts';
import { given, member, node, podGroup } from '../../test/support/gang-harness.ts';
import { nodeObject } from '../../test/support/objects.ts';
import type { GroupExplanation } from '../core/gang-explain-types.ts';
import { type GroupExplainDocument, renderGroupExplanation } from './explain-group-render.ts';
import type { GroupTraceStep } from './group-trace.ts';

/** `e` as the simulated mode would print it (with `trace`, as the log mode would). */
function render(e: GroupExplanation, trace: GroupTraceStep[] | null = null): string[] {
  const doc: GroupExplainDocument = {
    name: e.group,
    mode: trace === null ? 'simulated' : 'log',
    source: 'x.yaml',
    asOf: { kind: 'end', seq: 12, time: 1000 },
    notes: ['a note'],
    explanation: e,
    trace,
  };
  return renderGroupExplanation(doc).split('\n');
}

describe('renderGroupExplanation', () => {
  it('prints the header, each member, the traced step and why preemption cannot help', () => {
    const h = given().events(node('n1'), node('n2'), podGroup('train', 3));
    h.pods(member('train-0', 'train'), member('train-1', 'train'), member('train-2', 'train'));
    const lines = render(h.core.explainGroup('default/train'));
    expect(lines.slice(0, 5)).toEqual([
      'berth explain group default/train (scheduler-plugins PodGroup, scheduling.x-k8s.io/v1alpha1) — simulated: x.yaml',
      'As of:    the end of the run (after seq 12, t=1000ms)',
      'Waiting:  fit — pod group default/train: 2 of 3 members fit; 0/2 nodes are available for default/train-2: 2 Insufficient cpu.',
      'Quorum:   3 of minMember 3 present (3 seen, 0 gated); 0 placed, 0 bound',
      'Note:     a note',
    ]);
    expect(lines).toContain('  default/train-0  pending  -     pending');
    expect(lines).toContain(
      'Step: 3 member(s) to place (0 placed already); taken in gang order: default/train-0, default/train-1, default/train-2',
    );
    expect(
      lines.filter((l) => / {2}default\/train-[01]: fits — scheduled on n[12]/.test(l)),
    ).toHaveLength(2);
    const i = lines.indexOf(
      '  default/train-2: fits nowhere — unschedulable: 0/2 nodes are available: 2 Insufficient cpu.',
    );
    expect(i).toBeGreaterThan(0);
    expect(lines.slice(i + 1, i + 3).sort()).toEqual([
      '      n1  NodeResourcesFit: Insufficient cpu',
      '      n2  NodeResourcesFit: Insufficient cpu',
    ]);
    expect(lines).toContain(
      'Preemption: not possible — No preemption victims found for incoming pod group',
    );
  });

  it('prints the victims table and where every member goes once they are gone', () => {
    const h = gangCore().events(gangNode('n1'), gangNode('n2'), gangGroup('train', 2));
    h.pods(
      gangPod('low-1', { node: 'n1', priority: 10 }),
      gangPod('low-2', { node: 'n2', priority: 10 }),
      gangPod('train-0', { group: 'train', priority: 100 }),
      gangPod('train-1', { group: 'train', priority: 100, created: 1 }),
    );
    const lines = render(h.core.explainGroup('default/train'));
    const at = lines.findIndex((l) => l.startsWith('Preemption: '));
    expect(lines[at]).toMatch(
      /^Preemption: would evict 2 pod\(s\) in 2 unit\(s\) \(0 violating a PodDisruptionBudget; planned in \d+ trial\(s\)\); then the whole group fits$/,
    );
    expect(lines[at + 1]).toBe('  UNIT           KIND  PRIORITY  PDB  PODS');
    expect(lines.slice(at + 2, at + 4).sort()).toEqual([
      '  default/low-1  pod   10        no   default/low-1 on n1',
      '  default/low-2  pod   10        no   default/low-2 on n2',
    ]);
    expect(lines[at + 4]).toMatch(/^ {2}then: default\/train-0 → n[12], default\/train-1 → n[12]$/);
  });

  it('prints the domains in the order tried, marking the one whose cycles are shown', () => {
    const rack = 'topology.kubernetes.io/rack';
    const rackNode = (name: string, value: string) => ({
      type: 'NodeUpserted' as const,
      node: nodeObject(name, {
        allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
        labels: { [rack]: value },
      }),
    });
    const h = given().events(
      rackNode('a-1', 'rack-a'),
      rackNode('b-1', 'rack-b'),
      rackNode('b-2', 'rack-b'),
      {
        type: 'ObjectUpserted',
        kind: 'PodGroup',
        object: {
          metadata: {
            name: 'ring',
            namespace: 'default',
            annotations: { 'berth.dev/topology-key': rack },
          },
          spec: { minMember: 2 },
        },
      },
    );
    h.pods(member('ring-0', 'ring', { cpu: '3' }), member('ring-1', 'ring', { cpu: '3' }));
    const lines = render(h.core.explainGroup('default/ring'));
    // Summed over cpu and memory: rack-a (4 cpu) -0.5 + 1, rack-b (8 cpu) 0.25 + 1.
    const at = lines.indexOf(`Topology: all members inside one domain of ${rack}`);
    expect(lines.slice(at + 1, at + 5)).toEqual([
      '  tried tightest first (least free share left after the group)',
      '  DOMAIN  NODES  LEFTOVER  RESULT',
      '  rack-a  1      0.500     not tried: too little cpu summed over the domain',
      '  rack-b  2      1.250     holds all 2 member(s)  ← cycles shown',
    ]);
    expect(lines).toContain(
      'Waiting:  ready — its next gang step would place all 2 member(s) it needs',
    );
  });

  it("prints the machine's path, and says when there was none yet", () => {
    const h = given().events(node('n1'), podGroup('train', 2));
    h.pods(member('train-0', 'train'));
    const e = h.core.explainGroup('default/train');
    const path: GroupTraceStep[] = [
      {
        from: null,
        state: 'waitingForQuorum',
        steps: 0,
        event: 'PodUpserted',
        seq: 3,
        time: 0,
        reason: 'r',
      },
      {
        from: 'waitingForQuorum',
        state: 'placing',
        steps: 1,
        event: 'PodReserved',
        seq: 9,
        time: 5,
        reason: null,
      },
    ];
    const lines = render(e, path);
    expect(lines).toContain('As of:    the state after seq 12 (t=1000ms)');
    const at = lines.indexOf('Machine trace (machines/pod-group.machine.ts)');
    expect(lines.slice(at + 1, at + 4)).toEqual([
      '  SEQ  TIME  EVENT        STATE                        STEPS  REASON',
      '  3    0     PodUpserted  (start) -> waitingForQuorum  0      r',
      '  9    5     PodReserved  waitingForQuorum -> placing  1',
    ]);
    expect(render(e, [])).toContain('Machine trace: the group had no machine before this point');
  });
});
