// Pins PodTopologySpread's default constraints: args, the deduced selector, and system-default scoring.
import { describe, expect, it } from 'vitest';
import { makeNodeWith, makePod } from '../../../test/support/builders.ts';
import { emptyObjectStore, objectParsers } from '../../cluster/cluster-objects.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../../cluster/types.ts';
import type { CycleState } from '../../framework/types.ts';
import { newPodTopologySpread, podTopologySpread } from '../pod-topology-spread.ts';
import { constraintsFor, defaultSelector, defaultSpreadArgs, parseSpreadArgs } from './defaults.ts';

const host = 'kubernetes.io/hostname';
const zone = 'topology.kubernetes.io/zone';

function snapshot(nodes: NodeInfo[], objects: [string, unknown][] = []): ClusterSnapshot {
  const store = emptyObjectStore();
  for (const [kind, raw] of objects) {
    const parsed = objectParsers[kind as 'Service'](raw);
    if ('rejected' in parsed) throw new Error(parsed.rejected);
    const v = parsed.value;
    (store[kind as 'Service'] as Map<string, unknown>).set(`${v.namespace}/${v.name}`, v);
  }
  return {
    nodes: new Map(nodes.map((n) => [n.name, n])),
    nodeOrder: nodes,
    nodeIndex: new Map(nodes.map((n, i) => [n.name, i])),
    topology: new Map(),
    nominated: new Map(),
    imageStates: new Map(),
    objects: store,
  };
}

const svc = (name: string, selector: Record<string, string>, namespace = 'default') => [
  'Service',
  { metadata: { name, namespace }, spec: { selector } },
];
const rs = (kind: string, name: string, selector: unknown) => [
  kind,
  { metadata: { name, namespace: 'default' }, spec: { selector } },
];
const owned = (kind: string, name: string, apiVersion = 'apps/v1') => ({
  apiVersion,
  kind,
  name,
});

