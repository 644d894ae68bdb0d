// The topology-aware gang search: one domain per group, the tightest that holds it, nodes without the label never used.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import { parsePodGroup } from '../cluster/pod-groups.ts';
import { initialState, reduce } from '../cluster/reducer.ts';
import type { ClusterState, PodInfo } from '../cluster/types.ts';
import type { InputEvent } from '../events/types.ts';
import { scheduleOne } from '../framework/cycle.ts';
import { seededRng } from '../framework/rng.ts';
import { profileFromConfig } from '../plugins/registry.ts';
import { pinnedDomain, rankDomains, tryGroupInDomain } from './gang-topology.ts';

const rack = 'topology.kubernetes.io/rack';
const profile = profileFromConfig({ postFilters: [] });

/** A cluster of `nodes` ([name, cpu, rack or undefined]) and `bound` pods ([name, cpu, node]). */
function clusterOf(
  nodes: [string, number, string | undefined][],
  bound: [string, number, string][] = [],
): ClusterState {
  const state = initialState();
  let seq = 1;
  const apply = (event: InputEvent) => reduce(state, { seq: seq++, time: 0, event });
  for (const [name, cpu, value] of nodes)
    apply({
      type: 'NodeUpserted',
      node: nodeObject(name, {
        allocatable: { cpu: String(cpu), memory: '8Gi', pods: '110' },
        ...(value === undefined ? {} : { labels: { [rack]: value } }),
      }),
    });
  for (const [name, cpu, node] of bound) {
    const pod = podObject(name, { requests: { cpu: String(cpu) }, nodeName: node });
    pod.metadata.uid = `${name}-uid`;
    apply({ type: 'PodUpserted', pod });
  }
  return state;
}

/** `count` pending members of `cpu` each, added to `cluster` (a reservation needs its pod). */
function members(
  cluster: ClusterState,
  count: number,
  cpu = 1,
): { info: PodInfo; attempt: number }[] {
  const out: { info: PodInfo; attempt: number }[] = [];
  for (let i = 0; i < count; i++) {
    const uid = `m${i}-uid`;
    let info = cluster.pods.get(uid)?.info;
    if (info === undefined) {
      const pod = podObject(`m${i}`, { schedulerName: 'berth', requests: { cpu: String(cpu) } });
      pod.metadata.uid = uid;
      reduce(cluster, { seq: 1000 + i, time: 0, event: { type: 'PodUpserted', pod } });
      info = cluster.pods.get(uid)?.info as PodInfo;
    }
    out.push({ info, attempt: 0 });
  }
  return out;
}

function search(cluster: ClusterState, count: number, pinned?: string) {
  const ctx = { profile, rng: seededRng(1), cursor: { next: 0 }, percentageOfNodesToScore: 100 };
  return tryGroupInDomain({
    cluster,
    members: members(cluster, count),
    time: 0,
    key: rack,
    pinned,
    schedule: (pod, adapt) => scheduleOne(pod, cluster, { ...ctx, profile: adapt(profile) }),
  });
}

const nodesOf = (trial: ReturnType<typeof search>) =>
  trial.kind === 'placed' ? trial.placements.map((p) => p.node).sort() : [];

