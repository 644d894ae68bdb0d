// Examples for the PreFilterExtensions of InterPodAffinity, PodTopologySpread and VolumeRestrictions.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { claimObject } from '../../test/support/volumes.ts';
import { podInfoFromObject } from '../cluster/pod-info.ts';
import { evolve, initialState } from '../cluster/reducer.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';
import type { CycleState, FilterPlugin, PreFilterPlugin } from '../framework/types.ts';
import type { PodObject } from '../model/objects.ts';
import { preFilterStateKey as affinityKey, skipped } from './inter-pod-affinity/filtering.ts';
import { interPodAffinity } from './inter-pod-affinity.ts';
import { newCriticalPaths, updateCriticalPaths } from './pod-topology-spread/critical-paths.ts';
import { podTopologySpread } from './pod-topology-spread.ts';
import { volumeRestrictions } from './volume-restrictions.ts';

type Plugin = PreFilterPlugin & FilterPlugin;
const HOST = 'kubernetes.io/hostname';

/** A cluster of nodes `n0`… with the given zones, and the given objects and pods, via the reducer. */
function cluster(zones: string[], ...more: BerthEvent[]): ClusterSnapshot {
  const state = initialState();
  const events: BerthEvent[] = zones.map((zone, i) => ({
    type: 'NodeUpserted',
    node: nodeObject(`n${i}`, { labels: { zone, [HOST]: `n${i}` } }),
  }));
  [...events, ...more].forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event });
  });
  return state;
}

function pod(name: string, extra: Partial<PodObject['spec']> = {}, o = {}): PodObject {
  const obj = podObject(name, { labels: { app: 'x' }, ...o });
  obj.metadata.uid = name;
  Object.assign(obj.spec, extra);
  return obj;
}

const upsert = (p: PodObject): BerthEvent => ({ type: 'PodUpserted', pod: p });

function info(p: PodObject): PodInfo {
  const i = podInfoFromObject(p);
  if ('rejected' in i) throw new Error(i.rejected);
  return i;
}

/** A what-if copy of `node` without `removed` (the extensions read only its labels here). */
function without(node: NodeInfo, removed: PodInfo): NodeInfo {
  const pods = new Map(node.pods);
  pods.delete(removed.uid);
  return { ...node, pods };
}

/** PreFilter on `s`, a clone with `removed` taken off its node, and Filter on every node. */
function removeAndFilter(pl: Plugin, incoming: PodInfo, s: ClusterSnapshot, removedUid: string) {
  const state: CycleState = new Map();
  expect(pl.preFilter(incoming, state, s).code).toBe('Success');
  const node = s.nodeOrder.find((n) => n.pods.has(removedUid)) as NodeInfo;
  const removed = node.pods.get(removedUid) as PodInfo;
  const copy = without(node, removed);
  const clone: CycleState = new Map(state);
  pl.extensions?.cloneState(state, clone);
  pl.extensions?.removePod(incoming, clone, removed, copy);
  const codes = (st: CycleState) =>
    s.nodeOrder.map((n) => pl.filter(incoming, n === node ? copy : n, st).code);
  return { before: codes(state), after: codes(clone) };
}

const affinityTo = (app: string) => ({
  podAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { labelSelector: { matchLabels: { app } }, topologyKey: 'zone' },
    ],
  },
});

describe('InterPodAffinity extensions', () => {
  it('removing the only pod a group needs lets its first pod go anywhere again', () => {
    const s = cluster(['z1', 'z2'], upsert(pod('web-0', {}, { nodeName: 'n0' })));
    const incoming = info(pod('web-1', { affinity: affinityTo('x') }));
    expect(removeAndFilter(interPodAffinity, incoming, s, 'web-0')).toEqual({
      before: ['Success', 'UnschedulableAndUnresolvable'],
      after: ['Success', 'Success'],
    });
  });

  it('removing an existing pod whose anti-affinity repels the incoming pod frees its zone', () => {
    const repel = pod('guard', {
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'zone' },
          ],
        },
      },
    });
    const s = cluster(
      ['z1', 'z1', 'z2'],
      upsert({ ...repel, spec: { ...repel.spec, nodeName: 'n0' } }),
    );
    expect(removeAndFilter(interPodAffinity, info(pod('in')), s, 'guard')).toEqual({
      before: ['Unschedulable', 'Unschedulable', 'Success'],
      after: ['Success', 'Success', 'Success'],
    });
  });

  it('does nothing when PreFilter was skipped, as kube calls no extension then', () => {
    const s = cluster(['z1']);
    const incoming = info(pod('in'));
    const state: CycleState = new Map();
    interPodAffinity.preFilter(incoming, state, s);
    expect(state.get(affinityKey)).toBe(skipped);
    const repel = info(
      pod('r', {
        affinity: {
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { app: 'x' } }, topologyKey: HOST },
            ],
          },
        },
      }),
    );
    interPodAffinity.extensions.addPod(incoming, state, repel, s.nodeOrder[0] as NodeInfo);
    expect(state.get(affinityKey)).toBe(skipped);
  });
});

