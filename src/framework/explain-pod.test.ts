// Tests for explainPod: verdicts, stop at the first rejection, sampling, narrowing, scores and choice.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { getPodByKey, initialState, reduce } from '../cluster/reducer.ts';
import type { ClusterState, PodInfo } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';
import type { NodeObject, PodObject } from '../model/objects.ts';
import { defaultProfile } from '../plugins/registry.ts';
import { scheduleOne } from './cycle.ts';
import { type ExplainInput, explainPod } from './explain-pod.ts';
import { seededRng } from './rng.ts';

/** Folds nodes and pods into a cluster state through the real reducer. */
function cluster(nodes: NodeObject[], pods: PodObject[] = []): ClusterState {
  const state = initialState();
  let seq = 0;
  const apply = (event: BerthEvent) => reduce(state, { seq: ++seq, time: 0, event });
  for (const node of nodes) apply({ type: 'NodeUpserted', node });
  for (const pod of pods) apply({ type: 'PodUpserted', pod });
  return state;
}

function podIn(state: ClusterState, name: string): PodInfo {
  const record = getPodByKey(state, `default/${name}`);
  if (record === undefined) throw new Error(`no pod ${name}`);
  return record.info;
}

function input(state: ClusterState, pod: PodInfo, over: Partial<ExplainInput> = {}): ExplainInput {
  return {
    profile: defaultProfile(),
    snapshot: state,
    pod,
    percentageOfNodesToScore: 0,
    cursor: 0,
    rngState: 1,
    ...over,
  };
}

/** What the scheduler's own cycle does with the same inputs. */
function realCycle(i: ExplainInput) {
  const cursor = { next: i.cursor };
  const result = scheduleOne(i.pod, i.snapshot, {
    profile: i.profile,
    rng: seededRng(i.rngState),
    cursor,
    percentageOfNodesToScore: i.percentageOfNodesToScore,
  });
  return { result, cursor: cursor.next };
}

const verdictOf = (e: ReturnType<typeof explainPod>, node: string) =>
  e.nodes.find((r) => r.node === node);

/** A node's verdicts by filter name. */
function byPlugin(e: ReturnType<typeof explainPod>, node: string): Record<string, string> {
  const row = verdictOf(e, node);
  return Object.fromEntries(e.filters.map((f, i) => [f.plugin, row?.filters[i] ?? '']));
}

/** A node's verdicts of the filters after `plugin`. */
function afterFirst(e: ReturnType<typeof explainPod>, node: string, plugin: string): string[] {
  const at = e.filters.findIndex((f) => f.plugin === plugin);
  return verdictOf(e, node)?.filters.slice(at + 1) ?? [];
}

