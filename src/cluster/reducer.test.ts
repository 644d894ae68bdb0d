// Given/when/then tests of the cluster reducer over event sequences.
import { describe, expect, it } from 'vitest';
import { nodeObject, type PodOptions, podObject } from '../../test/support/objects.ts';
import type { BerthEvent, Envelope } from '../events/types.ts';
import { absentNodes } from './charges.ts';
import { checkClusterInvariants } from './invariants.ts';
import { evolve, getNode, getPodByKey, initialState, reduce } from './reducer.ts';
import type { ClusterChange, ClusterState, NodeInfo } from './types.ts';

const MI = 1024 * 1024;

/** Folds `given` then `when` into a fresh state, checking the invariants after every event. */
function given(...before: BerthEvent[]) {
  return {
    when(...events: BerthEvent[]): ClusterState {
      const state = initialState();
      [...before, ...events].forEach((event, i) => {
        const env: Envelope = { seq: i + 1, time: i * 10, event };
        expect(evolve(state, env)).toBe(state);
        expect(checkClusterInvariants(state)).toEqual([]);
      });
      return state;
    },
  };
}

const nodeUp = (name: string, allocatable?: Record<string, string>): BerthEvent => ({
  type: 'NodeUpserted',
  node: nodeObject(name, allocatable === undefined ? {} : { allocatable }),
});
const nodeDown = (name: string): BerthEvent => ({ type: 'NodeDeleted', name });
/** Pod options plus the uid (default `uid-<name>`; a recreation passes another). */
type PodOpts = PodOptions & { uid?: string; nominatedNodeName?: string };

const podUp = (name: string, o: PodOpts = {}): BerthEvent => {
  const { uid, nominatedNodeName, ...rest } = o;
  const pod = podObject(name, { requests: { cpu: '500m', memory: '1Gi' }, ...rest });
  pod.metadata.uid = uid ?? `uid-${name}`;
  if (nominatedNodeName !== undefined) pod.status = { ...pod.status, nominatedNodeName };
  return { type: 'PodUpserted', pod };
};
const podDown = (name: string, uid = `uid-${name}`): BerthEvent => ({
  type: 'PodDeleted',
  uid,
  key: `default/${name}`,
});
const ref = (name: string, attempt: number, uid = `uid-${name}`) => ({
  uid,
  key: `default/${name}`,
  attempt,
});
const assumed = (name: string, node: string, attempt = 1, uid?: string): BerthEvent => ({
  type: 'PodReserved',
  ...ref(name, attempt, uid),
  node,
});
const bindFailed = (name: string, node: string, attempt = 1, uid?: string): BerthEvent => ({
  type: 'BindFailed',
  ...ref(name, attempt, uid),
  node,
  reason: 'Conflict',
  message: 'conflict',
});
const unreserved = (name: string, node: string, attempt = 1): BerthEvent => ({
  type: 'PodUnreserved',
  ...ref(name, attempt),
  node,
  reason: 'timed out waiting at permit',
});

function node(state: ClusterState, name: string): NodeInfo {
  const n = getNode(state, name);
  if (n === undefined) throw new Error(`no node ${name}`);
  return n;
}
const cpuOn = (state: ClusterState, name: string) => node(state, name).requested.milliCPU;
const podsOn = (state: ClusterState, name: string) => [...node(state, name).pods.keys()].sort();
const chargeOf = (state: ClusterState, name: string) =>
  getPodByKey(state, `default/${name}`)?.charge;

