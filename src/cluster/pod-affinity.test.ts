// Parsing of pod (anti-)affinity terms, the per-node and cluster-wide indexes the charges keep, and their snapshot round trip.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import type { BerthEvent } from '../events/types.ts';
import type { PodObject } from '../model/objects.ts';
import { buildPodAffinityIndex } from './charges.ts';
import { checkClusterInvariants } from './invariants.ts';
import { noPodAffinity, type PodAffinityTerms, parsePodAffinity } from './pod-affinity.ts';
import { podInfoFromObject } from './pod-info.ts';
import { evolve, initialState } from './reducer.ts';
import { type ClusterStateData, restoreClusterState, serializeClusterState } from './serialize.ts';
import type { ClusterState, PodInfo } from './types.ts';

const REQ = 'requiredDuringSchedulingIgnoredDuringExecution';
const PREF = 'preferredDuringSchedulingIgnoredDuringExecution';
const app = (v: string) => ({ matchLabels: { app: v } });
const inApp = (v: string) => ({ key: 'app', operator: 'In' as const, values: [v] });
const nothing = { nothing: true, requirements: [] };
const everything = { nothing: false, requirements: [] };

const parse = (affinity: unknown, labels: Record<string, string> = {}) =>
  parsePodAffinity(affinity, 'ns1', labels);

