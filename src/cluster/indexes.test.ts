// Given/when/then tests of the snapshot's indexes (topology, images, nominated pods) kept by the reducer.
import { describe, expect, it } from 'vitest';
import { nodeObject, type PodOptions, podObject } from '../../test/support/objects.ts';
import type { BerthEvent } from '../events/types.ts';
import type { ContainerImage } from '../model/objects.ts';
import { checkClusterInvariants } from './invariants.ts';
import { evolve, initialState } from './reducer.ts';
import type { ClusterState } from './types.ts';

/** Folds the events into `state`, checking the invariants after every one. */
function foldInto(state: ClusterState, events: BerthEvent[]): ClusterState {
  events.forEach((event, i) => {
    evolve(state, { seq: i + 1, time: i, event });
    expect(checkClusterInvariants(state), `after event ${i + 1} (${event.type})`).toEqual([]);
  });
  return state;
}

/** Folds the events into a fresh state (berth as kube 1.34: nominations not followed). */
function fold(...events: BerthEvent[]): ClusterState {
  return foldInto(initialState(), events);
}

/** Folds the events into a fresh state that follows nomination removals (berth as kube 1.35+). */
function foldFollowing(...events: BerthEvent[]): ClusterState {
  return foldInto({ ...initialState(), followsNominationRemoval: true }, events);
}

const nodeUp = (name: string, labels: Record<string, string>): BerthEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, { labels }),
});
const nodeDown = (name: string): BerthEvent => ({ type: 'NodeDeleted', name });
type PodOpts = PodOptions & { uid?: string; nominated?: string };
const podUp = (name: string, o: PodOpts = {}): BerthEvent => {
  const { uid, nominated, ...rest } = o;
  const pod = podObject(name, { requests: { cpu: '1' }, ...rest });
  pod.metadata.uid = uid ?? `${name}-1`;
  if (nominated !== undefined) pod.status = { ...pod.status, nominatedNodeName: nominated };
  return { type: 'PodUpserted', pod };
};
const podDown = (name: string, uid = `${name}-1`): BerthEvent => ({
  type: 'PodDeleted',
  uid,
  key: `default/${name}`,
});
const at = (name: string, attempt = 1) => ({ uid: `${name}-1`, key: `default/${name}`, attempt });
const reserve = (name: string, node: string): BerthEvent => ({
  type: 'PodReserved',
  ...at(name),
  node,
});

/** The topology index as plain data: key → value → sorted node names. */
function topology(state: ClusterState): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  for (const [k, values] of state.topology) {
    out[k] = {};
    for (const [v, names] of values) out[k][v] = [...names].sort();
  }
  return out;
}

/** The nominated index as plain data: node → sorted uids. */
function nominated(state: ClusterState): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [node, pods] of state.nominated) out[node] = [...pods.keys()].sort();
  return out;
}

describe('topology index', () => {
  it('indexes every label of every node', () => {
    const s = fold(nodeUp('n1', { zone: 'a', disk: 'ssd' }), nodeUp('n2', { zone: 'a' }));
    expect(topology(s)).toEqual({ zone: { a: ['n1', 'n2'] }, disk: { ssd: ['n1'] } });
  });

  it('follows a label change, dropping values and keys no node has any more', () => {
    const s = fold(
      nodeUp('n1', { zone: 'a', disk: 'ssd' }),
      nodeUp('n2', { zone: 'a' }),
      nodeUp('n1', { zone: 'b' }),
    );
    expect(topology(s)).toEqual({ zone: { a: ['n2'], b: ['n1'] } });
  });

  it('forgets a deleted node, and indexes it again with its new labels when it comes back', () => {
    const deleted = fold(
      nodeUp('n1', { zone: 'a' }),
      podUp('p', { nodeName: 'n1' }),
      nodeDown('n1'),
    );
    expect(topology(deleted)).toEqual({});
    const back = fold(
      nodeUp('n1', { zone: 'a' }),
      podUp('p', { nodeName: 'n1' }),
      nodeDown('n1'),
      nodeUp('n1', { zone: 'c' }),
    );
    expect(topology(back)).toEqual({ zone: { c: ['n1'] } });
  });

  it('forgets the nodes a relist did not see', () => {
    const s = fold(
      nodeUp('n1', { zone: 'a' }),
      nodeUp('n2', { zone: 'b' }),
      { type: 'ResyncStarted', kind: 'Node' },
      nodeUp('n2', { zone: 'b' }),
      { type: 'ResyncDone', kind: 'Node' },
    );
    expect(topology(s)).toEqual({ zone: { b: ['n2'] } });
  });

  it('is not touched by pods', () => {
    const s = fold(nodeUp('n1', { zone: 'a' }), podUp('p', { nodeName: 'n1' }), podDown('p'));
    expect(topology(s)).toEqual({ zone: { a: ['n1'] } });
  });
});

