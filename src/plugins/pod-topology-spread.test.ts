// Table tests for PodTopologySpread, ported from kube's filtering_test.go and scoring_test.go.

import { describe, expect, it } from 'vitest';
import { makeNodeWith, makePod, type PodInput } from '../../test/support/builders.ts';
import { emptyObjectStore } from '../cluster/cluster-objects.ts';
import { parseSpreadConstraints } from '../cluster/spread-constraints.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo, PodRecord } from '../cluster/types.ts';
import { scheduleOne } from '../framework/cycle.ts';
import { seededRng } from '../framework/rng.ts';
import type { Code, CycleState, Profile } from '../framework/types.ts';
import type { Taint } from '../model/objects.ts';
import { computePreFilterState } from './pod-topology-spread/filtering.ts';
import { spreadQueueingHint } from './pod-topology-spread/hints.ts';
import {
  ErrReasonConstraintsNotMatch,
  ErrReasonNodeLabelNotMatch,
  name,
  podTopologySpread,
} from './pod-topology-spread.ts';

const host = 'kubernetes.io/hostname';
const foo = { matchExpressions: [{ key: 'foo', operator: 'Exists' }] };
const bar = { matchExpressions: [{ key: 'bar', operator: 'Exists' }] };

/** A raw constraint, as in a manifest (kube's st.SpreadConstraint). */
function tsc(
  maxSkew: number,
  topologyKey: string,
  when: 'DoNotSchedule' | 'ScheduleAnyway',
  labelSelector?: unknown,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { maxSkew, topologyKey, whenUnsatisfiable: when, labelSelector, ...extra };
}

/** The incoming pod with its parsed constraints on the `spreadConstraints` field. */
function spreadPod(input: PodInput, constraints: unknown[]): PodInfo {
  const pod = makePod({ name: 'p', ...input });
  const parsed = parseSpreadConstraints(constraints, pod.labels);
  if (!parsed.ok) throw new Error(parsed.error);
  return Object.assign(pod, { spreadConstraints: parsed.value });
}

type NodeSpec = { name: string; labels: Record<string, string>; taints?: Taint[] };
type Existing = {
  node: string;
  labels?: Record<string, string>;
  ns?: string;
  terminating?: boolean;
};

/** Nodes with the existing pods charged to them (kube's MakeSnapShot). */
function nodesWith(specs: NodeSpec[], pods: Existing[] = []): NodeInfo[] {
  return specs.map((s) =>
    makeNodeWith(
      { name: s.name, labels: s.labels, taints: s.taints ?? [] },
      pods
        .filter((p) => p.node === s.name)
        .map((p, i) => ({
          name: `${s.name}-p${i}`,
          namespace: p.ns ?? 'default',
          labels: p.labels ?? { foo: '' },
          nodeName: s.name,
          terminating: p.terminating ?? false,
        })),
    ),
  );
}

function snapshotOf(nodes: NodeInfo[]): ClusterSnapshot {
  return {
    nodes: new Map(nodes.map((n) => [n.name, n])),
    nodeOrder: nodes,
    nodeIndex: new Map(nodes.map((n, i) => [n.name, i])),
    topology: new Map(),
    nominated: new Map(),
    imageStates: new Map(),
    objects: emptyObjectStore(),
  };
}

/** kube's four-node, two-zone layout: zone1 = node-a, node-b; zone2 = node-x, node-y. */
const abxy: NodeSpec[] = [
  { name: 'node-a', labels: { zone: 'zone1', node: 'node-a' } },
  { name: 'node-b', labels: { zone: 'zone1', node: 'node-b' } },
  { name: 'node-x', labels: { zone: 'zone2', node: 'node-x' } },
  { name: 'node-y', labels: { zone: 'zone2', node: 'node-y' } },
];

/** Existing `foo` pods per node name, e.g. { 'node-a': 2 }. */
function fooPods(per: Record<string, number>): Existing[] {
  return Object.entries(per).flatMap(([node, n]) => Array.from({ length: n }, () => ({ node })));
}

/** Runs PreFilter, then Filter on every node; returns each node's code. */
function filterCodes(pod: PodInfo, nodes: NodeInfo[]): Record<string, Code> {
  const state: CycleState = new Map();
  const pre = podTopologySpread.preFilter(pod, state, snapshotOf(nodes));
  expect(pre.code).toBe('Success');
  return Object.fromEntries(
    nodes.map((n) => [n.name, podTopologySpread.filter(pod, n, state).code]),
  );
}