describe('parsePodAffinity', () => {
  const ok: [string, unknown, Record<string, string>, Partial<PodAffinityTerms>][] = [
    [
      'A term without namespaces or namespaceSelector is about the pod’s own namespace',
      { podAffinity: { [REQ]: [{ labelSelector: app('db'), topologyKey: 'zone' }] } },
      {},
      {
        requiredAffinityTerms: [
          {
            namespaces: ['ns1'],
            namespaceSelector: nothing,
            selector: { nothing: false, requirements: [inApp('db')] },
            topologyKey: 'zone',
          },
        ],
      },
    ],
    [
      'Listed namespaces replace the own one; an empty namespaceSelector selects every namespace',
      {
        podAntiAffinity: {
          [REQ]: [
            { labelSelector: app('a'), topologyKey: 'h', namespaces: ['x', 'y'] },
            { labelSelector: app('a'), topologyKey: 'h', namespaces: [], namespaceSelector: {} },
          ],
        },
      },
      {},
      {
        requiredAntiAffinityTerms: [
          {
            namespaces: ['x', 'y'],
            namespaceSelector: nothing,
            selector: { nothing: false, requirements: [inApp('a')] },
            topologyKey: 'h',
          },
          {
            namespaces: [],
            namespaceSelector: everything,
            selector: { nothing: false, requirements: [inApp('a')] },
            topologyKey: 'h',
          },
        ],
      },
    ],
    [
      'A null namespaceSelector with no namespaces is the own namespace; no labelSelector selects no pod',
      { podAffinity: { [REQ]: [{ topologyKey: 'h', namespaces: null, namespaceSelector: null }] } },
      {},
      {
        requiredAffinityTerms: [
          { namespaces: ['ns1'], namespaceSelector: nothing, selector: nothing, topologyKey: 'h' },
        ],
      },
    ],
    [
      'matchLabelKeys add In and mismatchLabelKeys NotIn from the pod’s labels; absent keys are skipped',
      {
        podAffinity: {
          [REQ]: [
            {
              labelSelector: app('web'),
              topologyKey: 'zone',
              matchLabelKeys: ['rev', 'missing'],
              mismatchLabelKeys: ['tenant'],
            },
          ],
        },
      },
      { rev: 'r1', tenant: 't1' },
      {
        requiredAffinityTerms: [
          {
            namespaces: ['ns1'],
            namespaceSelector: nothing,
            selector: {
              nothing: false,
              requirements: [
                inApp('web'),
                { key: 'rev', operator: 'In', values: ['r1'] },
                { key: 'tenant', operator: 'NotIn', values: ['t1'] },
              ],
            },
            topologyKey: 'zone',
          },
        ],
      },
    ],
    [
      'A key the API server already merged (the selector constrains it) is not merged again',
      {
        podAffinity: {
          [REQ]: [
            {
              labelSelector: {
                matchLabels: { app: 'web' },
                matchExpressions: [{ key: 'rev', operator: 'In', values: ['r1'] }],
              },
              topologyKey: 'zone',
              matchLabelKeys: ['rev'],
            },
          ],
        },
      },
      { rev: 'r2' },
      {
        requiredAffinityTerms: [
          {
            namespaces: ['ns1'],
            namespaceSelector: nothing,
            selector: {
              nothing: false,
              requirements: [inApp('web'), { key: 'rev', operator: 'In', values: ['r1'] }],
            },
            topologyKey: 'zone',
          },
        ],
      },
    ],
    [
      'matchLabelKeys leave an absent labelSelector selecting nothing',
      { podAffinity: { [REQ]: [{ topologyKey: 'zone', matchLabelKeys: ['rev'] }] } },
      { rev: 'r1' },
      {
        requiredAffinityTerms: [
          {
            namespaces: ['ns1'],
            namespaceSelector: nothing,
            selector: nothing,
            topologyKey: 'zone',
          },
        ],
      },
    ],
    [
      'Preferred terms keep their weight, affinity and anti-affinity apart',
      {
        podAffinity: {
          [PREF]: [{ weight: 5, podAffinityTerm: { labelSelector: {}, topologyKey: 'r' } }],
        },
        podAntiAffinity: {
          [PREF]: [{ weight: 100, podAffinityTerm: { labelSelector: app('x'), topologyKey: 'h' } }],
        },
      },
      {},
      {
        preferredAffinityTerms: [
          {
            namespaces: ['ns1'],
            namespaceSelector: nothing,
            selector: everything,
            topologyKey: 'r',
            weight: 5,
          },
        ],
        preferredAntiAffinityTerms: [
          {
            namespaces: ['ns1'],
            namespaceSelector: nothing,
            selector: { nothing: false, requirements: [inApp('x')] },
            topologyKey: 'h',
            weight: 100,
          },
        ],
      },
    ],
  ];
  for (const [name, affinity, labels, want] of ok) {
    it(name, () => {
      const got = parse(affinity, labels);
      expect(got.error).toBeUndefined();
      expect(got.value).toEqual({ ...noPodAffinity, ...want });
    });
  }

  it('gives the shared empty value when there are no terms, however the fields are spelled', () => {
    for (const a of [
      undefined,
      null,
      'x',
      {},
      { podAffinity: null },
      { podAffinity: { [REQ]: [] } },
    ])
      expect(parse(a).value).toBe(noPodAffinity);
  });

  const bad: [string, unknown, string][] = [
    [
      'podAffinity not an object',
      { podAffinity: [] },
      'spec.affinity.podAffinity is not an object',
    ],
    [
      'a required list that is not a list',
      { podAntiAffinity: { [REQ]: {} } },
      `spec.affinity.podAntiAffinity.${REQ} is not a list`,
    ],
    [
      'a term without topologyKey',
      { podAffinity: { [REQ]: [{ labelSelector: app('a') }] } },
      `spec.affinity.podAffinity.${REQ}[0].topologyKey is not a non-empty string`,
    ],
    [
      'a bad label selector operator',
      {
        podAffinity: {
          [REQ]: [
            {
              topologyKey: 'h',
              labelSelector: { matchExpressions: [{ key: 'a', operator: 'Is' }] },
            },
          ],
        },
      },
      `spec.affinity.podAffinity.${REQ}[0].labelSelector.matchExpressions[0].operator is not a valid label selector operator`,
    ],
    [
      'namespaces that are not strings',
      { podAffinity: { [REQ]: [{ topologyKey: 'h', namespaces: [1] }] } },
      `spec.affinity.podAffinity.${REQ}[0].namespaces is not a list of strings`,
    ],
    [
      'a bad namespaceSelector',
      { podAffinity: { [REQ]: [{ topologyKey: 'h', namespaceSelector: 'x' }] } },
      `spec.affinity.podAffinity.${REQ}[0].namespaceSelector is not an object`,
    ],
    [
      'matchLabelKeys that are not a list',
      { podAffinity: { [REQ]: [{ topologyKey: 'h', matchLabelKeys: 'rev' }] } },
      `spec.affinity.podAffinity.${REQ}[0].matchLabelKeys is not a list of strings`,
    ],
    [
      'a weight out of range',
      { podAntiAffinity: { [PREF]: [{ weight: 0, podAffinityTerm: { topologyKey: 'h' } }] } },
      `spec.affinity.podAntiAffinity.${PREF}[0].weight is not an integer 1–100`,
    ],
    [
      'a preferred entry without its term',
      { podAffinity: { [PREF]: [{ weight: 1 }] } },
      `spec.affinity.podAffinity.${PREF}[0].podAffinityTerm is not an object`,
    ],
  ];
  for (const [name, affinity, error] of bad) {
    it(`names the field of ${name}`, () => expect(parse(affinity).error).toBe(error));
  }

  it('drops only the malformed list, keeps the others, and reports the first error', () => {
    const got = parse({
      podAffinity: { [REQ]: [{ topologyKey: 'h' }, 'junk'] },
      podAntiAffinity: { [REQ]: [{ topologyKey: 'h' }], [PREF]: [{ weight: 101 }] },
    });
    expect(got.error).toBe(`spec.affinity.podAffinity.${REQ}[1] is not an object`);
    expect(got.value.requiredAffinityTerms).toEqual([]);
    expect(got.value.requiredAntiAffinityTerms).toHaveLength(1);
    expect(got.value.preferredAntiAffinityTerms).toEqual([]);
  });

  it('never throws on odd shapes', () => {
    const odd: unknown[] = [7, [], { podAffinity: 3 }, { podAffinity: { [REQ]: [null, 1] } }];
    for (const a of odd) expect(() => parse(a)).not.toThrow();
  });
});

