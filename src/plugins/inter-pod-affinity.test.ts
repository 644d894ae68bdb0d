// Table tests for InterPodAffinity, ported from kube's filtering_test.go and scoring_test.go (namespace "" is "default" here).
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import type {
  ClusterSnapshot,
  ClusterState,
  NodeInfo,
  PodInfo,
  PodRecord,
} from '../cluster/types.ts';
import { scheduleOne } from '../framework/cycle.ts';
import { seededRng } from '../framework/rng.ts';
import type { CycleState, Status } from '../framework/types.ts';
import type { PodObject } from '../model/objects.ts';
import {
  ErrReasonAffinityRulesNotMatch,
  ErrReasonAntiAffinityRulesNotMatch,
  ErrReasonExistingAntiAffinityRulesNotMatch,
  interPodAffinity,
  interPodAffinityQueueingHint,
  name,
  newInterPodAffinity,
} from './inter-pod-affinity.ts';
import { profileFromConfig } from './registry.ts';

// --- manifests ---

type Selector = Record<string, unknown>;
type Term = Record<string, unknown>;
const sel = (key: string, operator: string, ...values: string[]): Selector => ({
  matchExpressions: [{ key, operator, ...(values.length > 0 ? { values } : {}) }],
});
const and = (...s: Selector[]): Selector => ({
  matchExpressions: s.flatMap((x) => x.matchExpressions as unknown[]),
});
const term = (
  labelSelector: Selector | undefined,
  topologyKey: string,
  extra: Term = {},
): Term => ({
  ...(labelSelector === undefined ? {} : { labelSelector }),
  topologyKey,
  ...extra,
});
const weighted = (weight: number, t: Term) => ({ weight, podAffinityTerm: t });

interface Affinity {
  affinity?: Term[];
  anti?: Term[];
  prefer?: ReturnType<typeof weighted>[];
  preferAnti?: ReturnType<typeof weighted>[];
}

interface PodSpec {
  ns?: string;
  labels?: Record<string, string>;
  node?: string;
  aff?: Affinity;
}

let uids = 0;
function podInfo(p: PodSpec, podName = `p${++uids}`): PodInfo {
  const obj: PodObject = podObject(podName, {
    namespace: p.ns ?? 'default',
    ...(p.labels === undefined ? {} : { labels: p.labels }),
    ...(p.node === undefined ? {} : { nodeName: p.node }),
  });
  obj.metadata.uid = `${podName}-uid`;
  const a = p.aff;
  if (a !== undefined) {
    obj.spec.affinity = {
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: a.affinity,
        preferredDuringSchedulingIgnoredDuringExecution: a.prefer,
      },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: a.anti,
        preferredDuringSchedulingIgnoredDuringExecution: a.preferAnti,
      },
    } as PodObject['spec']['affinity'];
  }
  const info = podInfoFromObject(obj);
  if ('rejected' in info || info.invalid !== undefined) throw new Error(`bad test pod ${podName}`);
  return info;
}

type Labels = Record<string, string>;

/** A cluster folded by the real reducer (so the charges keep the indexes), namespaces by hand. */
function cluster(
  nodes: [string, Labels][],
  pods: PodSpec[] = [],
  namespaces: [string, Labels][] = [],
): ClusterState {
  const state = initialState();
  let seq = 0;
  for (const [n, labels] of nodes)
    evolve(state, {
      seq: ++seq,
      time: 0,
      event: { type: 'NodeUpserted', node: nodeObject(n, { labels }) },
    });
  pods.forEach((p, i) => {
    const obj = podObject(`existing-${i}`, {
      namespace: p.ns ?? 'default',
      ...(p.labels === undefined ? {} : { labels: p.labels }),
      ...(p.node === undefined ? {} : { nodeName: p.node }),
    });
    obj.metadata.uid = `existing-${i}`;
    obj.spec.affinity = podInfoAffinity(p);
    evolve(state, { seq: ++seq, time: 0, event: { type: 'PodUpserted', pod: obj } });
  });
  for (const [n, labels] of namespaces) state.objects.Namespace.set(n, { name: n, labels });
  return state;
}

function podInfoAffinity(p: PodSpec): PodObject['spec']['affinity'] {
  const a = p.aff;
  if (a === undefined) return undefined;
  return {
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: a.affinity,
      preferredDuringSchedulingIgnoredDuringExecution: a.prefer,
    },
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: a.anti,
      preferredDuringSchedulingIgnoredDuringExecution: a.preferAnti,
    },
  } as PodObject['spec']['affinity'];
}

/** The same cluster without the index: the plugin must walk the nodes and agree. */
const withoutIndex = (s: ClusterState): ClusterSnapshot => ({ ...s, podAffinityIndex: undefined });

// --- filter ---

type Want = 'ok' | 'affinity' | 'anti' | 'existing';
const statusOf: Record<Want, Status> = {
  ok: { code: 'Success', reasons: [] },
  affinity: {
    code: 'UnschedulableAndUnresolvable',
    reasons: [ErrReasonAffinityRulesNotMatch],
    plugin: name,
  },
  anti: { code: 'Unschedulable', reasons: [ErrReasonAntiAffinityRulesNotMatch], plugin: name },
  existing: {
    code: 'Unschedulable',
    reasons: [ErrReasonExistingAntiAffinityRulesNotMatch],
    plugin: name,
  },
};

function filterAll(pod: PodInfo, snapshot: ClusterSnapshot): Status[] {
  const state: CycleState = new Map();
  expect(interPodAffinity.preFilter(pod, state, snapshot)).toEqual({
    code: 'Success',
    reasons: [],
  });
  return snapshot.nodeOrder.map((n: NodeInfo) => interPodAffinity.filter(pod, n, state));
}

interface FilterCase {
  name: string;
  pod: PodSpec;
  pods?: PodSpec[];
  nodes: [string, Labels][];
  namespaces?: [string, Labels][];
  want: Want[];
}

const securityscan = { service: 'securityscan' };
const s1 = { security: 'S1' };
const machine1: [string, Labels] = ['machine1', { region: 'r1', zone: 'z11' }];
const abNodes: [string, Labels][] = [
  ['nodeA', { region: 'r1', zone: 'z1', hostname: 'nodeA' }],
  ['nodeB', { region: 'r1', zone: 'z2', hostname: 'nodeB' }],
];
const serviceIn = sel('service', 'In', 'securityscan', 'value2');