describe('evolve: bound pods', () => {
  it('charges a bound pod to its node', () => {
    const s = given(nodeUp('n1')).when(podUp('a', { nodeName: 'n1' }));
    expect(node(s, 'n1').requested).toEqual({
      milliCPU: 500,
      memory: 1024 * MI,
      ephemeralStorage: 0,
      scalar: {},
    });
    expect(node(s, 'n1').nonZeroRequested).toEqual({ milliCPU: 500, memory: 1024 * MI });
    expect(podsOn(s, 'n1')).toEqual(['uid-a']);
    expect(chargeOf(s, 'a')).toEqual({ kind: 'bound', node: 'n1' });
  });

  it('still charges a terminating pod until it is deleted', () => {
    const s = given(nodeUp('n1')).when(
      podUp('a', { nodeName: 'n1', deletionTimestamp: '2024-01-01T00:00:00Z' }),
    );
    expect(getPodByKey(s, 'default/a')?.info.terminating).toBe(true);
    expect(cpuOn(s, 'n1')).toBe(500);
  });

  it.each(['Succeeded', 'Failed'])('does not charge a %s pod', (phase) => {
    const s = given(nodeUp('n1')).when(podUp('a', { nodeName: 'n1', phase }));
    expect(cpuOn(s, 'n1')).toBe(0);
    expect(chargeOf(s, 'a')).toEqual({ kind: 'none' });
  });

  it('uncharges a running pod when it finishes', () => {
    const s = given(nodeUp('n1'), podUp('a', { nodeName: 'n1', phase: 'Running' })).when(
      podUp('a', { nodeName: 'n1', phase: 'Succeeded' }),
    );
    expect(cpuOn(s, 'n1')).toBe(0);
    expect(podsOn(s, 'n1')).toEqual([]);
  });

  it('does not charge a pending pod without a node', () => {
    const s = given(nodeUp('n1')).when(podUp('a'));
    expect(cpuOn(s, 'n1')).toBe(0);
    expect(chargeOf(s, 'a')).toEqual({ kind: 'none' });
  });

  it('moves the charge when a pod shows up on another node', () => {
    const s = given(nodeUp('n1'), nodeUp('n2'), podUp('a', { nodeName: 'n1' })).when(
      podUp('a', { nodeName: 'n2' }),
    );
    expect(cpuOn(s, 'n1')).toBe(0);
    expect(cpuOn(s, 'n2')).toBe(500);
  });

  it('recharges with new requests when a bound pod is resized', () => {
    const s = given(nodeUp('n1'), podUp('a', { nodeName: 'n1' })).when(
      podUp('a', { nodeName: 'n1', requests: { cpu: '2' } }),
    );
    expect(cpuOn(s, 'n1')).toBe(2000);
    expect(node(s, 'n1').nonZeroRequested.memory).toBe(200 * MI);
  });

  it('charges a pod bound to a node not seen yet once the node appears', () => {
    const s = given(podUp('a', { nodeName: 'n1' })).when(nodeUp('n1'));
    expect(cpuOn(s, 'n1')).toBe(500);
    expect(absentNodes(s).size).toBe(0);
  });
});