describe('podInfoFromObject reads pod affinity', () => {
  it('parses the terms into podAffinity with the pod’s namespace', () => {
    const obj = podObject('p', { namespace: 'team', labels: { app: 'web' } });
    obj.spec.affinity = {
      podAntiAffinity: { [REQ]: [{ labelSelector: app('web'), topologyKey: 'h' }] },
    };
    const info = podInfoFromObject(obj) as PodInfo;
    expect(info.invalid).toBeUndefined();
    expect(info.unsupported).toBeUndefined();
    expect(info.podAffinity.requiredAntiAffinityTerms[0]?.namespaces).toEqual(['team']);
  });

  it('makes a pod with a malformed term invalid, naming the field', () => {
    const obj = podObject('p');
    obj.spec.affinity = {
      podAffinity: { [REQ]: [{ topologyKey: '' }] },
    } as PodObject['spec']['affinity'];
    const info = podInfoFromObject(obj) as PodInfo;
    expect(info.invalid).toBe(
      `spec.affinity.podAffinity.${REQ}[0].topologyKey is not a non-empty string`,
    );
  });
});

// --- the indexes the charges keep ---

const antiPod = (name: string, nodeName?: string): PodObject => {
  const p = podObject(name, {
    labels: { app: 'db' },
    ...(nodeName === undefined ? {} : { nodeName }),
  });
  p.metadata.uid = `${name}-uid`;
  p.spec.affinity = {
    podAntiAffinity: { [REQ]: [{ labelSelector: app('db'), topologyKey: 'h' }] },
  };
  return p;
};
const prefPod = (name: string, nodeName: string): PodObject => {
  const p = podObject(name, { nodeName });
  p.metadata.uid = `${name}-uid`;
  p.spec.affinity = {
    podAffinity: {
      [PREF]: [{ weight: 3, podAffinityTerm: { labelSelector: app('db'), topologyKey: 'h' } }],
    },
  };
  return p;
};
const plainPod = (name: string, nodeName: string): PodObject => {
  const p = podObject(name, { nodeName });
  p.metadata.uid = `${name}-uid`;
  return p;
};

function fold(state: ClusterState, ...events: BerthEvent[]): ClusterState {
  for (const event of events) evolve(state, { seq: 1, time: 0, event });
  return state;
}

const keysOf = (m: ReadonlyMap<string, unknown> | undefined) => [...(m ?? new Map()).keys()];

/** The per-node lists and the index, recomputed from scratch (the oracle). */
function expected(state: ClusterState) {
  const out: Record<string, { affinity: string[]; anti: string[] }> = {};
  for (const node of [...state.nodes.values(), ...state.absentNodes.values()]) {
    const pods = [...node.pods.values()];
    out[node.name] = {
      affinity: pods
        .filter((p) => Object.values(p.podAffinity).some((list) => list.length > 0))
        .map((p) => p.uid)
        .sort(),
      anti: pods
        .filter((p) => p.podAffinity.requiredAntiAffinityTerms.length > 0)
        .map((p) => p.uid)
        .sort(),
    };
  }
  return out;
}

function actual(state: ClusterState) {
  const out: Record<string, { affinity: string[]; anti: string[] }> = {};
  for (const node of [...state.nodes.values(), ...state.absentNodes.values()]) {
    out[node.name] = {
      affinity: keysOf(node.podsWithAffinity).sort(),
      anti: keysOf(node.podsWithRequiredAntiAffinity).sort(),
    };
  }
  return out;
}

function indexNames(state: ClusterState) {
  const index = state.podAffinityIndex;
  return {
    withAffinity: keysOf(index?.withAffinity).sort(),
    withRequiredAntiAffinity: keysOf(index?.withRequiredAntiAffinity).sort(),
  };
}