const filterCases: FilterCase[] = [
  {
    name: 'A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods',
    pod: {},
    nodes: [machine1],
    want: ['ok'],
  },
  {
    name: 'satisfies with required PodAffinity using In operator that matches the existing pod',
    pod: { labels: s1, aff: { affinity: [term(serviceIn, 'region')] } },
    pods: [{ node: 'machine1', labels: securityscan }],
    nodes: [machine1],
    want: ['ok'],
  },
  {
    name: 'satisfies the pod with required PodAffinity using NotIn operator in labelSelector that matches the existing pod',
    pod: {
      labels: s1,
      aff: { affinity: [term(sel('service', 'NotIn', 'securityscan3', 'value3'), 'region')] },
    },
    pods: [{ node: 'machine1', labels: securityscan }],
    nodes: [machine1],
    want: ['ok'],
  },
  {
    name: 'Does not satisfy the PodAffinity with labelSelector because of diff Namespace',
    pod: {
      labels: s1,
      aff: { affinity: [term(serviceIn, 'region', { namespaces: ['DiffNameSpace'] })] },
    },
    pods: [{ node: 'machine1', labels: securityscan, ns: 'ns' }],
    nodes: [machine1],
    want: ['affinity'],
  },
  {
    name: "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
    pod: {
      labels: securityscan,
      aff: { affinity: [term(sel('service', 'In', 'antivirusscan', 'value2'), 'region')] },
    },
    pods: [{ node: 'machine1', labels: securityscan }],
    nodes: [machine1],
    want: ['affinity'],
  },
  {
    name: 'satisfies the PodAffinity with different label Operators in multiple required terms',
    pod: {
      labels: s1,
      aff: {
        affinity: [
          term(and(sel('service', 'Exists'), sel('wrongkey', 'DoesNotExist')), 'region'),
          term(
            and(sel('service', 'In', 'securityscan'), sel('service', 'NotIn', 'WrongValue')),
            'region',
          ),
        ],
      },
    },
    pods: [{ node: 'machine1', labels: securityscan }],
    nodes: [machine1],
    want: ['ok'],
  },
  {
    name: "The labelSelector requirements are ANDed: the pod cannot go because one matchExpression item doesn't match",
    pod: {
      labels: s1,
      aff: {
        affinity: [
          term(and(sel('service', 'Exists'), sel('wrongkey', 'DoesNotExist')), 'region'),
          term(
            and(sel('service', 'In', 'securityscan2'), sel('service', 'NotIn', 'WrongValue')),
            'region',
          ),
        ],
      },
    },
    pods: [{ node: 'machine1', labels: securityscan }],
    nodes: [machine1],
    want: ['affinity'],
  },
  {
    name: 'satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod',
    pod: {
      labels: s1,
      aff: {
        affinity: [term(serviceIn, 'region')],
        anti: [term(sel('service', 'In', 'antivirusscan', 'value2'), 'node')],
      },
    },
    pods: [
      {
        node: 'machine1',
        labels: securityscan,
        aff: { anti: [term(sel('service', 'In', 'antivirusscan', 'value2'), 'node')] },
      },
    ],
    nodes: [machine1],
    want: ['ok'],
  },
  {
    name: "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
    pod: {
      labels: s1,
      aff: { affinity: [term(serviceIn, 'region')], anti: [term(serviceIn, 'zone')] },
    },
    pods: [{ node: 'machine1', labels: securityscan }],
    nodes: [machine1],
    want: ['anti'],
  },
  {
    name: "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
    pod: {
      labels: securityscan,
      aff: {
        affinity: [term(serviceIn, 'region')],
        anti: [term(sel('service', 'In', 'antivirusscan', 'value2'), 'node')],
      },
    },
    pods: [{ node: 'machine1', labels: securityscan, aff: { anti: [term(serviceIn, 'zone')] } }],
    nodes: [machine1],
    want: ['existing'],
  },
  {
    name: "A pod whose affinity matches neither itself nor any pod on a known node can't go (the matching pod's node is absent)",
    pod: {
      labels: securityscan,
      aff: { affinity: [term(sel('service', 'NotIn', 'securityscan', 'value2'), 'region')] },
    },
    pods: [{ node: 'machine2', labels: { service: 'other' } }],
    nodes: [machine1],
    want: ['affinity'],
  },
  {
    name: "PodAntiAffinity of an existing pod is respected when the pod has none: it doesn't satisfy the symmetry",
    pod: { labels: securityscan },
    pods: [{ node: 'machine1', labels: securityscan, aff: { anti: [term(serviceIn, 'zone')] } }],
    nodes: [machine1],
    want: ['existing'],
  },
  {
    name: 'PodAntiAffinity of an existing pod is respected when the pod has none: it satisfies the symmetry',
    pod: { labels: securityscan },
    pods: [
      {
        node: 'machine1',
        labels: securityscan,
        aff: { anti: [term(sel('service', 'NotIn', 'securityscan', 'value2'), 'zone')] },
      },
    ],
    nodes: [machine1],
    want: ['ok'],
  },
  {
    name: 'A pod can go on every node of the topology domain where a pod matches its affinity, not elsewhere',
    pod: { labels: { foo: 'bar' }, aff: { affinity: [term(sel('foo', 'In', 'bar'), 'region')] } },
    pods: [{ node: 'machine1', labels: { foo: 'bar' } }],
    nodes: [
      ['machine1', { region: 'r1', zone: 'z11' }],
      ['machine2', { region: 'r1', zone: 'z12' }],
      ['machine3', { region: 'r2', zone: 'z21' }],
      ['machine4', { zone: 'z41' }],
    ],
    want: ['ok', 'ok', 'affinity', 'affinity'],
  },
  {
    name: 'The first pod of a group that matches its own affinity may go anywhere with the topology key',
    pod: { labels: { foo: 'bar' }, aff: { affinity: [term(sel('foo', 'In', 'bar'), 'region')] } },
    pods: [{ node: 'machine1', labels: { foo: 'other' } }],
    nodes: [
      ['machine1', { region: 'r1' }],
      ['machine2', { region: 'r2' }],
      ['machine3', { zone: 'z3' }],
    ],
    want: ['ok', 'ok', 'affinity'],
  },
  {
    name: 'The first-pod rule does not apply when the pod does not match its own terms',
    pod: { labels: { foo: 'baz' }, aff: { affinity: [term(sel('foo', 'In', 'bar'), 'region')] } },
    nodes: [['machine1', { region: 'r1' }]],
    want: ['affinity'],
  },
  {
    name: 'The first-pod rule does not apply once some pod matches all terms elsewhere',
    pod: { labels: { foo: 'bar' }, aff: { affinity: [term(sel('foo', 'In', 'bar'), 'region')] } },
    pods: [{ node: 'machine2', labels: { foo: 'bar' } }],
    nodes: [
      ['machine1', { region: 'r1' }],
      ['machine2', { region: 'r2' }],
    ],
    want: ['affinity', 'ok'],
  },
  {
    name: 'NodeA and nodeB share a topology value and nodeA has a pod the anti-affinity matches: neither fits, nodeC (other namespace) does',
    pod: { labels: { foo: 'bar' }, aff: { anti: [term(sel('foo', 'In', 'bar'), 'region')] } },
    pods: [
      { node: 'nodeA', labels: { foo: 'bar' } },
      { node: 'nodeC', labels: { foo: 'bar' }, ns: 'NS1' },
    ],
    nodes: [
      ['nodeA', { region: 'r1', hostname: 'nodeA' }],
      ['nodeB', { region: 'r1', hostname: 'nodeB' }],
      ['nodeC', { region: 'r2', hostname: 'nodeC' }],
    ],
    want: ['anti', 'anti', 'ok'],
  },
  {
    name: "Test existing pod's anti-affinity: a term whose topologyKey no node has repels nothing",
    pod: { labels: { foo: '' } },
    pods: [{ node: 'nodeA', aff: { anti: [term(sel('foo', 'Exists'), 'invalid-node-label')] } }],
    nodes: abNodes,
    want: ['ok', 'ok'],
  },
  {
    name: "Test incoming pod's anti-affinity: even if labelSelector matches, the topologyKey must match too",
    pod: { aff: { anti: [term(sel('foo', 'Exists'), 'invalid-node-label')] } },
    pods: [{ node: 'nodeA', labels: { foo: '' } }],
    nodes: abNodes,
    want: ['ok', 'ok'],
  },
  {
    name: "Test existing pod's anti-affinity: the incoming pod violates each existing pod's term on all nodes",
    pod: { labels: { foo: '', bar: '' } },
    pods: [
      { node: 'nodeA', aff: { anti: [term(sel('foo', 'Exists'), 'zone')] } },
      { node: 'nodeA', aff: { anti: [term(sel('bar', 'Exists'), 'region')] } },
    ],
    nodes: abNodes,
    want: ['existing', 'existing'],
  },
  {
    name: "Test incoming pod's anti-affinity: it violates at least one anti-affinity term on every node",
    pod: {
      aff: { anti: [term(sel('foo', 'Exists'), 'zone'), term(sel('bar', 'Exists'), 'region')] },
    },
    pods: [
      { node: 'nodeA', labels: { foo: '' } },
      { node: 'nodeB', labels: { bar: '' } },
    ],
    nodes: abNodes,
    want: ['anti', 'anti'],
  },
  {
    name: "Test existing pod's anti-affinity: a term counts only when labelSelector and topologyKey both match",
    pod: { labels: { foo: '', bar: '' } },
    pods: [
      {
        node: 'nodeA',
        aff: {
          anti: [
            term(sel('foo', 'Exists'), 'invalid-node-label'),
            term(sel('bar', 'Exists'), 'zone'),
          ],
        },
      },
    ],
    nodes: abNodes,
    want: ['existing', 'ok'],
  },
  {
    name: "Test existing pod's anti-affinity: pods on nodeA and nodeB each have a matching term, so only nodeC fits",
    pod: { labels: { foo: '', bar: '' } },
    pods: [
      {
        node: 'nodeA',
        aff: { anti: [term(sel('foo', 'Exists'), 'zone'), term(sel('labelA', 'Exists'), 'zone')] },
      },
      {
        node: 'nodeB',
        aff: { anti: [term(sel('bar', 'Exists'), 'zone'), term(sel('labelB', 'Exists'), 'zone')] },
      },
    ],
    nodes: [...abNodes, ['nodeC', { region: 'r1', zone: 'z3', hostname: 'nodeC' }]],
    want: ['existing', 'existing', 'ok'],
  },
  {
    name: "Test incoming pod's affinity: all terms must match one pod, then every topology key must be on the node",
    pod: {
      aff: { affinity: [term(sel('foo', 'Exists'), 'region'), term(sel('bar', 'Exists'), 'zone')] },
    },
    pods: [{ node: 'nodeA', labels: { foo: '', bar: '' } }],
    nodes: [
      ['nodeA', { region: 'r1', zone: 'z1', hostname: 'nodeA' }],
      ['nodeB', { region: 'r1', zone: 'z1', hostname: 'nodeB' }],
    ],
    want: ['ok', 'ok'],
  },
  {
    name: "Test incoming pod's affinity: terms matched by different pods don't add up",
    pod: {
      aff: { affinity: [term(sel('foo', 'Exists'), 'region'), term(sel('bar', 'Exists'), 'zone')] },
    },
    pods: [
      { node: 'nodeA', labels: { foo: '' } },
      { node: 'nodeB', labels: { bar: '' } },
    ],
    nodes: [
      ['nodeA', { region: 'r1', zone: 'z1', hostname: 'nodeA' }],
      ['nodeB', { region: 'r1', zone: 'z1', hostname: 'nodeB' }],
    ],
    want: ['affinity', 'affinity'],
  },
  {
    name: 'Affinity is checked before anti-affinity: a node failing both is unresolvable',
    pod: {
      labels: { app: 'x' },
      aff: {
        affinity: [term(sel('app', 'In', 'db'), 'zone')],
        anti: [term(sel('app', 'In', 'x'), 'zone')],
      },
    },
    pods: [
      { node: 'nodeA', labels: { app: 'x' } },
      { node: 'nodeB', labels: { app: 'db' } },
    ],
    nodes: abNodes,
    want: ['affinity', 'ok'],
  },
  {
    name: 'A namespaceSelector in the incoming pod’s affinity selects pods by their Namespace’s labels',
    pod: {
      ns: 'subteam1.team1',
      aff: {
        affinity: [
          term(sel('app', 'In', 'db'), 'zone', {
            namespaceSelector: { matchLabels: { team: 'team2' } },
          }),
        ],
      },
    },
    pods: [
      { node: 'nodeA', labels: { app: 'db' }, ns: 'subteam1.team1' },
      { node: 'nodeB', labels: { app: 'db' }, ns: 'subteam1.team2' },
    ],
    nodes: abNodes,
    namespaces: [
      ['subteam1.team1', { team: 'team1' }],
      ['subteam1.team2', { team: 'team2' }],
    ],
    want: ['affinity', 'ok'],
  },
  {
    name: 'An empty namespaceSelector selects pods of every namespace',
    pod: { aff: { anti: [term(sel('app', 'In', 'db'), 'zone', { namespaceSelector: {} })] } },
    pods: [{ node: 'nodeA', labels: { app: 'db' }, ns: 'elsewhere' }],
    nodes: abNodes,
    want: ['anti', 'ok'],
  },
  {
    name: 'A namespaceSelector selects no pod of a namespace the cluster does not know',
    pod: {
      aff: {
        anti: [
          term(sel('app', 'In', 'db'), 'zone', { namespaceSelector: sel('team', 'DoesNotExist') }),
        ],
      },
    },
    pods: [{ node: 'nodeA', labels: { app: 'db' }, ns: 'unknown' }],
    nodes: abNodes,
    want: ['ok', 'ok'],
  },
  {
    name: 'An existing pod’s namespaceSelector is read against the incoming pod’s Namespace labels',
    pod: { ns: 'subteam1.team1', labels: { app: 'web' } },
    pods: [
      {
        node: 'nodeA',
        aff: {
          anti: [
            term(sel('app', 'In', 'web'), 'zone', {
              namespaceSelector: { matchLabels: { team: 'team1' } },
            }),
          ],
        },
      },
      {
        node: 'nodeB',
        aff: {
          anti: [
            term(sel('app', 'In', 'web'), 'zone', {
              namespaceSelector: { matchLabels: { team: 'team2' } },
            }),
          ],
        },
      },
    ],
    nodes: abNodes,
    namespaces: [['subteam1.team1', { team: 'team1' }]],
    want: ['existing', 'ok'],
  },
  {
    name: 'An existing pod’s namespaceSelector also applies when the incoming pod’s Namespace is unknown (no labels)',
    pod: { ns: 'nowhere', labels: { app: 'web' } },
    pods: [
      {
        node: 'nodeA',
        aff: {
          anti: [
            term(sel('app', 'In', 'web'), 'zone', {
              namespaceSelector: sel('team', 'DoesNotExist'),
            }),
          ],
        },
      },
    ],
    nodes: abNodes,
    want: ['existing', 'ok'],
  },
  {
    name: 'matchLabelKeys narrow the affinity to pods sharing the pod’s own label value',
    pod: {
      labels: { app: 'web', rev: 'r2' },
      aff: { affinity: [term(sel('app', 'In', 'web'), 'zone', { matchLabelKeys: ['rev'] })] },
    },
    pods: [
      { node: 'nodeA', labels: { app: 'web', rev: 'r1' } },
      { node: 'nodeB', labels: { app: 'web', rev: 'r2' } },
    ],
    nodes: abNodes,
    want: ['affinity', 'ok'],
  },
  {
    name: 'mismatchLabelKeys keep the anti-affinity off pods with the same label value',
    pod: {
      labels: { app: 'web', tenant: 't1' },
      aff: { anti: [term(sel('app', 'In', 'web'), 'zone', { mismatchLabelKeys: ['tenant'] })] },
    },
    pods: [
      { node: 'nodeA', labels: { app: 'web', tenant: 't1' } },
      { node: 'nodeB', labels: { app: 'web', tenant: 't2' } },
    ],
    nodes: abNodes,
    want: ['ok', 'anti'],
  },
];