describe('explainPod', () => {
  it('Explains a pod that fits two of three nodes: one rejection, two scored, the highest chosen', () => {
    const state = cluster(
      [
        nodeObject('small', { allocatable: { cpu: '250m', memory: '8Gi', pods: '110' } }),
        nodeObject('busy', { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } }),
        nodeObject('idle', { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } }),
      ],
      [
        podObject('filler', { nodeName: 'busy', requests: { cpu: '3', memory: '1Gi' } }),
        podObject('web', { requests: { cpu: '500m', memory: '512Mi' } }),
      ],
    );
    const i = input(state, podIn(state, 'web'));
    const e = explainPod(i);
    expect(e.outcome).toMatchObject({ kind: 'Scheduled', node: 'idle', feasible: 2, scored: true });
    expect(e.check).toEqual({ agrees: true, cycle: 'Scheduled on idle' });
    const small = verdictOf(e, 'small');
    expect(small?.fate).toBe('rejected');
    expect(small?.rejection).toEqual({
      plugin: 'NodeResourcesFit',
      // More than the node's allocatable: preemption cannot help (kube's rule).
      code: 'UnschedulableAndUnresolvable',
      reasons: ['Insufficient cpu'],
    });
    // NodeUnschedulable and TaintToleration pass, the fit rejects, later filters never run;
    // NodeName, NodeAffinity and NodePorts are skipped for a pod that asks for none of them.
    const verdict = byPlugin(e, 'small');
    expect(verdict).toMatchObject({
      NodeUnschedulable: 'pass',
      NodeName: 'skipped',
      TaintToleration: 'pass',
      NodeAffinity: 'skipped',
      NodePorts: 'skipped',
      NodeResourcesFit: 'reject',
    });
    for (const v of afterFirst(e, 'small', 'NodeResourcesFit'))
      expect(['notRun', 'skipped']).toContain(v);
    const scored = e.nodes.filter((r) => r.fate === 'scored');
    expect(scored.map((r) => r.node).sort()).toEqual(['busy', 'idle']);
    for (const row of scored) {
      const sum = (row.scores ?? []).reduce((s, c) => s + (c?.weighted ?? 0), 0);
      expect(row.total).toBe(sum);
      row.scores?.forEach((c, k) => {
        if (c !== null) expect(c.weighted).toBe(c.normalized * (e.scorePlugins[k]?.weight ?? 0));
      });
    }
    const idle = verdictOf(e, 'idle');
    const busy = verdictOf(e, 'busy');
    expect(idle?.chosen).toBe(true);
    expect(idle?.total).toBeGreaterThan(busy?.total ?? Number.POSITIVE_INFINITY);
    expect(e.sampling).toMatchObject({ allNodes: 3, candidates: 3, feasibleToFind: 3, visited: 3 });
  });

  it("Explains an unschedulable pod with kube's FitError message and the first rejecting filter per node", () => {
    const state = cluster(
      [
        nodeObject('cordoned', { unschedulable: true }),
        nodeObject('tainted', { taints: [{ key: 'gpu', value: 'a', effect: 'NoSchedule' }] }),
        nodeObject('small', { allocatable: { cpu: '1', memory: '8Gi', pods: '110' } }),
      ],
      [podObject('big', { requests: { cpu: '2' } })],
    );
    const i = input(state, podIn(state, 'big'));
    const e = explainPod(i);
    const real = realCycle(i).result;
    expect(real.kind).toBe('Unschedulable');
    expect(e.outcome).toMatchObject({
      kind: 'Unschedulable',
      message: real.kind === 'Unschedulable' ? real.message : '',
    });
    expect(e.check.agrees).toBe(true);
    const cordoned = verdictOf(e, 'cordoned');
    expect(cordoned?.rejection?.plugin).toBe('NodeUnschedulable');
    // The cycle stops at the first failing filter: the rest did not run, though the fit would fail too.
    // (1.37's order: NodeName first, skipped for a pod naming no node.)
    expect(cordoned?.filters.slice(0, 2)).toEqual(['skipped', 'reject']);
    // TaintToleration and NodeResourcesFit are never skipped: here they did not run.
    expect(byPlugin(e, 'cordoned')).toMatchObject({
      TaintToleration: 'notRun',
      NodeResourcesFit: 'notRun',
    });
    for (const v of afterFirst(e, 'cordoned', 'NodeUnschedulable'))
      expect(['notRun', 'skipped']).toContain(v);
    expect(verdictOf(e, 'tainted')?.rejection?.plugin).toBe('TaintToleration');
    expect(verdictOf(e, 'small')?.rejection?.reasons).toEqual(['Insufficient cpu']);
    expect(e.nodes.every((r) => !r.chosen)).toBe(true);
  });

  it('Shows the sample: 150 nodes, the adaptive search stops after 100 feasible, from the cursor', () => {
    const nodes = Array.from({ length: 150 }, (_, k) =>
      nodeObject(`n${String(k).padStart(3, '0')}`),
    );
    const state = cluster(nodes, [podObject('web', { requests: { cpu: '100m' } })]);
    const i = input(state, podIn(state, 'web'), { cursor: 30 });
    const e = explainPod(i);
    const real = realCycle(i);
    expect(e.sampling).toMatchObject({
      allNodes: 150,
      candidates: 150,
      feasibleToFind: 100,
      cursor: 30,
      start: 30,
      startNode: 'n030',
      visited: 101,
      processed: 100,
      nextCursor: real.cursor,
    });
    expect(real.cursor).toBe(130);
    expect(e.nodes.filter((r) => r.fate === 'scored')).toHaveLength(100);
    expect(e.nodes.filter((r) => r.fate === 'dropped').map((r) => r.node)).toEqual(['n130']);
    const unvisited = e.nodes.filter((r) => r.fate === 'notVisited');
    expect(unvisited).toHaveLength(49);
    expect(unvisited.every((r) => r.walk === null && r.filters.every((v) => v !== 'notRun'))).toBe(
      true,
    );
    expect(real.result.kind === 'Scheduled' && real.result.node).toBe(
      e.outcome.kind === 'Scheduled' && e.outcome.node,
    );
    expect(e.nodes[0]?.node).toBe('n030');
  });

  it('Reports a narrowing PreFilter and leaves the other nodes out, as kube does', () => {
    const state = cluster(
      [nodeObject('a'), nodeObject('b'), nodeObject('c')],
      [
        {
          ...podObject('pinned'),
          spec: {
            ...podObject('pinned').spec,
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [
                    { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['b'] }] },
                  ],
                },
              },
            },
          },
        } as PodObject,
      ],
    );
    const e = explainPod(input(state, podIn(state, 'pinned'), { cursor: 2 }));
    expect(e.preFilters.find((p) => p.plugin === 'NodeAffinity')).toEqual({
      plugin: 'NodeAffinity',
      code: 'Success',
      reasons: [],
      narrowedTo: ['b'],
    });
    expect(e.narrowing).toEqual({ by: ['NodeAffinity'], nodes: 1 });
    expect(e.sampling).toMatchObject({ candidates: 1, start: 0, startNode: 'b' });
    expect(e.nodes.map((r) => [r.node, r.fate])).toEqual([
      ['b', 'feasible'],
      ['a', 'leftOut'],
      ['c', 'leftOut'],
    ]);
    expect(e.outcome).toMatchObject({ kind: 'Scheduled', node: 'b', scored: false });
  });

  it('Runs no filter when a PreFilter rejects the pod', () => {
    const state = cluster(
      [nodeObject('a'), nodeObject('b')],
      [podObject('broken', { requests: { cpu: 'lots' } })],
    );
    const e = explainPod(input(state, podIn(state, 'broken')));
    const rejecting = e.preFilters.find((p) => p.code !== 'Success');
    expect(rejecting?.plugin).toBe('PodValidity');
    expect(e.outcome.kind).toBe('Unschedulable');
    expect(
      e.nodes.every((r) => r.fate === 'notRun' && r.filters.every((v) => v === 'notRun')),
    ).toBe(true);
    expect(e.sampling.visited).toBe(0);
  });

  it('Breaks a tie as the cycle does, with the same generator state', () => {
    const nodes = Array.from({ length: 6 }, (_, k) => nodeObject(`n${k}`));
    const state = cluster(nodes, [podObject('web', { requests: { cpu: '100m' } })]);
    for (const rngState of [1, 2, 3, 4, 5, 99, 12345]) {
      const i = input(state, podIn(state, 'web'), { rngState });
      const e = explainPod(i);
      const real = realCycle(i).result;
      expect(real.kind).toBe('Scheduled');
      expect(e.outcome.kind === 'Scheduled' && e.outcome.node).toBe(
        real.kind === 'Scheduled' && real.node,
      );
      const best = Math.max(...e.nodes.map((r) => r.total ?? 0));
      expect(e.nodes.filter((r) => r.total === best)).toHaveLength(6);
    }
  });

  it('Lists a nominated node that no longer fits once, at its place in the walk, which starts at the cursor', () => {
    // Before the trace, the nominated node's own try counted as a first visit: the walk
    // seemed to start on it, it was listed twice and processed was one more than the cycle's.
    const web = podObject('web', { requests: { cpu: '100m' } });
    web.status = { nominatedNodeName: 'a' };
    const state = cluster(
      [nodeObject('a', { unschedulable: true }), nodeObject('b'), nodeObject('c')],
      [web],
    );
    const i = input(state, podIn(state, 'web'), { cursor: 1 });
    const e = explainPod(i);
    const real = realCycle(i);
    expect(e.nodes.map((r) => [r.node, r.walk, r.fate])).toEqual([
      ['b', 1, 'scored'],
      ['c', 2, 'scored'],
      ['a', 3, 'rejected'],
    ]);
    expect(e.sampling).toMatchObject({ start: 1, startNode: 'b', visited: 3, processed: 3 });
    expect(real.result.kind === 'Scheduled' && real.result.evaluated).toBe(3);
    expect(e.sampling.nextCursor).toBe(real.cursor);
  });

  it('Filters the nodes the cycle did not reach as the cycle would: room held by a nominated pod of higher priority', () => {
    // The pod passes on the node it is nominated to, so no other node is walked; node b's
    // room is held for a pod of higher priority nominated there, so b is not feasible.
    const web = podObject('web', { requests: { cpu: '2' }, priority: 1 });
    web.status = { nominatedNodeName: 'a' };
    const vip = podObject('vip', { requests: { cpu: '3' }, priority: 100 });
    vip.status = { nominatedNodeName: 'b' };
    const state = cluster([nodeObject('a'), nodeObject('b'), nodeObject('c')], [web, vip]);
    const e = explainPod(input(state, podIn(state, 'web')));
    expect(e.outcome).toMatchObject({ kind: 'Scheduled', node: 'a', scored: false });
    expect(e.nodes.map((r) => [r.node, r.walk, r.fate])).toEqual([
      ['a', 1, 'feasible'],
      ['b', null, 'rejected'],
      ['c', null, 'notVisited'],
    ]);
    expect(verdictOf(e, 'b')?.rejection).toMatchObject({
      plugin: 'NodeResourcesFit',
      reasons: ['Insufficient cpu'],
    });
  });

  it('Writes nothing to the snapshot: explaining twice gives the same answer', () => {
    const state = cluster(
      [nodeObject('a'), nodeObject('b')],
      [podObject('web', { requests: { cpu: '100m' } })],
    );
    const i = input(state, podIn(state, 'web'));
    const before = [...state.nodes.values()].map((n) => [n.name, n.generation, n.pods.size]);
    expect(explainPod(i)).toEqual(explainPod(i));
    expect([...state.nodes.values()].map((n) => [n.name, n.generation, n.pods.size])).toEqual(
      before,
    );
  });
});
