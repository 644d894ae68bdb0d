// Property: PreFilterExtensions (AddPod/RemovePod on a cloned state) filter every node as a fresh PreFilter on the changed cluster does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { claimObject } from '../../test/support/volumes.ts';
import { addPodToCopy, copyNode, removePodFromCopy } from '../cluster/node-what-if.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import type { ClusterSnapshot, ClusterState, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';
import type { CycleState, FilterPlugin, PreFilterPlugin } from '../framework/types.ts';
import type { PodObject } from '../model/objects.ts';
import {
  type PreFilterState as AffinityState,
  preFilterStateKey as affinityKey,
  skipped,
} from './inter-pod-affinity/filtering.ts';
import { interPodAffinity } from './inter-pod-affinity.ts';
import {
  matchNum,
  type PreFilterState as SpreadState,
  preFilterStateKey as spreadKey,
} from './pod-topology-spread/filtering.ts';
import { podTopologySpread } from './pod-topology-spread.ts';
import {
  type PreFilterState as VolumeState,
  preFilterStateKey as volumeKey,
  volumeRestrictions,
} from './volume-restrictions.ts';

const RUNS = { numRuns: 300, seed: Number(process.env.FC_SEED ?? 20260311) };

const NODES = ['n0', 'n1', 'n2', 'n3'];
const NAMESPACES = ['default', 'ns-a', 'ns-b'];
const CLAIMS = ['c1', 'c2', 'c3'];
const ZONE = 'zone';
const RACK = 'rack';
const HOST = 'kubernetes.io/hostname';

type Plugin = PreFilterPlugin & FilterPlugin;
const plugins: readonly Plugin[] = [interPodAffinity, podTopologySpread, volumeRestrictions];

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });

const podLabels = fc.record(
  { app: fc.constantFrom('x', 'x', 'y'), tier: fc.constantFrom('1', '2') },
  { requiredKeys: [] },
);

const labelSelector = fc.oneof(
  fc.record({ matchLabels: podLabels }),
  fc.record({
    matchExpressions: fc.array(
      fc.record({
        key: fc.constantFrom('app', 'tier'),
        operator: fc.constantFrom('In', 'NotIn', 'Exists'),
        values: fc.subarray(['x', 'y', '1'], { minLength: 1 }),
      }),
      { maxLength: 2 },
    ),
  }),
);

/** A required pod (anti-)affinity term: namespaces by list or by selector, three keys. */
const term = fc.record(
  {
    labelSelector: labelSelector,
    topologyKey: fc.constantFrom(ZONE, RACK, HOST),
    namespaces: fc.subarray(NAMESPACES),
    namespaceSelector: fc.oneof(
      fc.constant({}),
      fc.record({ matchLabels: fc.record({ team: fc.constantFrom('red', 'blue') }) }),
    ),
  },
  { requiredKeys: ['labelSelector', 'topologyKey'] },
);

const requiredTerms = maybe(fc.array(term, { minLength: 1, maxLength: 2 }));

const podAffinity = fc.record(
  {
    podAffinity: requiredTerms.map((t) =>
      t === undefined ? undefined : { requiredDuringSchedulingIgnoredDuringExecution: t },
    ),
    podAntiAffinity: requiredTerms.map((t) =>
      t === undefined ? undefined : { requiredDuringSchedulingIgnoredDuringExecution: t },
    ),
  },
  { requiredKeys: [] },
);

/** Hard spread constraints, one per topology key (kube rejects two on one key). */
const spreadConstraints = fc.subarray([ZONE, RACK, HOST], { maxLength: 2 }).chain((keys) =>
  fc.tuple(
    ...keys.map((topologyKey) =>
      fc.record(
        {
          maxSkew: fc.constantFrom(1, 1, 2),
          topologyKey: fc.constant(topologyKey),
          whenUnsatisfiable: fc.constant('DoNotSchedule'),
          labelSelector: fc.oneof(
            {
              weight: 4,
              arbitrary: fc.record({ matchLabels: fc.record({ app: fc.constantFrom('x', 'y') }) }),
            },
            labelSelector,
            fc.constant({}),
          ),
          minDomains: fc.integer({ min: 1, max: 4 }),
          nodeAffinityPolicy: fc.constantFrom('Honor', 'Ignore'),
          nodeTaintsPolicy: fc.constantFrom('Honor', 'Ignore'),
        },
        { requiredKeys: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] },
      ),
    ),
  ),
);