describe('InterPodAffinity Filter', () => {
  for (const c of filterCases) {
    it(c.name, () => {
      const state = cluster(c.nodes, c.pods, c.namespaces);
      const pod = podInfo(c.pod);
      const want = c.want.map((w) => statusOf[w]);
      expect(filterAll(pod, state)).toEqual(want);
      expect(filterAll(pod, withoutIndex(state))).toEqual(want);
    });
  }

  it('skips (passes every node) when neither the pod nor any existing pod has terms that apply', () => {
    const state = cluster(abNodes, [
      {
        node: 'nodeA',
        labels: { app: 'db' },
        aff: { anti: [term(sel('app', 'In', 'other'), 'zone')] },
      },
    ]);
    const pod = podInfo({ labels: { app: 'db' } });
    const cycle: CycleState = new Map();
    interPodAffinity.preFilter(pod, cycle, state);
    expect(interPodAffinity.preFilterSkip(pod, cycle)).toBe(true);
    expect(interPodAffinity.filter(pod, state.nodeOrder[0] as NodeInfo, cycle)).toEqual(
      statusOf.ok,
    );
    const repelled: CycleState = new Map();
    const other = podInfo({ labels: { app: 'other' } });
    interPodAffinity.preFilter(other, repelled, state);
    expect(interPodAffinity.preFilterSkip(other, repelled)).toBe(false);
  });

  it('errs when PreFilter did not run', () => {
    const state = cluster(abNodes);
    const s = interPodAffinity.filter(podInfo({}), state.nodeOrder[0] as NodeInfo, new Map());
    expect(s.code).toBe('Error');
  });

  it('ignores the pods of a deleted node (kept absent until they go)', () => {
    const state = cluster(abNodes, [{ node: 'nodeA', labels: { app: 'db' } }]);
    const pod = podInfo({ aff: { anti: [term(sel('app', 'In', 'db'), 'region')] } });
    expect(filterAll(pod, state).map((s) => s.code)).toEqual(['Unschedulable', 'Unschedulable']);
    evolve(state, { seq: 99, time: 0, event: { type: 'NodeDeleted', name: 'nodeA' } });
    expect(filterAll(pod, state).map((s) => s.code)).toEqual(['Success']);
  });

  it('ignores the required anti-affinity of pods on a deleted node (the index still lists it)', () => {
    const state = cluster(abNodes, [
      { node: 'nodeA', aff: { anti: [term(sel('app', 'In', 'db'), 'region')] } },
    ]);
    const pod = podInfo({ labels: { app: 'db' } });
    expect(filterAll(pod, state).map((s) => s.code)).toEqual(['Unschedulable', 'Unschedulable']);
    evolve(state, { seq: 99, time: 0, event: { type: 'NodeDeleted', name: 'nodeA' } });
    expect(state.podAffinityIndex?.withRequiredAntiAffinity.has('nodeA')).toBe(true);
    expect(filterAll(pod, state)).toEqual([statusOf.ok]);
    expect(scoreAll(podInfo({ labels: { app: 'db' } }), state)).toEqual([0]);
  });
});