describe('PodTopologySpread Filter (kube TestSingleConstraint)', () => {
  const S = 'Success';
  const U = 'Unschedulable';
  const UU = 'UnschedulableAndUnresolvable';
  const zone1 = [tsc(1, 'zone', 'DoNotSchedule', foo)];
  const node1 = [tsc(1, 'node', 'DoNotSchedule', foo)];
  const cases: {
    name: string;
    pod: PodInfo;
    nodes: NodeSpec[];
    pods: Existing[];
    want: Record<string, Code>;
  }[] = [
    {
      name: 'no existing pods',
      pod: spreadPod({ labels: { foo: '' } }, zone1),
      nodes: abxy,
      pods: [],
      want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': S },
    },
    {
      name: "no existing pods, incoming pod doesn't match itself",
      pod: spreadPod({ labels: { foo: '' } }, [tsc(1, 'zone', 'DoNotSchedule', bar)]),
      nodes: abxy,
      pods: [],
      want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': S },
    },
    {
      name: 'existing pods in a different namespace do not count',
      pod: spreadPod({ labels: { foo: '' } }, zone1),
      nodes: abxy,
      pods: [
        { node: 'node-a', ns: 'ns1' },
        { node: 'node-a', ns: 'ns2' },
        { node: 'node-x' },
        { node: 'node-y' },
      ],
      want: { 'node-a': S, 'node-b': S, 'node-x': U, 'node-y': U },
    },
    {
      name: 'pods spread across zones as 3/3, all nodes fit',
      pod: spreadPod({ labels: { foo: '' } }, zone1),
      nodes: abxy,
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
      want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': S },
    },
    {
      name: "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
      pod: spreadPod({ labels: { foo: '' } }, zone1),
      nodes: abxy.map((n) =>
        n.name === 'node-b' ? { name: 'node-b', labels: { zon: 'zone1', node: 'node-b' } } : n,
      ),
      pods: fooPods({ 'node-a': 1, 'node-b': 1, 'node-x': 1, 'node-y': 1 }),
      want: { 'node-a': S, 'node-b': UU, 'node-x': U, 'node-y': U },
    },
    {
      name: "pod cannot be scheduled as all nodes don't have label 'rack'",
      pod: spreadPod({ labels: { foo: '' } }, [tsc(1, 'rack', 'DoNotSchedule', foo)]),
      nodes: [abxy[0] as NodeSpec, abxy[2] as NodeSpec],
      pods: [],
      want: { 'node-a': UU, 'node-x': UU },
    },
    {
      name: 'pods spread across nodes as 2/1/0/3, only node-x fits',
      pod: spreadPod({ labels: { foo: '' } }, node1),
      nodes: abxy,
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
      want: { 'node-a': U, 'node-b': U, 'node-x': S, 'node-y': U },
    },
    {
      name: 'pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit',
      pod: spreadPod({ labels: { foo: '' } }, [tsc(2, 'node', 'DoNotSchedule', foo)]),
      nodes: abxy,
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
      want: { 'node-a': U, 'node-b': S, 'node-x': S, 'node-y': U },
    },
    {
      name: "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
      pod: spreadPod({ labels: { bar: '' } }, node1),
      nodes: abxy,
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
      want: { 'node-a': U, 'node-b': S, 'node-x': S, 'node-y': U },
    },
    {
      // Only node-a and node-y are eligible (2/~1~/~0~/3); node-b and node-x pass here
      // because this test runs no NodeAffinity filter.
      name: 'incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits',
      pod: spreadPod(
        {
          labels: { foo: '' },
          requiredNodeAffinity: [
            { matchExpressions: [{ key: 'node', operator: 'In', values: ['node-a', 'node-y'] }] },
          ],
        },
        node1,
      ),
      nodes: abxy,
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
      want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': U },
    },
    {
      name: 'terminating Pods should be excluded',
      pod: spreadPod({ labels: { foo: '' } }, node1),
      nodes: [
        { name: 'node-a', labels: { node: 'node-a' } },
        { name: 'node-b', labels: { node: 'node-b' } },
      ],
      pods: [{ node: 'node-a', terminating: true }, { node: 'node-b' }],
      want: { 'node-a': S, 'node-b': U },
    },
    {
      // 3/3 by zone; 2/1/0/3 by node: the intersection is node-x.
      name: 'two Constraints on zone and node, spreads = [3/3, 2/1/0/3]',
      pod: spreadPod({ labels: { foo: '' } }, [...zone1, ...node1]),
      nodes: abxy,
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }),
      want: { 'node-a': U, 'node-b': U, 'node-x': S, 'node-y': U },
    },
    {
      // 4/1 by zone (zone1 full); 2/2/1/0 by node: only zone2 nodes, node-y has min.
      name: 'two Constraints on zone and node, spreads = [4/1, 2/2/1/0], only node-y fits',
      pod: spreadPod({ labels: { foo: '' } }, [...zone1, ...node1]),
      nodes: abxy,
      pods: fooPods({ 'node-a': 2, 'node-b': 2, 'node-x': 1 }),
      want: { 'node-a': U, 'node-b': U, 'node-x': U, 'node-y': S },
    },
    {
      // A null selector matches nothing: counts are 0 and the pod does not match itself.
      name: 'a constraint without labelSelector never rejects a labelled node',
      pod: spreadPod({ labels: { foo: '' } }, [tsc(1, 'node', 'DoNotSchedule')]),
      nodes: abxy,
      pods: fooPods({ 'node-a': 5 }),
      want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': S },
    },
    {
      // An empty selector counts no pod (Selector.Empty) yet matches the pod itself.
      name: 'an empty labelSelector counts nothing, so every node fits with maxSkew 1',
      pod: spreadPod({ labels: { foo: '' } }, [tsc(1, 'node', 'DoNotSchedule', {})]),
      nodes: abxy,
      pods: fooPods({ 'node-a': 5 }),
      want: { 'node-a': S, 'node-b': S, 'node-x': S, 'node-y': S },
    },
  ];
  it.each(cases)('$name', ({ pod, nodes, pods, want }) => {
    expect(filterCodes(pod, nodesWith(nodes, pods))).toEqual(want);
  });
});