const spread = (extra: Record<string, unknown> = {}) => ({
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: 'zone',
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { app: 'x' } },
      ...extra,
    },
  ],
});

describe('PodTopologySpread extensions', () => {
  it('removing a pod from the emptiest zone raises the skew elsewhere (critical paths)', () => {
    const s = cluster(
      ['z1', 'z2'],
      upsert(pod('a', {}, { nodeName: 'n0' })),
      upsert(pod('b', {}, { nodeName: 'n1' })),
    );
    // z1: 1, z2: 1 → both fit; without b, z2 has 0 and z1 (1 + 1 − 0) is too crowded.
    expect(removeAndFilter(podTopologySpread, info(pod('in', spread())), s, 'b')).toEqual({
      before: ['Success', 'Success'],
      after: ['Unschedulable', 'Success'],
    });
  });

  it('ignores pods of other namespaces and terminating pods, as PreFilter counts them', () => {
    const s = cluster(
      ['z1', 'z2'],
      upsert(pod('a', {}, { nodeName: 'n0' })),
      upsert(pod('b', {}, { nodeName: 'n1', namespace: 'other' })),
      upsert(pod('c', {}, { nodeName: 'n1', deletionTimestamp: '2026-01-01T00:00:00Z' })),
    );
    const incoming = info(pod('in', spread()));
    const expected = { before: ['Unschedulable', 'Success'], after: ['Unschedulable', 'Success'] };
    expect(removeAndFilter(podTopologySpread, incoming, s, 'b')).toEqual(expected);
    expect(removeAndFilter(podTopologySpread, incoming, s, 'c')).toEqual(expected);
  });

  it('keeps the global minimum at 0 below minDomains', () => {
    const s = cluster(
      ['z1', 'z2'],
      upsert(pod('a', {}, { nodeName: 'n0' })),
      upsert(pod('b', {}, { nodeName: 'n1' })),
    );
    const incoming = info(pod('in', spread({ minDomains: 3 })));
    expect(removeAndFilter(podTopologySpread, incoming, s, 'b')).toEqual({
      before: ['Unschedulable', 'Unschedulable'],
      after: ['Unschedulable', 'Success'],
    });
  });

  it("critical paths keep kube's two smallest domains", () => {
    const p = newCriticalPaths();
    for (const [v, n] of [
      ['a', 3],
      ['b', 1],
      ['c', 2],
    ] as const)
      updateCriticalPaths(p, v, n);
    expect(p).toEqual([
      { value: 'b', num: 1 },
      { value: 'c', num: 2 },
    ]);
    updateCriticalPaths(p, 'b', 4); // the minimum grows past the second: they swap
    expect(p).toEqual([
      { value: 'c', num: 2 },
      { value: 'b', num: 4 },
    ]);
    updateCriticalPaths(p, 'a', 0); // an untracked domain drops below: it leads
    expect(p).toEqual([
      { value: 'a', num: 0 },
      { value: 'c', num: 2 },
    ]);
  });
});

describe('VolumeRestrictions extensions', () => {
  const claim = (namespace: string): BerthEvent => ({
    type: 'ObjectUpserted',
    kind: 'PersistentVolumeClaim',
    object: claimObject({ name: 'data', namespace, accessModes: ['ReadWriteOncePod'] }),
  });
  const using = (name: string, o: Record<string, string> = {}) =>
    pod(name, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] }, o);

  it('frees a ReadWriteOncePod claim when its only user is removed', () => {
    const s = cluster(['z1'], claim('default'), upsert(using('holder', { nodeName: 'n0' })));
    expect(removeAndFilter(volumeRestrictions, info(using('in')), s, 'holder')).toEqual({
      before: ['Unschedulable'],
      after: ['Success'],
    });
  });

  it('keeps the claim in use while another pod uses it (kube would count it free)', () => {
    const s = cluster(
      ['z1', 'z2'],
      claim('default'),
      upsert(using('one', { nodeName: 'n0' })),
      upsert(using('two', { nodeName: 'n1' })),
    );
    expect(removeAndFilter(volumeRestrictions, info(using('in')), s, 'one').after).toEqual([
      'Unschedulable',
      'Unschedulable',
    ]);
  });

  it('does not count a pod of another namespace naming a claim of the same name', () => {
    const s = cluster(
      ['z1'],
      claim('default'),
      claim('other'),
      upsert(using('holder', { nodeName: 'n0' })),
    );
    const incoming = info(using('in'));
    const state: CycleState = new Map();
    volumeRestrictions.preFilter(incoming, state, s);
    const stranger = info(using('stranger', { namespace: 'other' }));
    volumeRestrictions.extensions.removePod(incoming, state, stranger, s.nodeOrder[0] as NodeInfo);
    expect(volumeRestrictions.filter(incoming, s.nodeOrder[0] as NodeInfo, state).code).toBe(
      'Unschedulable',
    );
  });
});