const volumes = fc
  .subarray(CLAIMS)
  .map((claims) =>
    claims.map((claimName) => ({ name: claimName, persistentVolumeClaim: { claimName } })),
  );

/** Fields every pod may have; `extra` adds what only the incoming pod gets. */
interface PodFields {
  namespace: string;
  labels: Record<string, string>;
  affinity: PodObject['spec']['affinity'] | undefined;
  volumes: { name: string; persistentVolumeClaim: { claimName: string } }[];
  terminating: boolean;
}

// Mostly one namespace and a few terminating pods, so that spreading counts collide.
const podFields: fc.Arbitrary<PodFields> = fc.record({
  namespace: fc.constantFrom('default', 'default', 'default', 'default', 'ns-a', 'ns-b'),
  labels: podLabels,
  affinity: maybe(podAffinity) as fc.Arbitrary<PodObject['spec']['affinity'] | undefined>,
  volumes,
  terminating: fc.constantFrom(false, false, false, false, true),
});

function manifest(name: string, uid: string, f: PodFields, nodeName?: string): PodObject {
  const obj = podObject(name, {
    namespace: f.namespace,
    labels: f.labels,
    ...(nodeName === undefined ? {} : { nodeName }),
    ...(f.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  });
  obj.metadata.uid = uid;
  if (f.affinity !== undefined) obj.spec.affinity = f.affinity;
  if (f.volumes.length > 0) obj.spec.volumes = f.volumes;
  return obj;
}

/** The incoming pod: required terms, hard spread constraints, node selection, tolerations. */
const incoming = fc
  .record({
    fields: podFields,
    spread: spreadConstraints,
    disk: fc.boolean(),
    tolerates: fc.boolean(),
  })
  .map(({ fields, spread, disk, tolerates }) => {
    const obj = manifest('incoming', 'in-0', { ...fields, terminating: false });
    obj.spec.topologySpreadConstraints = spread;
    if (disk) {
      obj.spec.affinity = {
        ...obj.spec.affinity,
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'Exists' }] }],
          },
        },
      };
    }
    if (tolerates) obj.spec.tolerations = [{ key: 'k', operator: 'Exists' }];
    const info = podInfoFromObject(obj);
    if ('rejected' in info) throw new Error(info.rejected);
    return info;
  });

/** A node's labels (each topology key mostly there) and whether it has the taint `k`. */
const nodeSpec = fc.record({
  [ZONE]: fc.option(fc.constantFrom('z1', 'z2', 'z3'), { nil: undefined, freq: 6 }),
  [RACK]: fc.option(fc.constantFrom('r1', 'r2'), { nil: undefined, freq: 6 }),
  [HOST]: fc.constantFrom(true, true, true, true, false),
  disk: fc.option(fc.constant('ssd'), { nil: undefined }),
  tainted: fc.constantFrom(false, false, true),
});