describe('PodTopologySpread Filter: minDomains and node inclusion policies', () => {
  const S = 'Success';
  const U = 'Unschedulable';
  it('below minDomains eligible domains the global minimum is 0', () => {
    // Two zones with 1 and 1 matching pods: with minDomains 3 the minimum is 0, so a
    // zone already holding one pod is full at maxSkew 1.
    const nodes = nodesWith(abxy, fooPods({ 'node-a': 1, 'node-x': 1 }));
    const hard = (minDomains: number) =>
      spreadPod({ labels: { foo: '' } }, [tsc(1, 'zone', 'DoNotSchedule', foo, { minDomains })]);
    expect(filterCodes(hard(2), nodes)).toEqual({
      'node-a': S,
      'node-b': S,
      'node-x': S,
      'node-y': S,
    });
    expect(filterCodes(hard(3), nodes)).toEqual({
      'node-a': U,
      'node-b': U,
      'node-x': U,
      'node-y': U,
    });
  });

  it('with minDomains domains the real minimum applies; with fewer it is 0', () => {
    // By node: 2/1/1/3, minimum 1. Four eligible domains satisfy minDomains 4 but not 5.
    const nodes = nodesWith(abxy, fooPods({ 'node-a': 2, 'node-b': 1, 'node-x': 1, 'node-y': 3 }));
    const hard = (minDomains: number) =>
      spreadPod({ labels: { foo: '' } }, [tsc(1, 'node', 'DoNotSchedule', foo, { minDomains })]);
    expect(filterCodes(hard(4), nodes)).toEqual({
      'node-a': U,
      'node-b': S,
      'node-x': S,
      'node-y': U,
    });
    expect(filterCodes(hard(5), nodes)).toEqual({
      'node-a': U,
      'node-b': U,
      'node-x': U,
      'node-y': U,
    });
  });

  it('nodeAffinityPolicy Ignore counts nodes the pod cannot go to', () => {
    // The selector keeps the pod off zone2 (no matching pods there, min 0 when honored).
    const nodes = nodesWith(abxy, fooPods({ 'node-a': 1, 'node-b': 1 }));
    const affinity = { nodeSelector: { zone: 'zone1' }, labels: { foo: '' } };
    const honor = spreadPod(affinity, [tsc(1, 'zone', 'DoNotSchedule', foo)]);
    const ignore = spreadPod(affinity, [
      tsc(1, 'zone', 'DoNotSchedule', foo, { nodeAffinityPolicy: 'Ignore' }),
    ]);
    expect(filterCodes(honor, nodes)['node-a']).toBe(S); // only zone1: 2 + 1 − 2
    expect(filterCodes(ignore, nodes)['node-a']).toBe(U); // zone2 counts: 2 + 1 − 0
  });

  it('nodeTaintsPolicy Honor leaves out nodes with untolerated taints', () => {
    const taint: Taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
    const specs = abxy.map((n) => (n.labels.zone === 'zone2' ? { ...n, taints: [taint] } : n));
    const nodes = nodesWith(specs, fooPods({ 'node-a': 1, 'node-b': 1 }));
    const ignore = spreadPod({ labels: { foo: '' } }, [tsc(1, 'zone', 'DoNotSchedule', foo)]);
    const honor = spreadPod({ labels: { foo: '' } }, [
      tsc(1, 'zone', 'DoNotSchedule', foo, { nodeTaintsPolicy: 'Honor' }),
    ]);
    const tolerating = spreadPod(
      { labels: { foo: '' }, tolerations: [{ key: 'k', operator: 'Exists' }] },
      [tsc(1, 'zone', 'DoNotSchedule', foo, { nodeTaintsPolicy: 'Honor' })],
    );
    expect(filterCodes(ignore, nodes)['node-a']).toBe(U);
    expect(filterCodes(honor, nodes)['node-a']).toBe(S);
    expect(filterCodes(tolerating, nodes)['node-a']).toBe(U);
  });

  it('a node missing one constraint key leaves its domains of every constraint', () => {
    // node-y lacks "node": its 3 pods count in neither zone2 nor any node domain.
    const specs = abxy.map((n) =>
      n.name === 'node-y' ? { name: 'node-y', labels: { zone: 'zone2' } } : n,
    );
    const pod = spreadPod({ labels: { foo: '' } }, [
      tsc(1, 'zone', 'DoNotSchedule', foo),
      tsc(5, 'node', 'DoNotSchedule', foo),
    ]);
    const nodes = nodesWith(specs, fooPods({ 'node-a': 2, 'node-y': 3 }));
    const s = computePreFilterState(pod, pod.spreadConstraints.hard, snapshotOf(nodes));
    expect([...(s.counts[0] as Map<string, number>)]).toEqual([
      ['zone1', 2],
      ['zone2', 0],
    ]);
    expect(s.minMatch).toEqual([0, 0]);
  });
});

