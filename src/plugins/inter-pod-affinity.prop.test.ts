// Property: InterPodAffinity from the charges' index and memo decides as the straightforward walk does, event after event.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { checkClusterInvariants } from '../cluster/invariants.ts';
import { currentPodAffinityIndex } from '../cluster/pod-affinity-index.ts';
import { matchMemoCapacity, matchMemoEntries } from '../cluster/pod-affinity-matches.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import type { ClusterSnapshot, ClusterState, PodInfo } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';
import type { PodObject } from '../model/objects.ts';
import { computePreFilterState, filterNode } from './inter-pod-affinity/filtering.ts';
import {
  computePreScoreState,
  normalizeScores,
  type ScoringArgs,
  scoreNode,
} from './inter-pod-affinity/scoring.ts';

const RUNS = { numRuns: 200, seed: Number(process.env.FC_SEED ?? 20260124) };

// A small world, so that terms, pairs and events collide.
const NODES = ['n0', 'n1', 'n2', 'n3', 'n4'];
const NAMESPACES = ['default', 'ns-a', 'ns-b'];
const UIDS = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'];
const ZONE = 'zone';
const RACK = 'rack';
const HOST = 'kubernetes.io/hostname';

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 3 });

const podLabels = fc.record(
  { app: fc.constantFrom('x', 'y'), tier: fc.constantFrom('1', '2'), v: fc.constantFrom('a', 'b') },
  { requiredKeys: [] },
);

const requirement = fc.oneof(
  fc.record({
    key: fc.constantFrom('app', 'tier', 'v'),
    operator: fc.constantFrom('In', 'NotIn'),
    values: fc.subarray(['x', 'y', '1', '2', 'a'], { minLength: 1 }),
  }),
  fc.record({
    key: fc.constantFrom('app', 'tier', 'v'),
    operator: fc.constantFrom('Exists', 'DoesNotExist'),
  }),
);

const labelSelector = fc.oneof(
  fc.record({ matchLabels: podLabels }),
  fc.record({ matchExpressions: fc.array(requirement, { maxLength: 2 }) }),
);

/** A pod affinity term: selectors present or not, namespaces by list or selector, three keys. */
const term = fc.record(
  {
    labelSelector: fc.option(labelSelector, { nil: undefined, freq: 8 }),
    topologyKey: fc.constantFrom(ZONE, RACK, HOST),
    namespaces: fc.subarray(NAMESPACES),
    namespaceSelector: fc.oneof(
      fc.constant({}),
      fc.record({ matchLabels: fc.record({ team: fc.constantFrom('red', 'blue') }) }),
    ),
    matchLabelKeys: fc.constant(['v']),
    mismatchLabelKeys: fc.constant(['tier']),
  },
  { requiredKeys: ['labelSelector', 'topologyKey'] },
);

const weighted = fc.record({ weight: fc.integer({ min: 1, max: 100 }), podAffinityTerm: term });
const terms = <T>(a: fc.Arbitrary<T>) => maybe(fc.array(a, { minLength: 1, maxLength: 2 }));

