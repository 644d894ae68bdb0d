// The text form of an explanation: header lines, the filter table's marks, the score table, warnings.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { getPodByKey, initialState, reduce } from '../cluster/reducer.ts';
import { explainPod } from '../framework/explain-pod.ts';
import type { NodeObject, PodObject } from '../model/objects.ts';
import { defaultProfile } from '../plugins/registry.ts';
import { type ExplainDocument, renderExplanation } from './explain-render.ts';

function docFor(nodes: NodeObject[], pod: PodObject, over: Partial<ExplainDocument> = {}) {
  const state = initialState();
  let seq = 0;
  for (const node of nodes)
    reduce(state, { seq: ++seq, time: 0, event: { type: 'NodeUpserted', node } });
  reduce(state, { seq: ++seq, time: 0, event: { type: 'PodUpserted', pod } });
  const info = getPodByKey(state, `default/${pod.metadata.name}`)?.info;
  if (info === undefined) throw new Error('no pod');
  const doc: ExplainDocument = {
    pod: info.key,
    uid: info.uid,
    mode: 'log',
    source: 'run.jsonl',
    asOf: { kind: 'decision', seq: 12, time: 40, decision: 'reserved …' },
    recorded: null,
    notes: [],
    explanation: explainPod({
      profile: defaultProfile(),
      snapshot: state,
      pod: info,
      percentageOfNodesToScore: 0,
      cursor: 1,
      rngState: 1,
    }),
    ...over,
  };
  return doc;
}

const nodes = [
  nodeObject('cordoned', { unschedulable: true }),
  nodeObject('roomy', { allocatable: { cpu: '8', memory: '16Gi', pods: '110' } }),
  nodeObject('snug', { allocatable: { cpu: '1', memory: '2Gi', pods: '110' } }),
];

describe('renderExplanation', () => {
  it('Prints the walk from the cursor, one row per node with a mark per filter, then the scores', () => {
    const text = renderExplanation(docFor(nodes, podObject('web', { requests: { cpu: '500m' } })));
    expect(text).toMatch(/^berth explain default\/web \(uid default\/web\) — log: run\.jsonl$/m);
    expect(text).toMatch(/^As of: {4}decision #12, on the state after seq 11 \(t=40ms\)$/m);
    expect(text).toMatch(/^Result: {3}scheduled on roomy: highest total \d+ of 2 scored nodes$/m);
    expect(text).toMatch(
      /the walk started at index 1 \(cursor 1\) on roomy, reached 3, processed 3; next cursor 1/,
    );
    const rows = text.split('\n').filter((l) => /^ {2}\d +\S+ {2}/.test(l));
    expect(rows.map((l) => l.trim().split(/\s+/)[1])).toEqual(['roomy', 'snug', 'cordoned']);
    // kube 1.37's order: NodeName (skipped: the pod names no node), then NodeUnschedulable.
    expect(rows[2]).toMatch(/^ {2}3 +cordoned +- +✗ +· /);
    expect(rows[2]).toMatch(/NodeUnschedulable: node\(s\) were unschedulable \(unresolvable\)$/);
    expect(rows[0]).toMatch(/feasible, scored, CHOSEN$/);
    // Columns line up: every row's result starts where the header's RESULT does.
    const header = text.split('\n').find((l) => l.includes('RESULT')) as string;
    for (const row of rows) expect(row.length).toBeGreaterThan(header.indexOf('RESULT'));
    expect(text).toMatch(/^Score: S1 TaintToleration ×3, /m);
    expect(text).toMatch(/^ {2}roomy +\d+→\d+×3=\d+ .* {2}\d+ {2}← chosen$/m);
  });

  it("Shows kube's FitError message and no score table when nothing fits", () => {
    const text = renderExplanation(docFor(nodes, podObject('huge', { requests: { cpu: '64' } })));
    expect(text).toMatch(/^Result: {3}unschedulable: 0\/3 nodes are available: /m);
    expect(text).not.toMatch(/^Score:/m);
  });

  it('Says MISMATCH when the recorded decision differs, and marks a hypothetical cycle', () => {
    const mismatch = docFor(nodes, podObject('web', { requests: { cpu: '500m' } }), {
      recorded: {
        seq: 12,
        decision: 'Scheduled on snug',
        recomputed: 'Scheduled on roomy',
        agrees: false,
      },
    });
    expect(renderExplanation(mismatch)).toMatch(
      /^Recorded: #12 Scheduled on snug: MISMATCH, the recomputed cycle says Scheduled on roomy$/m,
    );
    const now = docFor(nodes, podObject('web', { requests: { cpu: '500m' } }), {
      asOf: { kind: 'now' },
      notes: ['a note'],
    });
    const text = renderExplanation(now);
    expect(text).toMatch(/^Result: {3}if a cycle ran now: scheduled on roomy/m);
    expect(text).toMatch(/^Note: {5}a note$/m);
  });
});