describe('PodTopologySpread Filter statuses', () => {
  it('uses kube reasons and codes, naming the plugin', () => {
    const nodes = nodesWith(
      [...abxy, { name: 'node-z', labels: { node: 'node-z' } }],
      fooPods({ 'node-a': 2 }),
    );
    const pod = spreadPod({ labels: { foo: '' } }, [tsc(1, 'zone', 'DoNotSchedule', foo)]);
    const state: CycleState = new Map();
    podTopologySpread.preFilter(pod, state, snapshotOf(nodes));
    const byName = new Map(nodes.map((n) => [n.name, n]));
    expect(podTopologySpread.filter(pod, byName.get('node-a') as NodeInfo, state)).toEqual({
      code: 'Unschedulable',
      reasons: [ErrReasonConstraintsNotMatch],
      plugin: name,
    });
    expect(podTopologySpread.filter(pod, byName.get('node-z') as NodeInfo, state)).toEqual({
      code: 'UnschedulableAndUnresolvable',
      reasons: [ErrReasonNodeLabelNotMatch],
      plugin: name,
    });
    expect(ErrReasonConstraintsNotMatch).toBe(
      "node(s) didn't match pod topology spread constraints",
    );
    expect(ErrReasonNodeLabelNotMatch).toBe(
      "node(s) didn't match pod topology spread constraints (missing required label)",
    );
  });

  it('skips pods without DoNotSchedule constraints, and Filter errs without PreFilter state', () => {
    const soft = spreadPod({}, [tsc(1, 'zone', 'ScheduleAnyway', foo)]);
    const hard = spreadPod({}, [tsc(1, 'zone', 'DoNotSchedule', foo)]);
    const skip = (pod: PodInfo) => {
      const state: CycleState = new Map();
      podTopologySpread.preFilter(pod, state, snapshotOf(nodesWith(abxy)));
      return podTopologySpread.preFilterSkip(pod, state);
    };
    expect(skip(soft)).toBe(true);
    expect(skip(makePod())).toBe(true);
    expect(skip(hard)).toBe(false);
    // Without PreFilter's state, the pod's own constraints decide.
    expect(podTopologySpread.preFilterSkip(hard, new Map())).toBe(false);
    const [node] = nodesWith(abxy);
    expect(podTopologySpread.filter(hard, node as NodeInfo, new Map()).code).toBe('Error');
  });
});