// --- score ---

interface ScoreCase {
  name: string;
  pod: PodSpec;
  pods?: PodSpec[];
  nodes: [string, Labels][];
  namespaces?: [string, Labels][];
  args?: unknown;
  want: number[];
}

function scoreAll(pod: PodInfo, snapshot: ClusterSnapshot, args?: unknown): number[] {
  const plugin = newInterPodAffinity(args);
  const state: CycleState = new Map();
  if (plugin.preScoreSkip(pod, state, snapshot)) return snapshot.nodeOrder.map(() => 0);
  plugin.preScore(pod, state, snapshot);
  const scores = snapshot.nodeOrder.map((n) => plugin.score(pod, n, state));
  plugin.normalize(pod, scores, state);
  return scores;
}

const china = { region: 'China' };
const india = { region: 'India' };
const az1 = { az: 'az1' };
const az2 = { az: 'az2' };
const chinaAz1 = { region: 'China', az: 'az1' };
const S1 = { security: 'S1' };
const S2 = { security: 'S2' };
const stayWithS1InRegion: Affinity = {
  prefer: [weighted(5, term(sel('security', 'In', 'S1'), 'region'))],
};
const stayWithS2InRegion: Affinity = {
  prefer: [weighted(6, term(sel('security', 'In', 'S2'), 'region'))],
};
const affinity3: Affinity = {
  prefer: [
    weighted(8, term(and(sel('security', 'NotIn', 'S1'), sel('security', 'In', 'S2')), 'region')),
    weighted(2, term(and(sel('security', 'Exists'), sel('wrongkey', 'DoesNotExist')), 'region')),
  ],
};
const hardAffinity: Affinity = {
  affinity: [
    term(sel('security', 'In', 'S1', 'value2'), 'region'),
    term(and(sel('security', 'Exists'), sel('wrongkey', 'DoesNotExist')), 'region'),
  ],
};
const awayFromS1InAz: Affinity = {
  preferAnti: [weighted(5, term(sel('security', 'In', 'S1'), 'az'))],
};
const awayFromS2InAz: Affinity = {
  preferAnti: [weighted(5, term(sel('security', 'In', 'S2'), 'az'))],
};
const stayWithS1AwayFromS2: Affinity = {
  prefer: [weighted(8, term(sel('security', 'In', 'S1'), 'region'))],
  preferAnti: [weighted(5, term(sel('security', 'In', 'S2'), 'az'))],
};
const team1 = { matchExpressions: [{ key: 'team', operator: 'In', values: ['team1'] }] };
const nsTerm = term(sel('security', 'In', 'S1'), 'region', {
  namespaces: ['subteam2.team2'],
  namespaceSelector: team1,
});
const affinityNamespaceSelector: Affinity = { prefer: [weighted(5, nsTerm)] };
const antiAffinityNamespaceSelector: Affinity = { preferAnti: [weighted(5, nsTerm)] };
const teams: [string, Labels][] = [
  ['subteam1.team1', { team: 'team1' }],
  ['subteam2.team1', { team: 'team1' }],
  ['subteam1.team2', { team: 'team2' }],
  ['subteam2.team2', { team: 'team2' }],
];
const three: [string, Labels][] = [
  ['node1', china],
  ['node2', india],
  ['node3', az1],
];