describe('evolve: assume and forget', () => {
  it('reserves the pod on the assumed node', () => {
    const s = given(nodeUp('n1'), podUp('a')).when(assumed('a', 'n1'));
    expect(chargeOf(s, 'a')).toEqual({ kind: 'assumed', node: 'n1', attempt: 1 });
    expect(cpuOn(s, 'n1')).toBe(500);
  });

  it('keeps the reservation while an update without nodeName arrives (bind in flight)', () => {
    const s = given(nodeUp('n1'), podUp('a'), assumed('a', 'n1')).when(
      podUp('a', { labels: { v: '2' } }),
    );
    expect(chargeOf(s, 'a')).toEqual({ kind: 'assumed', node: 'n1', attempt: 1 });
    expect(cpuOn(s, 'n1')).toBe(500);
  });

  it('keeps one charge on the same node when the bind is confirmed', () => {
    const s = given(nodeUp('n1'), podUp('a'), assumed('a', 'n1')).when(
      { type: 'BindSucceeded', ...ref('a', 1), node: 'n1' },
      podUp('a', { nodeName: 'n1' }),
    );
    expect(chargeOf(s, 'a')).toEqual({ kind: 'bound', node: 'n1' });
    expect(cpuOn(s, 'n1')).toBe(500);
    expect(podsOn(s, 'n1')).toEqual(['uid-a']);
  });

  it('moves the charge when someone else binds the assumed pod elsewhere', () => {
    const s = given(nodeUp('n1'), nodeUp('n2'), podUp('a'), assumed('a', 'n1')).when(
      podUp('a', { nodeName: 'n2' }),
    );
    expect(cpuOn(s, 'n1')).toBe(0);
    expect(cpuOn(s, 'n2')).toBe(500);
  });

  it('forgets the reservation when the bind fails on that node', () => {
    const s = given(nodeUp('n1'), podUp('a'), assumed('a', 'n1')).when(bindFailed('a', 'n1'));
    expect(chargeOf(s, 'a')).toEqual({ kind: 'none' });
    expect(cpuOn(s, 'n1')).toBe(0);
  });

  it('ignores a bind failure for another node', () => {
    const s = given(nodeUp('n1'), nodeUp('n2'), podUp('a'), assumed('a', 'n1')).when(
      bindFailed('a', 'n2'),
    );
    expect(cpuOn(s, 'n1')).toBe(500);
  });

  it('ignores a bind failure for a pod that is bound', () => {
    const s = given(nodeUp('n1'), podUp('a', { nodeName: 'n1' })).when(bindFailed('a', 'n1'));
    expect(chargeOf(s, 'a')).toEqual({ kind: 'bound', node: 'n1' });
  });

  it.each([
    ['an unknown pod', [nodeUp('n1')], assumed('x', 'n1')],
    [
      'a pod that already has a node',
      [nodeUp('n1'), nodeUp('n2'), podUp('a', { nodeName: 'n2' })],
      assumed('a', 'n1'),
    ],
    ['an unknown node', [nodeUp('n1'), podUp('a')], assumed('a', 'n9')],
    ['a finished pod', [nodeUp('n1'), podUp('a', { phase: 'Failed' })], assumed('a', 'n1')],
  ])('ignores an assumption of %s', (_name, before, event) => {
    const s = given(...before).when(event);
    expect(cpuOn(s, 'n1')).toBe(0);
  });

  it('frees the reservation when the assumed pod is deleted', () => {
    const s = given(nodeUp('n1'), podUp('a'), assumed('a', 'n1')).when(podDown('a'));
    expect(cpuOn(s, 'n1')).toBe(0);
    expect(podsOn(s, 'n1')).toEqual([]);
    expect(getPodByKey(s, 'default/a')).toBeUndefined();
  });
});

describe('evolve: attempts', () => {
  it('keeps the reservation when a bind failure names an older attempt on the same node', () => {
    const s = given(nodeUp('n1'), podUp('a'), assumed('a', 'n1', 2)).when(bindFailed('a', 'n1', 1));
    expect(chargeOf(s, 'a')).toEqual({ kind: 'assumed', node: 'n1', attempt: 2 });
    expect(cpuOn(s, 'n1')).toBe(500);
  });

  it('releases a reservation on PodUnreserved of its attempt and node only', () => {
    const kept = given(nodeUp('n1'), podUp('a'), assumed('a', 'n1', 2)).when(
      unreserved('a', 'n1', 1),
    );
    expect(cpuOn(kept, 'n1')).toBe(500);
    const released = given(nodeUp('n1'), podUp('a'), assumed('a', 'n1', 2)).when(
      unreserved('a', 'n1', 2),
    );
    expect(chargeOf(released, 'a')).toEqual({ kind: 'none' });
    expect(cpuOn(released, 'n1')).toBe(0);
  });

  it('moves the reservation when a later attempt reserves another node', () => {
    const s = given(nodeUp('n1'), nodeUp('n2'), podUp('a'), assumed('a', 'n1', 1)).when(
      assumed('a', 'n2', 2),
    );
    expect(cpuOn(s, 'n1')).toBe(0);
    expect(cpuOn(s, 'n2')).toBe(500);
    expect(chargeOf(s, 'a')).toEqual({ kind: 'assumed', node: 'n2', attempt: 2 });
  });

  it('keeps the pod assumed after BindSucceeded until the watch shows its node', () => {
    const s = given(nodeUp('n1'), podUp('a'), assumed('a', 'n1')).when(
      { type: 'BindSucceeded', ...ref('a', 1), node: 'n1' },
      podUp('a'),
    );
    expect(chargeOf(s, 'a')).toEqual({ kind: 'assumed', node: 'n1', attempt: 1 });
    expect(cpuOn(s, 'n1')).toBe(500);
  });
});