/** PreScore over `scored` (the feasible nodes) with `all` as the snapshot, then Score and normalize. */
function scoreAll(pod: PodInfo, all: NodeInfo[], scored: string[]): Record<string, number> {
  const state: CycleState = new Map();
  const nodes = scored.map((n) => all.find((x) => x.name === n) as NodeInfo);
  podTopologySpread.preScore(pod, state, snapshotOf(all), nodes);
  const scores = nodes.map((n) => podTopologySpread.score(pod, n, state));
  podTopologySpread.normalize(pod, scores, state);
  return Object.fromEntries(nodes.map((n, i) => [n.name, scores[i] as number]));
}

describe('PodTopologySpread Score (kube TestPodTopologySpreadScore)', () => {
  const hosts = (...names: string[]): NodeSpec[] =>
    names.map((n) => ({ name: n, labels: { [host]: n } }));
  const soft = (maxSkew: number, key: string, sel: unknown = foo) =>
    tsc(maxSkew, key, 'ScheduleAnyway', sel);
  const cases: {
    name: string;
    pod: PodInfo;
    nodes: NodeSpec[];
    pods: Existing[];
    scored: string[];
    want: Record<string, number>;
  }[] = [
    {
      name: 'one constraint on node, all 4 nodes are candidates',
      pod: spreadPod({ labels: { foo: '' } }, [soft(1, host)]),
      nodes: hosts('node-a', 'node-b', 'node-c', 'node-d'),
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-d': 3 }),
      scored: ['node-a', 'node-b', 'node-c', 'node-d'],
      want: { 'node-a': 20, 'node-b': 60, 'node-c': 100, 'node-d': 0 },
    },
    {
      name: 'one constraint on node, null selector',
      pod: spreadPod({ labels: { foo: '' } }, [tsc(1, host, 'ScheduleAnyway')]),
      nodes: hosts('node-a', 'node-b', 'node-c', 'node-d'),
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-d': 3 }),
      scored: ['node-a', 'node-b', 'node-c', 'node-d'],
      want: { 'node-a': 100, 'node-b': 100, 'node-c': 100, 'node-d': 100 },
    },
    {
      name: 'one constraint on node, all 4 nodes are candidates, maxSkew=2',
      pod: spreadPod({ labels: { foo: '' } }, [soft(2, host)]),
      nodes: hosts('node-a', 'node-b', 'node-c', 'node-d'),
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-d': 3 }),
      scored: ['node-a', 'node-b', 'node-c', 'node-d'],
      want: { 'node-a': 33, 'node-b': 66, 'node-c': 100, 'node-d': 16 },
    },
    {
      name: 'one constraint on node, all 4 nodes are candidates, maxSkew=3',
      pod: spreadPod({ labels: { foo: '' } }, [soft(3, host)]),
      nodes: hosts('node-a', 'node-b', 'node-c', 'node-d'),
      pods: fooPods({ 'node-a': 4, 'node-b': 3, 'node-c': 2, 'node-d': 1 }),
      scored: ['node-a', 'node-b', 'node-c', 'node-d'],
      want: { 'node-a': 44, 'node-b': 66, 'node-c': 77, 'node-d': 100 },
    },
    {
      name: 'one constraint on node, 3 out of 4 nodes are candidates',
      pod: spreadPod({ labels: { foo: '' } }, [soft(1, host)]),
      nodes: hosts('node-a', 'node-b', 'node-x', 'node-y'),
      pods: fooPods({ 'node-a': 4, 'node-b': 2, 'node-x': 1, 'node-y': 3 }),
      scored: ['node-a', 'node-b', 'node-x'],
      want: { 'node-a': 33, 'node-b': 83, 'node-x': 100 },
    },
    {
      name: "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
      pod: spreadPod({ labels: { foo: '' } }, [soft(1, host)]),
      nodes: [
        { name: 'node-a', labels: { [host]: 'node-a' } },
        { name: 'node-b', labels: { n: 'node-b' } },
        { name: 'node-x', labels: { [host]: 'node-x' } },
        { name: 'node-y', labels: { [host]: 'node-y' } },
      ],
      pods: fooPods({ 'node-a': 4, 'node-b': 2, 'node-x': 1, 'node-y': 3 }),
      scored: ['node-a', 'node-b', 'node-x'],
      want: { 'node-a': 16, 'node-b': 0, 'node-x': 100 },
    },
    {
      name: 'one constraint on zone, 3 out of 4 nodes are candidates',
      pod: spreadPod({ labels: { foo: '' } }, [soft(1, 'zone')]),
      nodes: abxy.map((n) => ({
        name: n.name,
        labels: { zone: n.labels.zone as string, [host]: n.name },
      })),
      pods: fooPods({ 'node-a': 4, 'node-b': 2, 'node-x': 1, 'node-y': 3 }),
      scored: ['node-a', 'node-b', 'node-x'],
      want: { 'node-a': 75, 'node-b': 75, 'node-x': 100 },
    },
    {
      name: 'two Constraints on zone and node, 2 out of 4 nodes are candidates',
      pod: spreadPod({ labels: { foo: '' } }, [soft(1, 'zone'), soft(1, host)]),
      nodes: abxy.map((n) => ({
        name: n.name,
        labels: { zone: n.labels.zone as string, [host]: n.name },
      })),
      pods: fooPods({ 'node-a': 2, 'node-b': 1, 'node-x': 2, 'node-y': 4 }),
      scored: ['node-a', 'node-x'],
      want: { 'node-a': 100, 'node-x': 63 },
    },
    {
      name: 'two Constraints on zone, 2 out of 4 nodes are candidates',
      pod: spreadPod({ labels: { foo: '', bar: '' } }, [soft(1, 'zone'), soft(1, 'zone', bar)]),
      nodes: abxy.map((n) => ({ name: n.name, labels: { zone: n.labels.zone as string } })),
      pods: [
        { node: 'node-a', labels: { foo: '', bar: '' } },
        { node: 'node-a', labels: { foo: '' } },
        { node: 'node-b', labels: { foo: '', bar: '' } },
        { node: 'node-y', labels: { foo: '' } },
        { node: 'node-y', labels: { foo: '', bar: '' } },
        { node: 'node-y', labels: { foo: '' } },
      ],
      scored: ['node-a', 'node-x'],
      want: { 'node-a': 85, 'node-x': 100 },
    },
    {
      name: 'two Constraints on zone and node, with different labelSelectors',
      pod: spreadPod({ labels: { foo: '', bar: '' } }, [soft(1, 'zone'), soft(1, host, bar)]),
      nodes: abxy.map((n) => ({
        name: n.name,
        labels: { zone: n.labels.zone as string, [host]: n.name },
      })),
      pods: [
        { node: 'node-a', labels: { foo: '' } },
        { node: 'node-b', labels: { foo: '', bar: '' } },
        { node: 'node-y', labels: { foo: '' } },
        { node: 'node-y', labels: { bar: '' } },
      ],
      scored: ['node-a', 'node-b', 'node-x', 'node-y'],
      want: { 'node-a': 60, 'node-b': 20, 'node-x': 100, 'node-y': 60 },
    },
  ];
  it.each(cases)('$name', ({ pod, nodes, pods, scored, want }) => {
    expect(scoreAll(pod, nodesWith(nodes, pods), scored)).toEqual(want);
  });

  it('skips pods without ScheduleAnyway constraints', () => {
    const skip = (pod: PodInfo) =>
      podTopologySpread.preScoreSkip(pod, new Map(), snapshotOf(nodesWith(abxy)));
    expect(skip(makePod())).toBe(true);
    expect(skip(spreadPod({}, [tsc(1, 'z', 'DoNotSchedule', foo)]))).toBe(true);
    expect(skip(spreadPod({}, [tsc(1, 'z', 'ScheduleAnyway', foo)]))).toBe(false);
  });
});