/** A small cluster: namespaces with team labels, claims, nodes, pods bound to them (or a gone node). */
const cluster = fc
  .record({
    teams: fc.tuple(...NAMESPACES.map(() => fc.constantFrom('red', 'blue'))),
    nodes: fc.tuple(...NODES.map(() => nodeSpec)),
    pods: fc.array(
      fc.record({ fields: podFields, node: fc.constantFrom(...NODES, ...NODES, 'gone') }),
      { maxLength: 12 },
    ),
  })
  .map(({ teams, nodes, pods }) => {
    const events: BerthEvent[] = [];
    NAMESPACES.forEach((ns, i) => {
      events.push({
        type: 'ObjectUpserted',
        kind: 'Namespace',
        object: { metadata: { name: ns, labels: { team: teams[i] as string } } },
      });
      for (const c of CLAIMS) {
        const accessModes = c === 'c3' ? ['ReadWriteOnce'] : ['ReadWriteOncePod'];
        const object = claimObject({ name: c, namespace: ns, accessModes });
        events.push({ type: 'ObjectUpserted', kind: 'PersistentVolumeClaim', object });
      }
    });
    NODES.forEach((name, i) => {
      const spec = nodes[i] as Record<string, unknown>;
      const labels: Record<string, string> = {};
      for (const k of [ZONE, RACK, 'disk']) if (typeof spec[k] === 'string') labels[k] = spec[k];
      if (spec[HOST] === true) labels[HOST] = name;
      const taints = spec.tainted === true ? [{ key: 'k', effect: 'NoSchedule' }] : [];
      events.push({ type: 'NodeUpserted', node: nodeObject(name, { labels, taints }) });
    });
    pods.forEach((p, i) => {
      events.push({ type: 'PodUpserted', pod: manifest(`p${i}`, `u${i}`, p.fields, p.node) });
    });
    return events;
  });

/** The cluster after `events` (through the reducer); `walk` drops the pod affinity index. */
function build(events: readonly BerthEvent[], walk: boolean): ClusterSnapshot {
  const state: ClusterState = initialState();
  events.forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event });
  });
  return walk ? { ...state, podAffinityIndex: undefined } : state;
}

/** PreFilter of every plugin into one cycle state. */
function preFilterAll(pod: PodInfo, snapshot: ClusterSnapshot): CycleState {
  const state: CycleState = new Map();
  for (const pl of plugins) expect(pl.preFilter(pod, state, snapshot).code).toBe('Success');
  return state;
}

/** kube's Skip as PreFilter found it: the cycle leaves the plugin's Filter out. */
function skips(pl: Plugin, pod: PodInfo, state: CycleState): boolean {
  return pl.preFilterSkip?.(pod, state) ?? false;
}

/** Filter of `pl` on every node of `snapshot` (`copy` in place of the node of its name). */
function filterAll(
  pl: Plugin,
  pod: PodInfo,
  snapshot: ClusterSnapshot,
  state: CycleState,
  copy?: NodeInfo,
): string[] {
  return snapshot.nodeOrder.map((n) => {
    const s = pl.filter(pod, n.name === copy?.name ? copy : n, state);
    return `${pl.name} ${n.name}: ${s.code} ${s.reasons.join('; ')}`;
  });
}

/** One node's what-if: pods taken off, new pods put on, some taken off put back (reprieved). */
interface WhatIf {
  node: string;
  /** Pods of `node` in the cluster, taken off in this order. */
  removed: readonly PodInfo[];
  /** New pods put on `node` after the removals (their manifests bound to it). */
  added: readonly PodObject[];
  /** Removed pods put back last, in this order (preemption's reprieve). */
  reprieved: readonly PodInfo[];
}

/**
 * The numbers Filter decides by, per plugin and node, from the states' own fields: the
 * three pair counts at the node (a skipped PreFilter counting nothing), each constraint's
 * count in the node's domain and its global minimum, the claims in use. Stricter than
 * Filter's statuses: a wrong count that decides nothing yet shows here.
 */