describe('evolve: identity is the uid', () => {
  it('replaces the old pod when a new uid arrives under the same name, freeing its reservation', () => {
    const s = given(nodeUp('n1'), podUp('a', { uid: 'old' }), assumed('a', 'n1', 1, 'old')).when(
      podUp('a', { uid: 'new' }),
    );
    expect([...s.pods.keys()]).toEqual(['new']);
    expect(s.podUids.get('default/a')).toBe('new');
    expect(chargeOf(s, 'a')).toEqual({ kind: 'none' });
    expect(cpuOn(s, 'n1')).toBe(0);
  });

  it('reports the replaced record in the change', () => {
    const s = given(nodeUp('n1'), podUp('a', { uid: 'old', nodeName: 'n1' })).when();
    const change = reduce(s, { seq: 9, time: 0, event: podUp('a', { uid: 'new' }) });
    expect(change).toMatchObject({
      kind: 'pod',
      uid: 'new',
      before: undefined,
      replaced: { info: { uid: 'old' }, charge: { kind: 'bound', node: 'n1' } },
    });
    expect(checkClusterInvariants(s)).toEqual([]);
  });

  it("ignores the old pod's deletion after the name was reused", () => {
    const s = given(nodeUp('n1'), podUp('a', { uid: 'old' }), podUp('a', { uid: 'new' })).when(
      podDown('a', 'old'),
    );
    expect(getPodByKey(s, 'default/a')?.info.uid).toBe('new');
  });

  it("ignores the old pod's bind failure, which names the same name, node and attempt", () => {
    const s = given(
      nodeUp('n1'),
      podUp('a', { uid: 'old' }),
      assumed('a', 'n1', 1, 'old'),
      podUp('a', { uid: 'new' }),
      assumed('a', 'n1', 1, 'new'),
    ).when(bindFailed('a', 'n1', 1, 'old'));
    expect(chargeOf(s, 'a')).toEqual({ kind: 'assumed', node: 'n1', attempt: 1 });
    expect(podsOn(s, 'n1')).toEqual(['new']);
  });

  it('ignores a reservation for a uid that is gone', () => {
    const s = given(nodeUp('n1'), podUp('a', { uid: 'old' }), podUp('a', { uid: 'new' })).when(
      assumed('a', 'n1', 1, 'old'),
    );
    expect(cpuOn(s, 'n1')).toBe(0);
  });
});

describe('evolve: what it reports changed', () => {
  const changeOf = (before: BerthEvent[], event: BerthEvent): ClusterChange => {
    const s = given(...before).when();
    return reduce(s, { seq: 99, time: 0, event });
  };

  it('a new node has no before; an updated node has the facts it had', () => {
    expect(changeOf([], nodeUp('n1'))).toMatchObject({
      kind: 'node',
      name: 'n1',
      before: undefined,
    });
    const updated = changeOf([nodeUp('n1')], nodeUp('n1', { cpu: '8', pods: '10' }));
    expect(updated).toMatchObject({ kind: 'node', before: { allocatable: { milliCPU: 4000 } } });
    expect(updated.kind === 'node' && updated.after?.allocatable.milliCPU).toBe(8000);
  });

  it('a deleted node has no after', () => {
    expect(changeOf([nodeUp('n1')], nodeDown('n1'))).toMatchObject({
      kind: 'node',
      after: undefined,
    });
  });

  it('a reservation and its release are charge changes', () => {
    expect(changeOf([nodeUp('n1'), podUp('a')], assumed('a', 'n1'))).toEqual({
      kind: 'charge',
      uid: 'uid-a',
      before: { kind: 'none' },
      after: { kind: 'assumed', node: 'n1', attempt: 1 },
    });
    expect(
      changeOf([nodeUp('n1'), podUp('a'), assumed('a', 'n1')], bindFailed('a', 'n1')),
    ).toMatchObject({ kind: 'charge', after: { kind: 'none' } });
  });

  it.each<[string, BerthEvent]>([
    ['a bind success', { type: 'BindSucceeded', ...ref('a', 1), node: 'n1' }],
    ['a bind failure of another attempt', bindFailed('a', 'n1', 7)],
    ['a deletion of an unknown uid', podDown('a', 'nobody')],
  ])('%s changes nothing', (_name, event) => {
    expect(changeOf([nodeUp('n1'), podUp('a'), assumed('a', 'n1')], event)).toEqual({
      kind: 'none',
    });
  });
});