const scoreCases: ScoreCase[] = [
  {
    name: 'all nodes are same priority as Affinity is nil',
    pod: { labels: S1 },
    nodes: three,
    want: [0, 0, 0],
  },
  {
    name: 'Affinity: a pod matching the topology key and pods on nodes gets a high score compared to others',
    pod: { labels: S1, aff: stayWithS1InRegion },
    pods: [
      { node: 'node1', labels: S1 },
      { node: 'node2', labels: S2 },
      { node: 'node3', labels: S1 },
    ],
    nodes: three,
    want: [100, 0, 0],
  },
  {
    name: 'All the nodes sharing the topology key and value with a node holding a matching pod score the same',
    pod: { aff: stayWithS1InRegion },
    pods: [{ node: 'node1', labels: S1 }],
    nodes: [
      ['node1', china],
      ['node2', chinaAz1],
      ['node3', india],
    ],
    want: [100, 100, 0],
  },
  {
    name: 'Affinity: the region with more matching pods gets the high score',
    pod: { labels: S1, aff: stayWithS2InRegion },
    pods: ['node1', 'node1', 'node2', 'node3', 'node4', 'node5'].map((node) => ({
      node,
      labels: S2,
    })),
    nodes: [
      ['node1', china],
      ['node2', india],
      ['node3', china],
      ['node4', china],
      ['node5', india],
    ],
    want: [100, 0, 100, 100, 0],
  },
  {
    name: 'Affinity: different label operators and values, including some match failures',
    pod: { labels: S1, aff: affinity3 },
    pods: [
      { node: 'node1', labels: S1 },
      { node: 'node2', labels: S2 },
      { node: 'node3', labels: S1 },
    ],
    nodes: three,
    want: [20, 100, 0],
  },
  {
    name: 'Affinity symmetry: existing pods’ preferred affinity toward the incoming pod counts',
    pod: { labels: S2 },
    pods: [
      { node: 'node1', labels: S1, aff: stayWithS1InRegion },
      { node: 'node2', labels: S2, aff: stayWithS2InRegion },
    ],
    nodes: three,
    want: [0, 100, 0],
  },
  {
    name: 'Affinity symmetry with namespace selector',
    pod: { ns: 'subteam1.team1', labels: S1 },
    pods: [
      { node: 'node1', labels: S1, aff: affinityNamespaceSelector },
      { node: 'node2', labels: S2, aff: stayWithS2InRegion },
    ],
    nodes: three,
    namespaces: teams,
    want: [100, 0, 0],
  },
  {
    name: 'AntiAffinity symmetry with namespace selector',
    pod: { ns: 'subteam1.team1', labels: S1 },
    pods: [
      { node: 'node1', labels: S1, aff: antiAffinityNamespaceSelector },
      { node: 'node2', labels: S2, aff: stayWithS2InRegion },
    ],
    nodes: three,
    namespaces: teams,
    want: [0, 100, 100],
  },
  {
    name: 'Affinity symmetry: existing pods’ required affinity counts with hardPodAffinityWeight',
    pod: { labels: S1 },
    pods: [
      { node: 'node1', labels: S1, aff: hardAffinity },
      { node: 'node2', labels: S2, aff: hardAffinity },
    ],
    nodes: three,
    want: [100, 100, 0],
  },
  {
    name: 'Anti Affinity: a pod that does not match existing pods in the node gets a high score',
    pod: { labels: S1, aff: awayFromS1InAz },
    pods: [
      { node: 'node1', labels: S1 },
      { node: 'node2', labels: S2 },
    ],
    nodes: [
      ['node1', az1],
      ['node2', china],
    ],
    want: [0, 100],
  },
  {
    name: 'Anti Affinity: the node with more matching pods scores lower',
    pod: { labels: S1, aff: awayFromS1InAz },
    pods: [
      { node: 'node1', labels: S1 },
      { node: 'node1', labels: S1 },
      { node: 'node2', labels: S2 },
    ],
    nodes: [
      ['node1', az1],
      ['node2', india],
    ],
    want: [0, 100],
  },
  {
    name: 'Anti Affinity symmetry: the node whose existing pod repels the incoming pod scores low',
    pod: { labels: S2 },
    pods: [
      { node: 'node1', labels: S1, aff: awayFromS2InAz },
      { node: 'node2', labels: S2, aff: awayFromS1InAz },
    ],
    nodes: [
      ['node1', az1],
      ['node2', az2],
    ],
    want: [0, 100],
  },
  {
    name: 'Affinity and Anti Affinity: both preferred kinds on the incoming pod',
    pod: { labels: S1, aff: stayWithS1AwayFromS2 },
    pods: [
      { node: 'node1', labels: S1 },
      { node: 'node2', labels: S1 },
    ],
    nodes: [
      ['node1', china],
      ['node2', az1],
    ],
    want: [100, 0],
  },
  {
    name: 'Affinity and Anti Affinity: pods of one service stay in a region but apart at node level',
    pod: { labels: S1, aff: stayWithS1AwayFromS2 },
    pods: ['node1', 'node1', 'node2', 'node3', 'node3', 'node4', 'node5'].map((node) => ({
      node,
      labels: S1,
    })),
    nodes: [
      ['node1', chinaAz1],
      ['node2', india],
      ['node3', china],
      ['node4', china],
      ['node5', india],
    ],
    want: [100, 0, 100, 100, 0],
  },
  {
    name: 'Affinity, Anti Affinity and symmetry together',
    pod: { labels: S1, aff: stayWithS1AwayFromS2 },
    pods: [
      { node: 'node1', labels: S1 },
      { node: 'node2', labels: S2 },
      { node: 'node3', aff: stayWithS1AwayFromS2 },
      { node: 'node4', aff: awayFromS1InAz },
    ],
    nodes: [
      ['node1', china],
      ['node2', az1],
      ['node3', india],
      ['node4', az2],
    ],
    want: [100, 0, 100, 0],
  },
  {
    name: 'Avoid panic when partial nodes in a topology don’t have pods with affinity',
    pod: { labels: S1 },
    pods: [
      { node: 'node1', labels: S1 },
      { node: 'node2', aff: stayWithS1AwayFromS2 },
    ],
    nodes: [
      ['node1', china],
      ['node2', china],
    ],
    want: [0, 0],
  },
  {
    name: 'Affinity with pods matching NamespaceSelector',
    pod: { ns: 'subteam1.team1', labels: S1, aff: affinityNamespaceSelector },
    pods: [
      { node: 'node1', ns: 'subteam1.team1', labels: S1 },
      { node: 'node1', ns: 'subteam1.team1', labels: S1 },
      { node: 'node1', ns: 'subteam1.team2', labels: S1 },
      { node: 'node2', ns: 'subteam2.team1', labels: S1 },
    ],
    nodes: [
      ['node1', china],
      ['node2', india],
    ],
    namespaces: teams,
    want: [100, 0],
  },
  {
    name: 'Anti-affinity with pods matching both NamespaceSelector and Namespaces fields',
    pod: { ns: 'subteam1.team1', labels: S1, aff: antiAffinityNamespaceSelector },
    pods: [
      { node: 'node1', ns: 'subteam1.team1', labels: S1 },
      { node: 'node1', ns: 'subteam1.team1', labels: S1 },
      { node: 'node1', ns: 'subteam2.team2', labels: S1 },
      { node: 'node2', ns: 'subteam2.team1', labels: S1 },
    ],
    nodes: [
      ['node1', china],
      ['node2', india],
    ],
    namespaces: teams,
    want: [0, 100],
  },
  {
    name: 'Ignore preferred terms of existing pods',
    pod: { labels: S2 },
    pods: [
      { node: 'node1', labels: S1, aff: stayWithS1AwayFromS2 },
      { node: 'node2', labels: S2, aff: stayWithS2InRegion },
    ],
    nodes: [
      ['node1', china],
      ['node2', india],
    ],
    args: { ignorePreferredTermsOfExistingPods: true },
    want: [0, 0],
  },
  {
    name: 'Do not ignore preferred terms of existing pods',
    pod: { labels: S2 },
    pods: [
      { node: 'node1', labels: S1, aff: stayWithS1AwayFromS2 },
      { node: 'node2', labels: S2, aff: stayWithS2InRegion },
    ],
    nodes: [
      ['node1', china],
      ['node2', india],
    ],
    want: [0, 100],
  },
  {
    name: 'Normalisation truncates kube’s way: 100 × ((s − min) / (max − min)), negative scores included',
    pod: {
      labels: S1,
      aff: {
        preferAnti: [weighted(3, term(sel('security', 'In', 'S1'), 'az'))],
        prefer: [weighted(10, term(sel('x', 'Exists'), 'az'))],
      },
    },
    pods: [
      { node: 'node1', labels: S1 },
      { node: 'node2', labels: { x: '' } },
      { node: 'node2', labels: S1 },
    ],
    nodes: [
      ['node1', az1],
      ['node2', az2],
      ['node3', { az: 'az3' }],
    ],
    // raw: −3, 10 − 3 = 7, 0 → min −3, max 7: 0, 100, trunc(100 × 0.3) = 30
    want: [0, 100, 30],
  },
  {
    name: 'Normalisation divides first, as kube does: 100 × (29 / 100) truncates to 28, not 29',
    pod: {
      aff: {
        prefer: [
          weighted(100, term(sel('x', 'Exists'), 'az')),
          weighted(29, term(sel('y', 'Exists'), 'az')),
        ],
      },
    },
    pods: [
      { node: 'node2', labels: { x: '' } },
      { node: 'node3', labels: { y: '' } },
    ],
    nodes: [
      ['node1', az1],
      ['node2', az2],
      ['node3', { az: 'az3' }],
    ],
    want: [0, 100, 28],
  },
];

