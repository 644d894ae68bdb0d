// Tests for CycleTrace: what the real cycle tells its recorder, and that recording changes nothing.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { getPodByKey, initialState, reduce } from '../cluster/reducer.ts';
import type { ClusterState, PodInfo } from '../cluster/types.ts';
import { defaultProfile } from '../plugins/registry.ts';
import { scheduleOne } from './cycle.ts';
import { CycleTrace } from './explain-trace.ts';
import { seededRng } from './rng.ts';

function cluster(
  nodes: number,
  requests: Record<string, string>,
): { state: ClusterState; pod: PodInfo } {
  const state = initialState();
  let seq = 0;
  for (let i = 0; i < nodes; i++)
    reduce(state, {
      seq: ++seq,
      time: 0,
      event: { type: 'NodeUpserted', node: nodeObject(`n${i}`) },
    });
  const pod = podObject('web', { requests });
  reduce(state, { seq: ++seq, time: 0, event: { type: 'PodUpserted', pod } });
  const info = getPodByKey(state, 'default/web')?.info;
  if (info === undefined) throw new Error('no pod');
  return { state, pod: info };
}

function run(state: ClusterState, pod: PodInfo, cursor: number, recorder?: CycleTrace) {
  const ctx = {
    profile: defaultProfile(),
    rng: seededRng(7),
    cursor: { next: cursor },
    percentageOfNodesToScore: 0,
    recorder,
  };
  return { result: scheduleOne(pod, state, ctx), cursor: ctx.cursor.next };
}

describe('CycleTrace', () => {
  it('Records the sampled walk from the cursor, the kept nodes, the dropped one and the choice, without changing the outcome', () => {
    const { state, pod } = cluster(150, { cpu: '100m' });
    const trace = new CycleTrace();
    const traced = run(state, pod, 140, trace);
    expect(traced).toEqual(run(state, pod, 140));
    expect(trace.walk).toMatchObject({ start: 140, cursor: 140, feasibleToFind: 100 });
    expect(trace.visits[0]?.node).toBe('n140');
    expect(trace.visits).toHaveLength(101);
    expect(trace.walkOutcome).toMatchObject({ processed: 100, dropped: 'n90', nextCursor: 90 });
    expect(trace.walkOutcome?.feasible).toHaveLength(100);
    expect(traced.result).toMatchObject({ kind: 'Scheduled', evaluated: 100, feasible: 100 });
    expect(trace.selection?.selected).toBe(
      traced.result.kind === 'Scheduled' && traced.result.node,
    );
    // Empty nodes and one pod: every node ties, the generator breaks it.
    expect(trace.selection?.ties).toBe(100);
    expect([...trace.scoreCalls.values()].every((c) => c.nodes.length === 100)).toBe(true);
  });

  it('Walks every node of a pod that fits nowhere, where the untraced cycle may prove it', () => {
    const { state, pod } = cluster(5, { cpu: '64' });
    const trace = new CycleTrace();
    const traced = run(state, pod, 3, trace);
    const proven = run(state, pod, 3);
    // The proof's diagnosis counts the nodes without listing them; the rest is the same.
    expect(proven.result.kind === 'Unschedulable' && proven.result.diagnosis.summarizedNodes).toBe(
      5,
    );
    expect(traced.cursor).toBe(proven.cursor);
    expect(traced.result.kind === 'Unschedulable' && traced.result.message).toBe(
      proven.result.kind === 'Unschedulable' && proven.result.message,
    );
    expect(trace.visits.map((v) => v.node)).toEqual(['n3', 'n4', 'n0', 'n1', 'n2']);
    expect(trace.visits.every((v) => v.status?.plugin === 'NodeResourcesFit')).toBe(true);
    expect(trace.walkOutcome).toMatchObject({ feasible: [], processed: 5, nextCursor: 3 });
    expect(trace.selection).toBeUndefined();
  });
});