describe('evolve: deletions', () => {
  it('removes a deleted pod and its charge', () => {
    const s = given(nodeUp('n1'), podUp('a', { nodeName: 'n1' })).when(podDown('a'));
    expect(s.pods.size).toBe(0);
    expect(cpuOn(s, 'n1')).toBe(0);
  });

  it('swap-removes a deleted node from the order', () => {
    const s = given(nodeUp('n1'), nodeUp('n2'), nodeUp('n3')).when(nodeDown('n1'));
    expect(s.nodeOrder.map((n) => n.name)).toEqual(['n3', 'n2']);
    expect(s.nodeIndex.get('n3')).toBe(0);
    expect(getNode(s, 'n1')).toBeUndefined();
  });

  it('restores the charges of its pods when a deleted node comes back', () => {
    const s = given(
      nodeUp('n1'),
      podUp('a', { nodeName: 'n1' }),
      podUp('b', { nodeName: 'n1' }),
      nodeDown('n1'),
    ).when(nodeUp('n1', { cpu: '8', pods: '10' }));
    expect(cpuOn(s, 'n1')).toBe(1000);
    expect(podsOn(s, 'n1')).toEqual(['uid-a', 'uid-b']);
    expect(node(s, 'n1').allocatable.milliCPU).toBe(8000);
  });

  it('drops what it holds for a deleted node once its last pod is deleted', () => {
    const s = given(nodeUp('n1'), podUp('a', { nodeName: 'n1' }), nodeDown('n1')).when(
      podDown('a'),
    );
    expect(absentNodes(s).size).toBe(0);
    const back = given(
      nodeUp('n1'),
      podUp('a', { nodeName: 'n1' }),
      nodeDown('n1'),
      podDown('a'),
    ).when(nodeUp('n1'));
    expect(cpuOn(back, 'n1')).toBe(0);
  });

  it('ignores deletion of unknown objects', () => {
    const s = given(nodeUp('n1')).when(nodeDown('nx'), podDown('px'));
    expect(s.nodeOrder.map((n) => n.name)).toEqual(['n1']);
  });
});