const hardPodAffinity: Affinity = {
  affinity: [
    term(sel('service', 'In', 'S1'), 'region', {
      namespaces: ['default', 'subteam2.team2'],
      namespaceSelector: team1,
    }),
  ],
};
const hardPods: PodSpec[] = [
  { node: 'node1', aff: hardPodAffinity },
  { node: 'node2', aff: hardPodAffinity },
];
const serviceS1 = { service: 'S1' };
const weightCases: ScoreCase[] = [
  {
    name: 'with default weight',
    pod: { labels: serviceS1 },
    pods: hardPods,
    nodes: three,
    namespaces: teams,
    want: [100, 100, 0],
  },
  {
    name: 'with a weight of 50: same ranking',
    pod: { labels: serviceS1 },
    pods: hardPods,
    nodes: three,
    namespaces: teams,
    args: { hardPodAffinityWeight: 50 },
    want: [100, 100, 0],
  },
  {
    name: 'with zero weight',
    pod: { labels: serviceS1 },
    pods: hardPods,
    nodes: three,
    namespaces: teams,
    args: { hardPodAffinityWeight: 0 },
    want: [0, 0, 0],
  },
  {
    name: 'with no matching namespace',
    pod: { ns: 'subteam1.team2', labels: serviceS1 },
    pods: hardPods,
    nodes: three,
    namespaces: teams,
    want: [0, 0, 0],
  },
  {
    name: 'with matching NamespaceSelector',
    pod: { ns: 'subteam1.team1', labels: serviceS1 },
    pods: hardPods,
    nodes: three,
    namespaces: teams,
    want: [100, 100, 0],
  },
  {
    name: 'with matching Namespaces',
    pod: { ns: 'subteam2.team2', labels: serviceS1 },
    pods: hardPods,
    nodes: three,
    namespaces: teams,
    want: [100, 100, 0],
  },
  {
    name: 'hardPodAffinityWeight against a preferred weight: 1 × 1 hard term loses to a weight-5 preference elsewhere',
    pod: { labels: serviceS1 },
    pods: [
      { node: 'node1', aff: hardPodAffinity },
      { node: 'node2', aff: { prefer: [weighted(5, term(sel('service', 'In', 'S1'), 'region'))] } },
    ],
    nodes: three,
    want: [20, 100, 0],
  },
  {
    name: 'hardPodAffinityWeight against a preferred weight: 10 × 1 hard term wins',
    pod: { labels: serviceS1 },
    pods: [
      { node: 'node1', aff: hardPodAffinity },
      { node: 'node2', aff: { prefer: [weighted(5, term(sel('service', 'In', 'S1'), 'region'))] } },
    ],
    nodes: three,
    args: { hardPodAffinityWeight: 10 },
    want: [100, 50, 0],
  },
];