function counts(state: CycleState, nodes: readonly NodeInfo[]) {
  const a = state.get(affinityKey) as AffinityState | typeof skipped;
  const affinity = nodes.map((n) =>
    a === skipped
      ? { affinity: [], anti: [], existing: [0, 0, 0], empty: true }
      : {
          affinity: a.affinityTerms.map((t) => a.affinityCounts.at(n, t.topologyKey)),
          anti: a.antiAffinityTerms.map((t) => a.antiAffinityCounts.at(n, t.topologyKey)),
          existing: [ZONE, RACK, HOST].map((k) => a.existingAntiAffinityCounts.at(n, k)),
          empty: a.affinityCounts.isEmpty(),
        },
  );
  const s = state.get(spreadKey) as SpreadState | undefined;
  const spread = nodes.map((n) =>
    s?.constraints.map((c, i) =>
      Object.hasOwn(n.labels, c.topologyKey)
        ? [matchNum(s, i, n.labels[c.topologyKey] as string), s.minMatch[i]]
        : [],
    ),
  );
  const v = state.get(volumeKey) as VolumeState;
  return { affinity, spread, claimsInUse: v.conflictingClaims };
}

/** A clone of `state` by every plugin's cloneState, as the framework makes one. */
function cloneAll(state: CycleState): CycleState {
  const to: CycleState = new Map(state);
  for (const pl of plugins) pl.extensions?.cloneState(state, to);
  return to;
}

/** Every plugin's Filter on every node, each line naming the plugin, node and status. */
function filterEvery(pod: PodInfo, s: ClusterSnapshot, state: CycleState, copy?: NodeInfo) {
  return plugins.map((pl) => filterAll(pl, pod, s, state, copy));
}

/**
 * Applies `w` in two clones, as kube's preemption does: the removals to a clone of
 * PreFilter's state on `events`' cluster, then the additions to a clone of that clone.
 * Each clone must filter every node as a fresh PreFilter on the cluster after the same
 * changes; the state it was cloned from must filter as before.
 */
function check(pod: PodInfo, events: readonly BerthEvent[], walk: boolean, w: WhatIf): void {
  const gone = w.removed.filter((p) => !w.reprieved.includes(p));
  const deleted = (ps: readonly PodInfo[]) =>
    ps.map((p) => ({ type: 'PodDeleted' as const, uid: p.uid, key: p.key }));
  const upserted = w.added.map((pod) => ({ type: 'PodUpserted' as const, pod }));
  const before = build(events, walk);
  const mid = build([...events, ...deleted(w.removed)], walk);
  const after = build([...events, ...deleted(gone), ...upserted], walk);
  const addedInfos = w.added.map((o) => after.nodes.get(w.node)?.pods.get(o.metadata.uid ?? ''));
  fc.pre(addedInfos.every((p) => p !== undefined));

  const state = preFilterAll(pod, before);
  const expectedBefore = filterEvery(pod, before, state);
  const victimsOff = cloneAll(state);
  const copy = copyNode(before.nodes.get(w.node) as NodeInfo);
  for (const p of w.removed) {
    removePodFromCopy(copy, p);
    for (const pl of plugins) pl.extensions?.removePod(pod, victimsOff, p, copy);
  }
  const midState = preFilterAll(pod, mid);
  const expectedMid = filterEvery(pod, mid, midState);
  expect(filterEvery(pod, before, victimsOff, copy)).toEqual(expectedMid);
  expect(counts(victimsOff, before.nodeOrder)).toEqual(counts(midState, before.nodeOrder));

  const addAll = () => {
    const to = cloneAll(victimsOff);
    const toCopy = copyNode(copy);
    for (const p of [...(addedInfos as PodInfo[]), ...w.reprieved]) {
      addPodToCopy(toCopy, p);
      for (const pl of plugins) pl.extensions?.addPod(pod, to, p, toCopy);
    }
    return { to, toCopy };
  };
  const { to: final, toCopy: finalCopy } = addAll();
  const fresh = preFilterAll(pod, after);
  if (w.added.length === 0 || !plugins.some((pl) => skips(pl, pod, state)))
    expect(counts(final, before.nodeOrder)).toEqual(counts(fresh, before.nodeOrder));
  plugins.forEach((pl) => {
    const got = filterAll(pl, pod, before, final, finalCopy);
    if (w.added.length > 0 && skips(pl, pod, state)) {
      // kube calls no extension of a skipped plugin (and runs no Filter of it): a new pod
      // is not seen, even one that would reject the incoming pod.
      expect(got.every((r) => r.endsWith('Success '))).toBe(true);
      return;
    }
    expect(got).toEqual(filterAll(pl, pod, after, fresh));
  });
  // What was done to a clone leaves the state it came from as it was: it filters as
  // before, and a second clone of it, changed the same way, filters as the first.
  expect(filterEvery(pod, before, victimsOff, copy)).toEqual(expectedMid);
  expect(filterEvery(pod, before, state)).toEqual(expectedBefore);
  const again = addAll();
  expect(filterEvery(pod, before, again.to, again.toCopy)).toEqual(
    filterEvery(pod, before, final, finalCopy),
  );
  expect(counts(again.to, before.nodeOrder)).toEqual(counts(final, before.nodeOrder));
  // Taking the added pods off again gives back the cluster without them.
  const undone = addAll();
  for (const p of [...(addedInfos as PodInfo[]), ...w.reprieved]) {
    removePodFromCopy(undone.toCopy, p);
    for (const pl of plugins) pl.extensions?.removePod(pod, undone.to, p, undone.toCopy);
  }
  expect(filterEvery(pod, before, undone.to, undone.toCopy)).toEqual(expectedMid);
  expect(counts(undone.to, before.nodeOrder)).toEqual(counts(midState, before.nodeOrder));
}