const affinity = fc.record(
  {
    podAffinity: fc.record(
      {
        requiredDuringSchedulingIgnoredDuringExecution: terms(term),
        preferredDuringSchedulingIgnoredDuringExecution: terms(weighted),
      },
      { requiredKeys: [] },
    ),
    podAntiAffinity: fc.record(
      {
        requiredDuringSchedulingIgnoredDuringExecution: terms(term),
        preferredDuringSchedulingIgnoredDuringExecution: terms(weighted),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

/** A pod manifest: namespace, labels, maybe terms, maybe bound. */
const pod = (name: string) =>
  fc
    .record({
      namespace: fc.constantFrom(...NAMESPACES),
      labels: podLabels,
      affinity: maybe(affinity),
      nodeName: maybe(fc.constantFrom(...NODES, 'ghost')),
      phase: fc.constantFrom(undefined, undefined, undefined, 'Running', 'Succeeded'),
    })
    .map((p): PodObject => {
      const obj = podObject(name, {
        namespace: p.namespace,
        labels: p.labels,
        ...(p.nodeName === undefined ? {} : { nodeName: p.nodeName }),
        ...(p.phase === undefined ? {} : { phase: p.phase }),
      });
      if (p.affinity !== undefined) obj.spec.affinity = p.affinity as PodObject['spec']['affinity'];
      return obj;
    });

const nodeLabels = fc.record(
  { [ZONE]: fc.constantFrom('z1', 'z2'), [RACK]: fc.constantFrom('r1', 'r2', 'r3') },
  { requiredKeys: [] },
);

const ref = fc.record({ i: fc.integer({ min: 0, max: UIDS.length - 1 }), attempt: fc.nat(2) });

const event: fc.Arbitrary<BerthEvent> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.tuple(fc.constantFrom(...NODES), nodeLabels).map(([n, labels]) => ({
      type: 'NodeUpserted' as const,
      node: nodeObject(n, { labels: { ...labels, [HOST]: n } }),
    })),
  },
  fc.constantFrom(...NODES).map((name) => ({ type: 'NodeDeleted' as const, name })),
  {
    weight: 6,
    arbitrary: fc.integer({ min: 0, max: UIDS.length - 1 }).chain((i) =>
      pod(`p${i}`).map((obj) => {
        obj.metadata.uid = UIDS[i];
        return { type: 'PodUpserted' as const, pod: obj };
      }),
    ),
  },
  fc
    .integer({ min: 0, max: UIDS.length - 1 })
    .map((i) => ({ type: 'PodDeleted' as const, uid: UIDS[i] as string, key: `default/p${i}` })),
  {
    weight: 3,
    arbitrary: fc.tuple(ref, fc.constantFrom(...NODES)).map(([r, node]) => ({
      type: 'PodReserved' as const,
      uid: UIDS[r.i] as string,
      key: `x/p${r.i}`,
      attempt: r.attempt,
      node,
    })),
  },
  fc.tuple(ref, fc.constantFrom(...NODES)).map(([r, node]) => ({
    type: 'PodUnreserved' as const,
    uid: UIDS[r.i] as string,
    key: `x/p${r.i}`,
    attempt: r.attempt,
    node,
    reason: 'timed out waiting at permit',
  })),
  fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom('red', 'blue')).map(([n, team]) => ({
    type: 'ObjectUpserted' as const,
    kind: 'Namespace' as const,
    object: { metadata: { name: n, labels: { team } } },
  })),
  fc
    .constantFrom('Node' as const, 'Pod' as const)
    .chain((kind) =>
      fc.constantFrom(
        { type: 'ResyncStarted' as const, kind },
        { type: 'ResyncDone' as const, kind },
      ),
    ),
);

/** Incoming pods: parsed once per run, checked after every event. */
const incoming = fc.array(pod('incoming'), { minLength: 1, maxLength: 3 }).map((objs) =>
  objs.map((obj, i) => {
    obj.metadata.uid = `in-${i}`;
    delete obj.spec.nodeName;
    const info = podInfoFromObject(obj);
    if ('rejected' in info) throw new Error(info.rejected);
    return info;
  }),
);

const args = fc.record<ScoringArgs>({
  hardPodAffinityWeight: fc.constantFrom(0, 1, 7),
  ignorePreferredTermsOfExistingPods: fc.constant(false),
});

/** The same cluster without the index: the plugin walks every node and pod. */
const walked = (s: ClusterState): ClusterSnapshot => ({ ...s, podAffinityIndex: undefined });

/** What the plugin decides for `p` on every live node: filter statuses, scores, normalized. */
function decisions(p: PodInfo, snapshot: ClusterSnapshot, a: ScoringArgs) {
  const pre = computePreFilterState(p, snapshot);
  const filters = snapshot.nodeOrder.map((n) =>
    pre === 'skipped' ? 'skipped' : { node: n.name, ...filterNode(pre, n) },
  );
  const s = computePreScoreState(p, snapshot, a);
  const scores = snapshot.nodeOrder.map((n) => scoreNode(s, n));
  const normalized = [...scores];
  normalizeScores(s, normalized);
  return { filters, scores, normalized, weighed: s.topologyScore.size > 0 };
}

describe('InterPodAffinity from the index', () => {
  it('filters and scores every node as the walk does, after every event', () => {
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 40, size: 'max' }),
        incoming,
        args,
        (events, pods, a) => {
          const state = initialState();
          events.forEach((e, i) => {
            evolve(state, { seq: i + 1, time: i, event: e });
            expect(checkClusterInvariants(state)).toEqual([]);
            if (state.nodes.size === 0) return;
            expect(currentPodAffinityIndex(state)).toBeDefined();
            for (const p of pods)
              expect(decisions(p, state, a)).toEqual(decisions(p, walked(state), a));
          });
        },
      ),
      RUNS,
    );
  });

  it('keeps at most the memo capacity of match counts, every kept one current', () => {
    const state = initialState();
    let seq = 0;
    const apply = (event: BerthEvent) => evolve(state, { seq: ++seq, time: seq, event });
    for (const n of NODES)
      apply({ type: 'NodeUpserted', node: nodeObject(n, { labels: { [ZONE]: n } }) });
    const asking = (i: number) => {
      const obj = podObject(`in${i}`, { labels: { app: 'x' } });
      obj.metadata.uid = `in-${i}`;
      obj.spec.affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: `a${i}` } }, topologyKey: ZONE },
          ],
        },
      } as PodObject['spec']['affinity'];
      return podInfoFromObject(obj) as PodInfo;
    };
    for (let i = 0; i < matchMemoCapacity + 8; i++) {
      const obj = podObject(`p${i}`, { labels: { app: `a${i % 5}` }, nodeName: NODES[i % 5] });
      obj.metadata.uid = `p-${i}`;
      apply({ type: 'PodUpserted', pod: obj });
      for (let j = 0; j <= i; j++) computePreFilterState(asking(j), state);
      expect(checkClusterInvariants(state)).toEqual([]);
    }
    const index = currentPodAffinityIndex(state);
    expect(index && matchMemoEntries(index).length).toBe(matchMemoCapacity);
    const a = { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false };
    for (let j = 0; j < matchMemoCapacity + 8; j++)
      expect(decisions(asking(j), state, a)).toEqual(decisions(asking(j), walked(state), a));
  });
});