describe('InterPodAffinity Score', () => {
  for (const c of [...scoreCases, ...weightCases]) {
    it(c.name, () => {
      const state = cluster(c.nodes, c.pods, c.namespaces);
      const pod = podInfo(c.pod);
      expect(scoreAll(pod, state, c.args)).toEqual(c.want);
      expect(scoreAll(pod, withoutIndex(state), c.args)).toEqual(c.want);
    });
  }

  it('skips PreScore for a pod without preferred terms when existing pods’ terms are ignored or absent', () => {
    const plain = podInfo({});
    const prefers = podInfo({ aff: stayWithS1InRegion });
    const withTerms = cluster(three, [{ node: 'node1', aff: stayWithS1InRegion }]);
    const without = cluster(three, [{ node: 'node1', labels: S1 }]);
    const skip = (p: typeof interPodAffinity, pod: PodInfo, s: ClusterSnapshot) =>
      p.preScoreSkip(pod, new Map(), s);
    expect(skip(interPodAffinity, plain, withTerms)).toBe(false);
    expect(skip(interPodAffinity, plain, withoutIndex(withTerms))).toBe(false);
    expect(skip(interPodAffinity, plain, without)).toBe(true);
    expect(skip(interPodAffinity, plain, withoutIndex(without))).toBe(true);
    expect(skip(interPodAffinity, prefers, without)).toBe(false);
    const ignoring = newInterPodAffinity({ ignorePreferredTermsOfExistingPods: true });
    expect(skip(ignoring, plain, withTerms)).toBe(true);
    expect(skip(ignoring, prefers, withTerms)).toBe(false);
  });

  it('leaves every score 0 when no pair was weighed (kube skips the plugin)', () => {
    const scores = [5, 7];
    const state: CycleState = new Map();
    interPodAffinity.preScore(podInfo({}), state, cluster(three));
    interPodAffinity.normalize(podInfo({}), scores, state);
    expect(scores).toEqual([5, 7]);
  });
});

describe('newInterPodAffinity arguments', () => {
  const bad: [unknown, RegExp][] = [
    [{ hardPodAffinityWeight: 101 }, /hardPodAffinityWeight: 101 not in valid range \[0, 100\]/],
    [{ hardPodAffinityWeight: -1 }, /hardPodAffinityWeight: -1 not in valid range \[0, 100\]/],
    [{ hardPodAffinityWeight: 1.5 }, /hardPodAffinityWeight: must be an integer, got 1.5/],
    [{ hardPodAffinityWeight: '2' }, /hardPodAffinityWeight: must be an integer, got "2"/],
    [
      { ignorePreferredTermsOfExistingPods: 'yes' },
      /ignorePreferredTermsOfExistingPods: must be true or false/,
    ],
    [{ hardPodAfinityWeight: 2 }, /hardPodAfinityWeight: unknown field/],
    ['x', /args must be a mapping/],
    [[1], /args must be a mapping/],
  ];
  for (const [args, message] of bad) {
    it(`rejects ${JSON.stringify(args)}`, () =>
      expect(() => newInterPodAffinity(args)).toThrow(message));
  }

  it('accepts kube’s range bounds and the defaults', () => {
    expect(() => newInterPodAffinity({ hardPodAffinityWeight: 0 })).not.toThrow();
    expect(() => newInterPodAffinity({ hardPodAffinityWeight: 100 })).not.toThrow();
    expect(() => newInterPodAffinity(undefined)).not.toThrow();
    expect(() => newInterPodAffinity({})).not.toThrow();
  });
});