describe('the pod affinity indexes kept by the charges', () => {
  const steps: [
    string,
    BerthEvent[],
    { withAffinity: string[]; withRequiredAntiAffinity: string[] },
  ][] = [
    [
      'bound pods with terms enter their node’s lists; plain pods do not',
      [
        { type: 'NodeUpserted', node: nodeObject('n1') },
        { type: 'NodeUpserted', node: nodeObject('n2') },
        { type: 'PodUpserted', pod: antiPod('a', 'n1') },
        { type: 'PodUpserted', pod: prefPod('b', 'n2') },
        { type: 'PodUpserted', pod: plainPod('c', 'n2') },
      ],
      { withAffinity: ['n1', 'n2'], withRequiredAntiAffinity: ['n1'] },
    ],
    [
      'a deleted pod leaves them, and a node with none left leaves the index',
      [{ type: 'PodDeleted', uid: 'b-uid', key: 'default/b' }],
      { withAffinity: ['n1'], withRequiredAntiAffinity: ['n1'] },
    ],
    [
      'a deleted node keeps its pods (absent), and the index keeps the node',
      [{ type: 'NodeDeleted', name: 'n1' }],
      { withAffinity: ['n1'], withRequiredAntiAffinity: ['n1'] },
    ],
    [
      'the last pod of an absent node going takes it out',
      [{ type: 'PodDeleted', uid: 'a-uid', key: 'default/a' }],
      { withAffinity: [], withRequiredAntiAffinity: [] },
    ],
    [
      'a pod bound to a node never seen is indexed on the absent node',
      [{ type: 'PodUpserted', pod: antiPod('d', 'ghost') }],
      { withAffinity: ['ghost'], withRequiredAntiAffinity: ['ghost'] },
    ],
  ];
  const state = initialState();
  for (const [name, events, want] of steps) {
    it(name, () => {
      fold(state, ...events);
      expect(actual(state)).toEqual(expected(state));
      expect(indexNames(state)).toEqual(want);
      const rebuilt = buildPodAffinityIndex(state);
      expect(keysOf(rebuilt.withAffinity).sort()).toEqual(want.withAffinity);
    });
  }
});

describe('snapshot round trip of the pod affinity fields', () => {
  const history = (): ClusterState =>
    fold(
      initialState(),
      { type: 'NodeUpserted', node: nodeObject('n1', { labels: { h: 'n1' } }) },
      { type: 'NodeUpserted', node: nodeObject('n2', { labels: { h: 'n2' } }) },
      { type: 'PodUpserted', pod: antiPod('a', 'n1') },
      { type: 'PodUpserted', pod: prefPod('b', 'n2') },
      { type: 'PodUpserted', pod: plainPod('c', 'n2') },
      { type: 'PodUpserted', pod: antiPod('pending') },
    );
  const roundTrip = (s: ClusterState): ClusterState =>
    restoreClusterState(JSON.parse(JSON.stringify(serializeClusterState(s))) as ClusterStateData);

  it('restores every pod’s terms and every node’s lists', () => {
    const live = history();
    const restored = roundTrip(live);
    for (const [uid, rec] of live.pods)
      expect(restored.pods.get(uid)?.info.podAffinity).toEqual(rec.info.podAffinity);
    expect(actual(restored)).toEqual(actual(live));
    expect(actual(restored)).toEqual(expected(restored));
    expect(serializeClusterState(restored)).toEqual(serializeClusterState(live));
    expect(restored.pods.get('c-uid')?.info.podAffinity).toBe(noPodAffinity);
  });

  it('rebuilds the cluster-wide index on restore, as the live one has it, and keeps it after', () => {
    const live = history();
    const restored = roundTrip(live);
    expect(indexNames(restored)).toEqual(indexNames(live));
    expect(restored.podAffinityIndex?.generation).toBe(restored.generation);
    expect(checkClusterInvariants(restored)).toEqual([]);
    const next: BerthEvent = { type: 'PodUpserted', pod: plainPod('e', 'n1') };
    fold(live, next);
    fold(restored, next);
    expect(indexNames(restored)).toEqual(indexNames(live));
    expect(indexNames(live)).toEqual({
      withAffinity: ['n1', 'n2'],
      withRequiredAntiAffinity: ['n1'],
    });
  });

  it('reads a snapshot older than the field as pods without terms', () => {
    const data = serializeClusterState(history());
    for (const p of data.pods) delete (p.info as Partial<PodInfo>).podAffinity;
    const restored = restoreClusterState(JSON.parse(JSON.stringify(data)) as ClusterStateData);
    expect(restored.pods.get('a-uid')?.info.podAffinity).toBe(noPodAffinity);
    expect(restored.nodes.get('n1')?.podsWithAffinity.size).toBe(0);
  });
});