describe('parseSpreadArgs', () => {
  it('defaults to System defaulting with kube’s two ScheduleAnyway constraints', () => {
    expect(parseSpreadArgs(undefined)).toBe(defaultSpreadArgs);
    expect(parseSpreadArgs({ defaultingType: 'System' }).defaultConstraints).toEqual([
      { maxSkew: 3, topologyKey: host, whenUnsatisfiable: 'ScheduleAnyway' },
      { maxSkew: 5, topologyKey: zone, whenUnsatisfiable: 'ScheduleAnyway' },
    ]);
  });

  it('takes a List of constraints', () => {
    const c = { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' };
    expect(parseSpreadArgs({ defaultingType: 'List', defaultConstraints: [c] })).toEqual({
      defaultingType: 'List',
      defaultConstraints: [c],
    });
    expect(parseSpreadArgs({ defaultingType: 'List' }).defaultConstraints).toEqual([]);
  });

  it.each([
    [{ defaultingType: 'Cluster' }, 'defaultingType must be System or List, got "Cluster"'],
    [
      {
        defaultConstraints: [{ maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' }],
      },
      'defaultConstraints must be empty when defaultingType is System',
    ],
    [
      {
        defaultingType: 'List',
        defaultConstraints: [{ maxSkew: 0, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' }],
      },
      'defaultConstraints[0].maxSkew must be an integer ≥ 1, got 0',
    ],
    [
      {
        defaultingType: 'List',
        defaultConstraints: [
          { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule', labelSelector: {} },
        ],
      },
      'defaultConstraints[0].labelSelector: not allowed',
    ],
    [
      {
        defaultingType: 'List',
        defaultConstraints: [
          { maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' },
          { maxSkew: 2, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' },
        ],
      },
      'defaultConstraints[1]: {topology.kubernetes.io/zone, DoNotSchedule} is listed twice',
    ],
    [
      {
        defaultingType: 'List',
        defaultConstraints: [{ maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'Maybe' }],
      },
      'whenUnsatisfiable must be DoNotSchedule or ScheduleAnyway',
    ],
    [{ spread: true }, 'unknown field "spread"'],
  ])('refuses %j naming the field', (args, message) => {
    expect(() => newPodTopologySpread(args)).toThrow(message);
  });
});

describe('defaultSelector (kube’s DefaultSelector)', () => {
  const pod = (o: { labels?: Record<string, string>; namespace?: string; owner?: unknown } = {}) =>
    makePod({
      name: 'p',
      labels: o.labels ?? { app: 'web', tier: 'fe' },
      namespace: o.namespace ?? 'default',
      ...(o.owner === undefined ? {} : { controllerRef: o.owner as PodInfo['controllerRef'] }),
    });
  const sel = (p: PodInfo, objects: [string, unknown][]) =>
    defaultSelector(p, snapshot([], objects).objects)?.requirements.map(
      (r) => `${r.key} ${r.operator} ${r.values.join(',')}`,
    );

  it('merges the selectors of the Services in the pod’s namespace that select it', () => {
    const objects = [
      svc('web', { app: 'web' }),
      svc('fe', { tier: 'fe' }),
      svc('other', { app: 'db' }),
      svc('elsewhere', { app: 'web', x: 'y' }, 'team'),
    ] as [string, unknown][];
    expect(sel(pod(), objects)).toEqual(['app In web', 'tier In fe']);
  });

  it('adds the controller’s selector: an RC’s labels, a ReplicaSet’s or StatefulSet’s requirements', () => {
    const objects = [
      rs('ReplicationController', 'rc', { app: 'web' }),
      rs('ReplicaSet', 'web-rs', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }),
      rs('StatefulSet', 'web-ss', { matchLabels: { tier: 'fe' } }),
    ] as [string, unknown][];
    expect(sel(pod({ owner: owned('ReplicationController', 'rc', 'v1') }), objects)).toEqual([
      'app In web',
    ]);
    expect(sel(pod({ owner: owned('ReplicaSet', 'web-rs') }), objects)).toEqual(['tier Exists ']);
    expect(sel(pod({ owner: owned('StatefulSet', 'web-ss') }), objects)).toEqual(['tier In fe']);
  });

  it('gives none without a selecting Service or a known controller', () => {
    const objects = [rs('ReplicaSet', 'web-rs', { matchLabels: { app: 'web' } })] as [
      string,
      unknown,
    ][];
    expect(sel(pod(), objects)).toBeUndefined();
    expect(sel(pod({ owner: owned('ReplicaSet', 'missing') }), objects)).toBeUndefined();
    expect(sel(pod({ owner: owned('Deployment', 'web-rs') }), objects)).toBeUndefined();
    expect(
      sel(pod({ owner: owned('ReplicaSet', 'web-rs', 'extensions/v1beta1') }), objects),
    ).toBeUndefined();
  });
});

describe('constraintsFor', () => {
  const objects = [svc('web', { app: 'web' })] as [string, unknown][];
  const snap = snapshot([], objects);

  it('gives a pod without its own constraints the defaults of that action, with the deduced selector', () => {
    const p = makePod({ name: 'p', labels: { app: 'web' } });
    expect(constraintsFor(p, snap, defaultSpreadArgs, 'hard')).toEqual([]);
    const soft = constraintsFor(p, snap, defaultSpreadArgs, 'soft');
    expect(soft.map((c) => [c.topologyKey, c.maxSkew, c.nodeAffinityPolicy, c.minDomains])).toEqual(
      [
        [host, 3, 'Honor', 1],
        [zone, 5, 'Honor', 1],
      ],
    );
    expect(soft[0]?.selector.requirements).toEqual([
      { key: 'app', operator: 'In', values: ['web'] },
    ]);
  });

  it('applies List DoNotSchedule defaults to the filter', () => {
    const args = parseSpreadArgs({
      defaultingType: 'List',
      defaultConstraints: [{ maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'DoNotSchedule' }],
    });
    const p = makePod({ name: 'p', labels: { app: 'web' } });
    expect(constraintsFor(p, snap, args, 'hard')).toHaveLength(1);
    expect(constraintsFor(p, snap, args, 'soft')).toHaveLength(0);
  });
});

describe('system-default scoring', () => {
  it('scores nodes without the zone label on hostname alone (kube’s requireAllTopologies false)', () => {
    // Two web pods on n1, one on n3; n3 has no zone label.
    const web = (node: string, i: number) => ({
      name: `w${i}`,
      labels: { app: 'web' },
      nodeName: node,
    });
    const nodes = [
      makeNodeWith({ name: 'n1', labels: { [host]: 'n1', [zone]: 'a' } }, [
        web('n1', 1),
        web('n1', 2),
      ]),
      makeNodeWith({ name: 'n2', labels: { [host]: 'n2', [zone]: 'a' } }, []),
      makeNodeWith({ name: 'n3', labels: { [host]: 'n3' } }, [web('n3', 3)]),
    ];
    const snap = snapshot(nodes, [svc('web', { app: 'web' })] as [string, unknown][]);
    const p = makePod({ name: 'p', labels: { app: 'web' } });
    const state: CycleState = new Map();
    expect(podTopologySpread.preScoreSkip(p, state, snap)).toBe(false);
    podTopologySpread.preScore(p, state, snap, nodes);
    const raw = nodes.map((n) => podTopologySpread.score(p, n, state));
    // n1: 2·ln5 + 2 + 2·ln4 + 4 ≈ 12; n2: 2 + 2·ln4 + 4 ≈ 9; n3: ln5 + 2 ≈ 4 (no zone term).
    expect(raw).toEqual([12, 9, 4]);
    podTopologySpread.normalize(p, raw, state);
    expect(raw).toEqual([33, 58, 100]);
  });

  it('ignores nodes missing a key under List defaulting, as with the pod’s own constraints', () => {
    const nodes = [
      makeNodeWith({ name: 'n1', labels: { [host]: 'n1', [zone]: 'a' } }, []),
      makeNodeWith({ name: 'n3', labels: { [host]: 'n3' } }, []),
    ];
    const snap = snapshot(nodes, [svc('web', { app: 'web' })] as [string, unknown][]);
    const plugin = newPodTopologySpread({
      defaultingType: 'List',
      defaultConstraints: [{ maxSkew: 1, topologyKey: zone, whenUnsatisfiable: 'ScheduleAnyway' }],
    });
    const p = makePod({ name: 'p', labels: { app: 'web' } });
    const state: CycleState = new Map();
    expect(plugin.preScoreSkip(p, state, snap)).toBe(false);
    plugin.preScore(p, state, snap, nodes);
    const raw = nodes.map((n) => plugin.score(p, n, state));
    plugin.normalize(p, raw, state);
    expect(raw).toEqual([100, 0]);
  });
});