// --- the whole cycle ---

describe('InterPodAffinity in the default profile', () => {
  const ctx = () => ({
    // Without PostFilters: these tests read the filters' part of the message.
    profile: profileFromConfig({ postFilters: [] }),
    rng: seededRng(1),
    cursor: { next: 0 },
    percentageOfNodesToScore: 0,
  });

  it('rejects a pod whose anti-affinity every node violates, with kube’s FitError message', () => {
    const state = cluster(abNodes, [
      { node: 'nodeA', labels: { app: 'db' } },
      { node: 'nodeB', labels: { app: 'db' } },
    ]);
    const pod = podInfo({
      labels: { app: 'db' },
      aff: { anti: [term(sel('app', 'In', 'db'), 'hostname')] },
    });
    const r = scheduleOne(pod, state, ctx());
    expect(r).toMatchObject({
      kind: 'Unschedulable',
      message: "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.",
    });
  });

  it('places the pod next to the one its affinity names', () => {
    const state = cluster(
      [
        ['n1', { zone: 'a' }],
        ['n2', { zone: 'b' }],
        ['n3', { zone: 'b' }],
      ],
      [{ node: 'n1', labels: { app: 'cache' } }],
    );
    const pod = podInfo({ aff: { affinity: [term(sel('app', 'In', 'cache'), 'zone')] } });
    expect(scheduleOne(pod, state, ctx())).toMatchObject({ kind: 'Scheduled', node: 'n1' });
  });

  it('prefers the zone its preferred affinity names', () => {
    const state = cluster(
      [
        ['n1', { zone: 'a' }],
        ['n2', { zone: 'b' }],
      ],
      [{ node: 'n2', labels: { app: 'cache' } }],
    );
    const pod = podInfo({
      aff: { prefer: [weighted(100, term(sel('app', 'In', 'cache'), 'zone'))] },
    });
    expect(scheduleOne(pod, state, ctx())).toMatchObject({ kind: 'Scheduled', node: 'n2' });
  });
});

// --- queueing hint ---

describe('InterPodAffinity queueing hint', () => {
  const info = (o: PodSpec = {}) => podInfo(o);
  const bound = (p: PodInfo, node = 'n1'): PodRecord => ({
    info: p,
    charge: { kind: 'bound', node },
  });
  const unbound = (p: PodInfo): PodRecord => ({ info: p, charge: { kind: 'none' } });
  const node = (labels: Labels) => cluster([['n1', labels]]).nodeOrder[0] as NodeInfo;
  const a = info({ labels: { app: 'a' } });
  const b = { ...a, labels: { app: 'b' } };
  const cases: [string, Parameters<typeof interPodAffinityQueueingHint>[0], boolean][] = [
    [
      'a placed pod added',
      { kind: 'pod', uid: 'u', before: undefined, after: bound(a), replaced: undefined },
      true,
    ],
    [
      'a placed pod deleted',
      { kind: 'pod', uid: 'u', before: bound(a), after: undefined, replaced: undefined },
      true,
    ],
    [
      'a placed pod relabelled',
      { kind: 'pod', uid: 'u', before: bound(a), after: bound(b), replaced: undefined },
      true,
    ],
    [
      'a placed pod updated without a label change',
      { kind: 'pod', uid: 'u', before: bound(a), after: bound(a), replaced: undefined },
      false,
    ],
    [
      'an unscheduled pod added',
      { kind: 'pod', uid: 'u', before: undefined, after: unbound(a), replaced: undefined },
      false,
    ],
    [
      'an unscheduled pod relabelled',
      { kind: 'pod', uid: 'u', before: unbound(a), after: unbound(b), replaced: undefined },
      false,
    ],
    [
      'a pending pod bound',
      { kind: 'pod', uid: 'u', before: unbound(a), after: bound(a), replaced: undefined },
      true,
    ],
    ['a node added', { kind: 'node', name: 'n1', before: undefined, after: node({}) }, true],
    ['a node deleted', { kind: 'node', name: 'n1', before: node({}), after: undefined }, true],
    [
      'a node relabelled',
      { kind: 'node', name: 'n1', before: node({ zone: 'a' }), after: node({ zone: 'b' }) },
      true,
    ],
    [
      'a node changed but not its labels',
      { kind: 'node', name: 'n1', before: node({ zone: 'a' }), after: node({ zone: 'a' }) },
      false,
    ],
    [
      'a charge moved',
      {
        kind: 'charge',
        uid: 'u',
        before: { kind: 'none' },
        after: { kind: 'assumed', node: 'n1', attempt: 1 },
      },
      true,
    ],
    ['a relist removing pods', { kind: 'resync', removedNodes: [], removedPods: [bound(a)] }, true],
    ['a relist removing nothing', { kind: 'resync', removedNodes: [], removedPods: [] }, false],
    [
      'a Namespace relabelled',
      {
        kind: 'object',
        objectKind: 'Namespace',
        key: 'ns',
        before: { name: 'ns', labels: { team: 'a' } },
        after: { name: 'ns', labels: { team: 'b' } },
      },
      true,
    ],
    [
      'a Namespace added',
      {
        kind: 'object',
        objectKind: 'Namespace',
        key: 'ns',
        before: undefined,
        after: { name: 'ns', labels: {} },
      },
      true,
    ],
    [
      'a Namespace updated without a label change',
      {
        kind: 'object',
        objectKind: 'Namespace',
        key: 'ns',
        before: { name: 'ns', labels: { t: 'a' } },
        after: { name: 'ns', labels: { t: 'a' } },
      },
      false,
    ],
    [
      'a Service changed',
      {
        kind: 'object',
        objectKind: 'Service',
        key: 'ns/s',
        before: undefined,
        after: { kind: 'Service', namespace: 'ns', name: 's', selector: undefined },
      },
      false,
    ],
    ['nothing', { kind: 'none' }, false],
  ];
  for (const [what, change, want] of cases) {
    it(`${want ? 'requeues' : 'keeps parked'} on ${what}`, () =>
      expect(interPodAffinityQueueingHint(change)).toBe(want));
  }
});