describe('evolve: node updates and generations', () => {
  it('keeps charges when a node object changes, and bumps its generation', () => {
    const before = given(nodeUp('n1'), podUp('a', { nodeName: 'n1' })).when();
    const gen = node(before, 'n1').generation;
    evolve(before, { seq: 99, time: 0, event: nodeUp('n1', { cpu: '16', pods: '5' }) });
    expect(cpuOn(before, 'n1')).toBe(500);
    expect(node(before, 'n1').allocatable.milliCPU).toBe(16000);
    expect(node(before, 'n1').generation).toBeGreaterThan(gen);
  });

  it('never repeats a generation, even across delete and re-add', () => {
    const s = given(nodeUp('n1')).when();
    const seen = [node(s, 'n1').generation];
    for (const event of [nodeDown('n1'), nodeUp('n1'), podUp('a', { nodeName: 'n1' })]) {
      evolve(s, { seq: 0, time: 0, event });
      const n = getNode(s, 'n1');
      if (n !== undefined) seen.push(n.generation);
    }
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('evolve: relists', () => {
  it('deletes the objects a relist did not mention', () => {
    const s = given(
      nodeUp('n1'),
      nodeUp('n2'),
      podUp('a', { nodeName: 'n1' }),
      podUp('b', { nodeName: 'n2' }),
    ).when(
      { type: 'ResyncStarted', kind: 'Pod' },
      podUp('a', { nodeName: 'n1' }),
      { type: 'ResyncDone', kind: 'Pod' },
      { type: 'ResyncStarted', kind: 'Node' },
      nodeUp('n1'),
      { type: 'ResyncDone', kind: 'Node' },
    );
    expect([...s.pods.keys()]).toEqual(['uid-a']);
    expect(s.nodeOrder.map((n) => n.name)).toEqual(['n1']);
    expect(cpuOn(s, 'n1')).toBe(500);
    expect(s.resync).toEqual({});
  });

  it('keeps the charges of pods on a node a relist dropped', () => {
    const s = given(nodeUp('n1'), podUp('a', { nodeName: 'n1' })).when(
      { type: 'ResyncStarted', kind: 'Node' },
      { type: 'ResyncDone', kind: 'Node' },
      nodeUp('n1'),
    );
    expect(cpuOn(s, 'n1')).toBe(500);
  });

  it('does nothing on a ResyncDone without a start', () => {
    const s = given(nodeUp('n1'), podUp('a')).when({ type: 'ResyncDone', kind: 'Pod' });
    expect(s.pods.size).toBe(1);
  });
});

describe('evolve: what it ignores or rejects', () => {
  it('changes nothing for bind successes, unschedulable decisions and timers', () => {
    const s = given(nodeUp('n1'), podUp('a')).when(
      { type: 'BindSucceeded', ...ref('a', 1), node: 'n1' },
      { type: 'PodUnschedulable', ...ref('a', 1), message: '0/1 nodes are available' },
      { type: 'TimerFired', timer: 'flush' },
    );
    expect(chargeOf(s, 'a')).toEqual({ kind: 'none' });
    expect(cpuOn(s, 'n1')).toBe(0);
  });

  it('ignores an unknown event type and junk envelopes', () => {
    const s = initialState();
    const junk: unknown[] = [
      null,
      3,
      {},
      { event: null },
      { event: { type: 'Nope' } },
      { event: { type: 7 } },
    ];
    for (const env of junk) expect(evolve(s, env as Envelope)).toBe(s);
    expect(s).toEqual(initialState());
  });

  it('records rejected objects with their seq, keeping the last 100', () => {
    const s = initialState();
    for (let seq = 1; seq <= 150; seq++) {
      evolve(s, { seq, time: 0, event: { type: 'PodUpserted', pod: { metadata: {} } as never } });
    }
    evolve(s, { seq: 151, time: 0, event: { type: 'NodeUpserted', node: null as never } });
    expect(s.rejectedTotal).toBe(151);
    expect(s.rejected).toHaveLength(100);
    expect(s.rejected[0]?.seq).toBe(52);
    expect(s.rejected.at(-1)).toEqual({ seq: 151, kind: 'Node', reason: 'node is not an object' });
  });

  it('keeps an invalid pod, charged but explained', () => {
    const s = given(nodeUp('n1')).when(
      podUp('a', { nodeName: 'n1', requests: { cpu: 'x', memory: '1Gi' } }),
    );
    expect(getPodByKey(s, 'default/a')?.info.invalid).toMatch(/^invalid quantity "x"/);
    expect(node(s, 'n1').requested.memory).toBe(1024 * MI);
  });
});

describe('evolve: junk identities', () => {
  it('frees the old name when a uid comes back under another name, so a later pod of that name removes nothing', () => {
    const state = given(
      nodeUp('n0'),
      podUp('p0', { uid: 'u0' }),
      podUp('p1', { uid: 'u0', nodeName: 'n0' }),
    ).when(podUp('p0', { uid: 'u9' }));
    expect(podsOn(state, 'n0')).toEqual(['u0']);
    expect(cpuOn(state, 'n0')).toBe(500);
    expect(getPodByKey(state, 'default/p1')?.info.uid).toBe('u0');
    expect(getPodByKey(state, 'default/p0')?.info.uid).toBe('u9');
  });
});