describe('topology-aware gang placement', () => {
  it('places every member inside one rack even when the cluster as a whole has room elsewhere', () => {
    const cluster = clusterOf([
      ['a1', 2, 'ra'],
      ['b1', 2, 'rb'],
      ['b2', 2, 'rb'],
      ['c1', 2, 'rc'],
    ]);
    const trial = search(cluster, 4);
    expect(trial.kind).toBe('placed');
    expect(trial.kind === 'placed' && trial.domain).toBe('rb');
    expect(nodesOf(trial)).toEqual(['b1', 'b1', 'b2', 'b2']);
  });

  it('chooses the tightest rack that holds the group: least free capacity left after it', () => {
    const cluster = clusterOf(
      [
        ['a1', 4, 'ra'],
        ['b1', 4, 'rb'],
        ['c1', 4, 'rc'],
      ],
      [
        ['busy-a', 1, 'a1'],
        ['busy-c', 2, 'c1'],
      ],
    );
    // Free: ra 3, rb 4, rc 2 → two members leave rc with 0 of 4.
    const trial = search(cluster, 2);
    expect(trial.kind === 'placed' && trial.domain).toBe('rc');
    expect(trial.tried).toBe(1);
  });

  it('breaks ties between equally tight racks by the label value', () => {
    const cluster = clusterOf([
      ['z1', 2, 'rz'],
      ['m1', 2, 'rm'],
      ['y1', 2, 'ry'],
    ]);
    const trial = search(cluster, 2);
    expect(trial.kind === 'placed' && trial.domain).toBe('rm');
  });

  it('never uses a node without the label, and says so when no node has it', () => {
    const unlabelled = clusterOf([
      ['free1', 8, undefined],
      ['r1', 1, 'ra'],
    ]);
    const trial = search(unlabelled, 2);
    expect(trial.kind).toBe('none');
    expect(trial.kind === 'none' && trial.message).toBe(
      `no domain of ${rack} holds all 2 members: 0 of 1 domains tried, 1 too small by summed free capacity`,
    );
    const none = search(clusterOf([['free1', 8, undefined]]), 1);
    expect(none.kind === 'none' && none.message).toBe(
      `no live node has the topology label ${rack}`,
    );
  });

  it('tries a rack whose summed capacity suffices but whose nodes do not, and names the closest', () => {
    // ra has 2 cpu free over two nodes (1 + 1) but members need 2 cpu each: tried, none fits.
    const cluster = clusterOf([
      ['a1', 1, 'ra'],
      ['a2', 1, 'ra'],
    ]);
    const ctx = { profile, rng: seededRng(1), cursor: { next: 0 }, percentageOfNodesToScore: 100 };
    const trial = tryGroupInDomain({
      cluster,
      members: members(cluster, 1, 2),
      time: 0,
      key: rack,
      pinned: undefined,
      schedule: (pod, adapt) => scheduleOne(pod, cluster, { ...ctx, profile: adapt(profile) }),
    });
    expect(trial.kind).toBe('none');
    expect(trial.tried).toBe(1);
    expect(trial.kind === 'none' && trial.closest?.domain).toBe('ra');
  });

  it('tries only the rack members already placed sit in', () => {
    const cluster = clusterOf([
      ['a1', 1, 'ra'],
      ['b1', 8, 'rb'],
    ]);
    expect(search(cluster, 2, 'ra').kind).toBe('none');
    expect(search(cluster, 2, 'rb').kind).toBe('placed');
    const pinnedFull = search(cluster, 2, 'ra');
    expect(pinnedFull.kind === 'none' && pinnedFull.message).toBe(
      `members already placed in ${rack}=ra; the 2 more do not fit there (too little cpu)`,
    );
  });

  it('leaves the state as it was, whatever the outcome', () => {
    const cluster = clusterOf([
      ['a1', 2, 'ra'],
      ['b1', 1, 'rb'],
    ]);
    search(cluster, 2);
    search(cluster, 5);
    expect(cluster.nodes.get('a1')?.freeMilliCPU).toBe(2000);
    expect(cluster.nodes.get('b1')?.pods.size).toBe(0);
  });
});

describe('the domain members already placed pin', () => {
  const cluster = clusterOf([
    ['a1', 2, 'ra'],
    ['a2', 2, 'ra'],
    ['b1', 2, 'rb'],
    ['x1', 2, undefined],
  ]);
  it('is their common label value, or undefined when none is placed', () => {
    expect(pinnedDomain(cluster, ['a1', 'a2'], rack)).toBe('ra');
    expect(pinnedDomain(cluster, [], rack)).toBeUndefined();
  });
  it('is a conflict, named, when they span racks or sit on an unlabelled node', () => {
    expect(pinnedDomain(cluster, ['a1', 'b1'], rack)).toEqual({
      conflict: `members already placed in both ${rack}=ra and ${rack}=rb`,
    });
    expect(pinnedDomain(cluster, ['x1'], rack)).toEqual({
      conflict: `a member already placed on x1, which has no label ${rack}`,
    });
  });
  it('ranks every rack by the capacity left, short ones marked', () => {
    const ranked = rankDomains(cluster, members(cluster, 3), rack, undefined);
    expect(ranked.map((d) => [d.domain, d.short])).toEqual([
      ['rb', 'cpu'],
      ['ra', undefined],
    ]);
  });
});

describe('the berth.dev/topology-key annotation', () => {
  const pg = (annotations: Record<string, unknown>) =>
    parsePodGroup({ metadata: { name: 'g', namespace: 'ml', annotations }, spec: {} });
  it('reads one node label key', () => {
    const parsed = pg({ 'berth.dev/topology-key': rack });
    expect('value' in parsed && parsed.value.topologyKeys).toEqual([rack]);
  });
  it('names a value that is not a label key, and reads no key then', () => {
    for (const bad of ['', 'two words', 'a/b/c', 7]) {
      const parsed = pg({ 'berth.dev/topology-key': bad });
      expect('value' in parsed && parsed.value.topologyKeys).toEqual([]);
      expect('value' in parsed && parsed.value.topologyProblem).toBe(
        `annotation berth.dev/topology-key ${JSON.stringify(bad)} is not a node label key`,
      );
    }
  });
  it('is no constraint when absent', () => {
    const parsed = pg({});
    expect('value' in parsed && [parsed.value.topologyKeys, parsed.value.topologyProblem]).toEqual([
      [],
      undefined,
    ]);
  });
});