describe('PodTopologySpread queueing hint', () => {
  const info = (labels: Record<string, string>, nodeName?: string): PodInfo =>
    makePod({ name: 'q', labels, nodeName });
  const bound = (labels: Record<string, string>): PodRecord => ({
    info: info(labels, 'n1'),
    charge: { kind: 'bound', node: 'n1' },
  });
  const pending = (labels: Record<string, string>): PodRecord => ({
    info: info(labels),
    charge: { kind: 'none' },
  });
  const podChange = (before?: PodRecord, after?: PodRecord) =>
    spreadQueueingHint({ kind: 'pod', uid: 'uid-q', before, after, replaced: undefined });
  const [node] = nodesWith([{ name: 'n1', labels: { zone: 'z1' } }]);
  const facts = {
    labels: { zone: 'z1' },
    taints: [],
    unschedulable: false,
    allocatable: (node as NodeInfo).allocatable,
  };

  it.each([
    ['a placed pod is added', podChange(undefined, bound({ a: '1' })), true],
    ['a placed pod is deleted', podChange(bound({ a: '1' }), undefined), true],
    ['a pending pod is added', podChange(undefined, pending({ a: '1' })), false],
    ['a placed pod changes labels', podChange(bound({ a: '1' }), bound({ a: '2' })), true],
    [
      'a placed pod changes nothing relevant',
      podChange(bound({ a: '1' }), bound({ a: '1' })),
      false,
    ],
    ['a pending pod changes labels', podChange(pending({ a: '1' }), pending({ a: '2' })), false],
    ['a pod gets bound', podChange(pending({ a: '1' }), bound({ a: '1' })), true],
    [
      'a node is added',
      spreadQueueingHint({ kind: 'node', name: 'n1', before: undefined, after: node }),
      true,
    ],
    [
      'a node is deleted',
      spreadQueueingHint({ kind: 'node', name: 'n1', before: facts, after: undefined }),
      true,
    ],
    [
      'a node changes only its cordon',
      spreadQueueingHint({
        kind: 'node',
        name: 'n1',
        before: { ...facts, unschedulable: true },
        after: node,
      }),
      false,
    ],
    [
      'a node changes its labels',
      spreadQueueingHint({
        kind: 'node',
        name: 'n1',
        before: { ...facts, labels: { zone: 'z2' } },
        after: node,
      }),
      true,
    ],
    ['nothing changes', spreadQueueingHint({ kind: 'none' }), false],
  ])('%s → %s', (_name, got, want) => {
    expect(got).toBe(want);
  });
});