const imagesUp = (name: string, images: ContainerImage[]): BerthEvent => {
  const node = nodeObject(name);
  node.status = { ...node.status, images };
  return { type: 'NodeUpserted', node };
};

/** The image index as plain data: name → [size, numNodes], in index order. */
function images(state: ClusterState): [string, number, number][] {
  return Array.from(state.imageStates, ([name, s]) => [name, s.size, s.numNodes]);
}

describe('image index', () => {
  it('counts, per name, the live nodes listing it (a name listed twice on a node counts once)', () => {
    const s = fold(
      imagesUp('n1', [
        { names: ['app:1', 'app@sha256:9'], sizeBytes: 10 },
        { names: ['app:1'], sizeBytes: 99 },
      ]),
      imagesUp('n2', [{ names: ['app:1'], sizeBytes: 10 }]),
    );
    expect(images(s)).toEqual([
      ['app:1', 10, 2],
      ['app@sha256:9', 10, 1],
    ]);
  });

  it('keeps the size of the node that brought a name in, whatever later nodes report', () => {
    const s = fold(
      imagesUp('n1', [{ names: ['app:1'], sizeBytes: 10 }]),
      imagesUp('n2', [{ names: ['app:1'], sizeBytes: 20 }]),
      nodeDown('n1'),
    );
    expect(images(s)).toEqual([['app:1', 10, 1]]);
  });

  it('takes a node update as its old images out, then its new ones in', () => {
    const base = [
      imagesUp('n1', [{ names: ['app:1'], sizeBytes: 10 }]),
      imagesUp('n2', [{ names: ['app:1'], sizeBytes: 20 }]),
      nodeDown('n1'),
    ];
    // n2 alone holds app:1: out and back in, the name now carries n2's size.
    expect(images(fold(...base, imagesUp('n2', [{ names: ['app:1'], sizeBytes: 20 }])))).toEqual([
      ['app:1', 20, 1],
    ]);
    // A name a node no longer lists loses that node; a name no node lists leaves the index.
    const changed = fold(...base, imagesUp('n2', [{ names: ['db:2'], sizeBytes: 5 }]));
    expect(images(changed)).toEqual([['db:2', 5, 1]]);
  });

  it('forgets a deleted node, even one whose pods keep it as an absent node, until it comes back', () => {
    const up = imagesUp('n1', [{ names: ['app:1'], sizeBytes: 10 }]);
    const deleted = fold(up, podUp('p', { nodeName: 'n1' }), nodeDown('n1'));
    expect(images(deleted)).toEqual([]);
    expect(deleted.absentNodes.has('n1')).toBe(true);
    const back = fold(up, podUp('p', { nodeName: 'n1' }), nodeDown('n1'), up);
    expect(images(back)).toEqual([['app:1', 10, 1]]);
  });

  it('forgets the nodes a relist did not see', () => {
    const s = fold(
      imagesUp('n1', [{ names: ['app:1'], sizeBytes: 10 }]),
      imagesUp('n2', [{ names: ['app:1', 'db:2'], sizeBytes: 10 }]),
      { type: 'ResyncStarted', kind: 'Node' },
      imagesUp('n1', [{ names: ['app:1'], sizeBytes: 10 }]),
      { type: 'ResyncDone', kind: 'Node' },
    );
    expect(images(s)).toEqual([['app:1', 10, 1]]);
  });

  it('is not touched by pods', () => {
    const up = imagesUp('n1', [{ names: ['app:1'], sizeBytes: 10 }]);
    const s = fold(up, podUp('p', { nodeName: 'n1' }), podDown('p'));
    expect(images(s)).toEqual([['app:1', 10, 1]]);
  });
});