/** The pods charged to live nodes, in a fixed order. */
function chargedPods(s: ClusterSnapshot): PodInfo[] {
  return s.nodeOrder.flatMap((n) => [...n.pods.values()]);
}

function nodeOf(s: ClusterSnapshot, pod: PodInfo): string {
  return (s.nodeOrder.find((n) => n.pods.has(pod.uid)) as NodeInfo).name;
}

describe('PreFilterExtensions against a fresh PreFilter', () => {
  it('removePod: a pod taken off its node filters as the cluster without it', () => {
    fc.assert(
      fc.property(cluster, incoming, fc.nat(), fc.boolean(), (events, pod, pick, walk) => {
        const all = chargedPods(build(events, walk));
        // Mostly a pod of the incoming pod's namespace: one its spreading counts.
        const near = all.filter((p) => p.namespace === pod.namespace);
        const pods = pick % 3 === 0 || near.length === 0 ? all : near;
        fc.pre(pods.length > 0);
        const victim = pods[pick % pods.length] as PodInfo;
        const node = nodeOf(build(events, walk), victim);
        check(pod, events, walk, { node, removed: [victim], added: [], reprieved: [] });
      }),
      RUNS,
    );
  });

  it('addPod: a pod put on a node filters as the cluster with it bound there', () => {
    fc.assert(
      fc.property(
        cluster,
        incoming,
        podFields,
        fc.boolean(),
        fc.constantFrom(...NODES),
        fc.boolean(),
        (events, pod, fields, alike, node, walk) => {
          // Often in the incoming pod's namespace with its labels: counted by its own selectors.
          const f = alike ? { ...fields, namespace: pod.namespace, labels: pod.labels } : fields;
          const added = manifest('added', 'new-0', f, node);
          check(pod, events, walk, { node, removed: [], added: [added], reprieved: [] });
        },
      ),
      RUNS,
    );
  });

  it('preemption on one node: victims off, nominated pods on, some victims reprieved', () => {
    fc.assert(
      fc.property(
        cluster,
        incoming,
        fc.constantFrom(...NODES),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.array(podFields, { maxLength: 2 }),
        fc.boolean(),
        (events, pod, node, victimBits, reprieveBits, nominated, walk) => {
          const onNode = [...(build(events, walk).nodes.get(node)?.pods.values() ?? [])];
          const removed = onNode.filter((_, i) => victimBits[i]);
          const reprieved = removed.filter((_, i) => reprieveBits[i]).reverse();
          const added = nominated.map((f, i) => manifest(`nom${i}`, `nom-${i}`, f, node));
          check(pod, events, walk, { node, removed, added, reprieved });
        },
      ),
      RUNS,
    );
  });
});