describe('PodTopologySpread in a scheduling cycle', () => {
  const profile: Profile = {
    preFilter: [podTopologySpread],
    filter: [podTopologySpread],
    score: [{ plugin: podTopologySpread, weight: 2 }],
    queueingHints: new Map([[name, podTopologySpread.queueingHint]]),
  };
  const run = (pod: PodInfo, seed: number) =>
    scheduleOne(
      pod,
      snapshotOf(nodesWith(abxy, fooPods({ 'node-a': 2, 'node-b': 1, 'node-y': 3 }))),
      {
        profile,
        rng: seededRng(seed),
        cursor: { next: seed % 4 },
        percentageOfNodesToScore: 0,
      },
    );

  it.each([0, 1, 2, 3])('DoNotSchedule places the pod on the emptiest node (seed %i)', (seed) => {
    const r = run(spreadPod({ labels: { foo: '' } }, [tsc(1, 'node', 'DoNotSchedule', foo)]), seed);
    expect(r).toMatchObject({ kind: 'Scheduled', node: 'node-x', feasible: 1 });
  });

  it.each([0, 1, 2, 3])('ScheduleAnyway prefers the emptiest node (seed %i)', (seed) => {
    const r = run(
      spreadPod({ labels: { foo: '' } }, [tsc(1, 'node', 'ScheduleAnyway', foo)]),
      seed,
    );
    expect(r).toMatchObject({ kind: 'Scheduled', node: 'node-x', feasible: 4 });
  });

  it('an unsatisfiable pod gets the kube FitError message', () => {
    const pod = spreadPod({ labels: { foo: '' } }, [tsc(1, 'rack', 'DoNotSchedule', foo)]);
    const r = run(pod, 0);
    expect(r.kind).toBe('Unschedulable');
    if (r.kind === 'Unschedulable')
      expect(r.message).toBe(`0/4 nodes are available: 4 ${ErrReasonNodeLabelNotMatch}.`);
  });
});