describe('nominated index', () => {
  it('holds an unbound pod under its nominated node, as its current PodInfo', () => {
    const s = fold(nodeUp('n1', {}), podUp('p', { nominated: 'n1' }));
    expect(nominated(s)).toEqual({ n1: ['p-1'] });
    expect(s.nominated.get('n1')?.get('p-1')).toBe(s.pods.get('p-1')?.info);
  });

  it('moves the pod when its nomination changes; an update without one keeps it', () => {
    const moved = fold(podUp('p', { nominated: 'n1' }), podUp('p', { nominated: 'n2' }));
    expect(nominated(moved)).toEqual({ n2: ['p-1'] });
    // Not following removals (berth as 1.34): an update without one keeps it.
    const kept = fold(podUp('p', { nominated: 'n1' }), podUp('p'));
    expect(nominated(kept)).toEqual({ n1: ['p-1'] });
  });

  it('following removals (1.35+): an update that drops the nomination the object carried ends it; one berth decided, not yet in the object, is kept', () => {
    const removed = foldFollowing(podUp('p', { nominated: 'n1' }), podUp('p'));
    expect(nominated(removed)).toEqual({});
    expect(removed.pods.get('p-1')?.info.statusNominatedNodeName).toBeUndefined();
    const decided = foldFollowing(
      podUp('p'),
      { type: 'PodNominated', ...at('p'), node: 'n1', message: 'm' },
      podUp('p'),
    );
    expect(nominated(decided)).toEqual({ n1: ['p-1'] });
    // The object then names it, and later drops it: whoever removed it ended it.
    const landed = foldFollowing(
      podUp('p'),
      { type: 'PodNominated', ...at('p'), node: 'n1', message: 'm' },
      podUp('p', { nominated: 'n1' }),
      podUp('p'),
    );
    expect(nominated(landed)).toEqual({});
  });

  it('drops a nominated pod while it is reserved, and takes it back when the reservation is released', () => {
    const reserved = fold(nodeUp('n1', {}), podUp('p', { nominated: 'n1' }), reserve('p', 'n1'));
    expect(nominated(reserved)).toEqual({});
    const released = fold(nodeUp('n1', {}), podUp('p', { nominated: 'n1' }), reserve('p', 'n1'), {
      type: 'BindFailed',
      ...at('p'),
      node: 'n1',
      reason: 'Conflict',
      message: 'm',
    });
    expect(nominated(released)).toEqual({ n1: ['p-1'] });
  });

  it('drops a nominated pod once it is bound, finished or deleted', () => {
    const base = [nodeUp('n1', {}), podUp('p', { nominated: 'n1' })];
    expect(nominated(fold(...base, podUp('p', { nominated: 'n1', nodeName: 'n1' })))).toEqual({});
    expect(nominated(fold(...base, podUp('p', { nominated: 'n1', phase: 'Failed' })))).toEqual({});
    expect(nominated(fold(...base, podDown('p')))).toEqual({});
  });

  it('drops the old pod when its name is recreated with a new uid', () => {
    const s = fold(
      podUp('p', { nominated: 'n1' }),
      podUp('p', { uid: 'p-2', nominated: 'n2' }),
      podDown('p', 'p-1'),
    );
    expect(nominated(s)).toEqual({ n2: ['p-2'] });
  });

  it('forgets the pods a relist did not see', () => {
    const s = fold(
      podUp('p', { nominated: 'n1' }),
      podUp('q', { nominated: 'n1' }),
      { type: 'ResyncStarted', kind: 'Pod' },
      podUp('q', { nominated: 'n1' }),
      { type: 'ResyncDone', kind: 'Pod' },
    );
    expect(nominated(s)).toEqual({ n1: ['q-1'] });
  });

  it('keeps nominations to a node that does not exist (the index is by name)', () => {
    const s = fold(nodeUp('n1', {}), podUp('p', { nominated: 'n1' }), nodeDown('n1'));
    expect(nominated(s)).toEqual({ n1: ['p-1'] });
  });
});

describe('checkClusterInvariants on the indexes', () => {
  it('reports a topology entry no node carries', () => {
    const s = fold(nodeUp('n1', { zone: 'a' }));
    s.topology.get('zone')?.get('a')?.add('ghost');
    expect(checkClusterInvariants(s)).toEqual(['topology index holds 2 entries, nodes have 1']);
  });

  it('reports a label missing from the topology index', () => {
    const s = fold(nodeUp('n1', { zone: 'a' }));
    s.topology.clear();
    expect(checkClusterInvariants(s)).toContain('topology index lacks zone=a on n1');
  });

  it('reports an image count that is off, and a name no live node lists', () => {
    const s = fold(imagesUp('n1', [{ names: ['app:1'], sizeBytes: 10 }]));
    const summary = s.imageStates.get('app:1');
    if (summary !== undefined) summary.numNodes = 2;
    s.imageStates.set('ghost:1', { size: 1, numNodes: 1 });
    expect(checkClusterInvariants(s)).toEqual([
      'image index counts 2 nodes with app:1, not 1',
      'image index holds ghost:1, which no live node lists',
    ]);
  });

  it('reports a nominated pod missing from, or stale in, the index', () => {
    const missing = fold(podUp('p', { nominated: 'n1' }));
    missing.nominated.clear();
    expect(checkClusterInvariants(missing)).toContain(
      'pod default/p nominated to n1 is not indexed',
    );
    const stale = fold(nodeUp('n1', {}), podUp('p', { nominated: 'n1' }), reserve('p', 'n1'));
    const info = stale.pods.get('p-1')?.info;
    if (info !== undefined) stale.nominated.set('n1', new Map([['p-1', info]]));
    expect(checkClusterInvariants(stale)).toContain('nominated index holds stale pods');
  });
});
