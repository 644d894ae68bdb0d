// The capacity proof against the full walk: same outcome, message, counts and cursor, on generated clusters.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Gi, Mi, makePod } from '../../test/support/builders.ts';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import type { Amount } from '../cluster/amount.ts';
import { capacityIndexOf } from '../cluster/capacity-index.ts';
import { initialState, reduce } from '../cluster/reducer.ts';
import type { ClusterState, NodeInfo, PodInfo } from '../cluster/types.ts';
import type { BerthEvent } from '../events/types.ts';
import { type CycleResult, type SchedulingContext, scheduleOne } from '../framework/cycle.ts';
import { seededRng } from '../framework/rng.ts';
import type { Profile } from '../framework/types.ts';
import type { NodeObject, Taint } from '../model/objects.ts';
import { proveFromIndex, walkStartFits } from './capacity-proof.ts';
import { fitsRequest } from './node-resources-fit.ts';
import { defaultProfile } from './registry.ts';

/** One change to the cluster, in reducer events. */
type Op =
  | { kind: 'node'; at: number; object: NodeObject }
  | { kind: 'deleteNode'; at: number }
  | { kind: 'bind'; pod: number; at: number; cpu: string; memory: string }
  | { kind: 'reserve'; pod: number; at: number; cpu: string }
  | { kind: 'unreserve'; pod: number; at: number }
  | { kind: 'deletePod'; pod: number };

const NODES = 12;
const taint = fc.constantFrom<Taint>(
  { key: 'dedicated', value: 'a', effect: 'NoSchedule' },
  { key: 'dedicated', value: 'b', effect: 'NoExecute' },
  { key: 'soft', value: 'a', effect: 'PreferNoSchedule' },
);
const nodeObj = fc
  .record({
    cpu: fc.constantFrom('1', '2', '4', '8'),
    memory: fc.constantFrom('1Gi', '4Gi', '16Gi'),
    pods: fc.constantFrom('0', '1', '3', '110'),
    storage: fc.constantFrom(undefined, '10Gi', '50Gi'),
    taints: fc.oneof(
      { weight: 4, arbitrary: fc.constant<Taint[]>([]) },
      fc.array(taint, { maxLength: 2 }),
    ),
    cordon: fc.integer({ min: 0, max: 9 }),
    broken: fc.integer({ min: 0, max: 19 }),
  })
  .map((n) => (name: string): NodeObject => {
    const allocatable: Record<string, string> = { cpu: n.cpu, memory: n.memory, pods: n.pods };
    if (n.storage !== undefined) allocatable['ephemeral-storage'] = n.storage;
    if (n.broken === 0) allocatable.cpu = 'lots';
    return nodeObject(name, { allocatable, taints: n.taints, unschedulable: n.cordon === 0 });
  });
const at = fc.integer({ min: 0, max: NODES - 1 });
const podIx = fc.integer({ min: 0, max: 20 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(at, nodeObj)
      .map(([i, make]): Op => ({ kind: 'node', at: i, object: make(`n${i}`) })),
  },
  { weight: 1, arbitrary: at.map((i): Op => ({ kind: 'deleteNode', at: i })) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('bind' as const),
      pod: podIx,
      at,
      cpu: fc.constantFrom('100m', '500m', '1', '2'),
      memory: fc.constantFrom('128Mi', '1Gi', '3Gi'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('reserve' as const),
      pod: podIx,
      at,
      cpu: fc.constantFrom('500m', '1'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unreserve' as const), pod: podIx, at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deletePod' as const), pod: podIx }) },
);

/** The reducer events of `ops`, seq from 1. */
function eventsOf(ops: readonly Op[]): BerthEvent[] {
  const events: BerthEvent[] = [];
  for (const o of ops) {
    const key = (p: number) => ({ uid: `default/p${p}`, key: `default/p${p}`, attempt: 1 });
    if (o.kind === 'node') events.push({ type: 'NodeUpserted', node: o.object });
    else if (o.kind === 'deleteNode') events.push({ type: 'NodeDeleted', name: `n${o.at}` });
    else if (o.kind === 'bind') {
      const requests = { cpu: o.cpu, memory: o.memory };
      const pod = podObject(`p${o.pod}`, { nodeName: `n${o.at}`, requests });
      events.push({ type: 'PodUpserted', pod });
    } else if (o.kind === 'reserve') {
      const pod = podObject(`p${o.pod}`, { requests: { cpu: o.cpu } });
      events.push({ type: 'PodUpserted', pod });
      events.push({ type: 'PodReserved', ...key(o.pod), node: `n${o.at}` });
    } else if (o.kind === 'unreserve') {
      events.push({ type: 'PodUnreserved', ...key(o.pod), node: `n${o.at}`, reason: 'test' });
    } else events.push({ type: 'PodDeleted', uid: `default/p${o.pod}`, key: `default/p${o.pod}` });
  }
  return events;
}

/** The state after `ops`; `check` sees it after every event. */
function clusterOf(ops: readonly Op[], check?: (state: ClusterState) => void): ClusterState {
  const state = initialState();
  eventsOf(ops).forEach((event, i) => {
    reduce(state, { seq: i + 1, time: 0, event });
    check?.(state);
  });
  return state;
}

const queryPod = fc
  .record({
    cpu: fc.constantFrom(0, 100, 1000, 3000, 9000),
    memory: fc.constantFrom(0, 256 * Mi, 2 * Gi, 20 * Gi),
    storage: fc.constantFrom(0, 20 * Gi, 100 * Gi),
    tolerate: fc.boolean(),
    selector: fc.integer({ min: 0, max: 5 }),
    nodeName: fc.integer({ min: 0, max: 7 }),
  })
  .map((q) =>
    makePod({
      requests: { milliCPU: q.cpu, memory: q.memory, ephemeralStorage: q.storage },
      tolerations: q.tolerate ? [{ key: 'dedicated', operator: 'Exists' }] : [],
      ...(q.selector === 0 ? { nodeSelector: { zone: 'a' } } : {}),
      ...(q.nodeName === 0 ? { nodeName: 'n3' } : {}),
    }),
  );

function run(pod: PodInfo, state: ClusterState, profile: Profile, start: number) {
  const ctx: SchedulingContext = {
    profile,
    rng: seededRng(7),
    cursor: { next: start },
    percentageOfNodesToScore: 0,
  };
  const result = scheduleOne(pod, state, ctx);
  return { result, cursor: ctx.cursor.next };
}

/** Everything a cycle's caller can see, with the proof's partial nodeToStatus checked apart. */
function expectSameOutcome(fast: CycleResult, slow: CycleResult): void {
  expect(fast.kind).toBe(slow.kind);
  if (fast.kind !== 'Unschedulable' || slow.kind !== 'Unschedulable') {
    expect(fast).toEqual(slow);
    return;
  }
  expect(fast.message).toBe(slow.message);
  const f = fast.diagnosis;
  const s = slow.diagnosis;
  expect(f.reasons).toEqual(s.reasons);
  expect(f.unresolvableNodes).toBe(s.unresolvableNodes);
  expect([...f.unschedulablePlugins]).toEqual([...s.unschedulablePlugins]);
  expect(f.preFilterMsg).toBe(s.preFilterMsg);
  expect(f.nodeToStatus.size + f.summarizedNodes).toBe(s.nodeToStatus.size);
  for (const [name, status] of f.nodeToStatus) expect(status).toEqual(s.nodeToStatus.get(name));
}

/** Brute force over the live nodes: what the index must say. */
function expectIndexMatches(state: ClusterState): void {
  const index = capacityIndexOf(state);
  expect(index).toBeDefined();
  if (index === undefined) return;
  const open: NodeInfo[] = [];
  const guarded: string[] = [];
  for (const node of state.nodeOrder) {
    const hard = node.taints.some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
    // An amount past 2^53 is a bigint, which the index leaves to the filters.
    const wide = typeof node.freeMemory === 'bigint' || typeof node.allocMemory === 'bigint';
    if (node.unschedulable || node.invalid !== undefined || hard || wide) guarded.push(node.name);
    else open.push(node);
  }
  expect([...index.guarded.keys()].sort()).toEqual(guarded.sort());
  expect(index.openCount).toBe(open.length);
  for (const x of [-1, 0, 1, 500, 1000, 2000, 4000, Gi, 4 * Gi, 20 * Gi, 2n ** 53n + 1n]) {
    for (const r of ['freePods', 'freeMilliCPU', 'freeMemory', 'freeEphemeralStorage'] as const) {
      expect(index.countOpenBelow(r, x)).toBe(open.filter((n) => n[r] < x).length);
    }
  }
  const shapes = new Map<string, number>();
  for (const n of open) {
    const k = `${n.allocMilliCPU}/${n.allocMemory}/${n.allocatable.ephemeralStorage}`;
    shapes.set(k, (shapes.get(k) ?? 0) + 1);
  }
  const indexed = new Map<string, number>();
  for (const s of index.shapes()) {
    indexed.set(`${s.milliCPU}/${s.memory}/${s.ephemeralStorage}`, s.count);
  }
  expect(indexed).toEqual(shapes);
}

describe('proveInfeasibleFromCapacity', () => {
  const profile = defaultProfile();
  const { proveInfeasible: _unused, ...walkOnly } = profile;

  it('counts 47 open nodes without visiting them, as the walk would', () => {
    const ops: Op[] = [];
    for (let i = 0; i < 50; i++) {
      const taints: Taint[] = i % 17 === 0 ? [{ key: 'x', value: 'y', effect: 'NoSchedule' }] : [];
      ops.push({ kind: 'node', at: i, object: nodeObject(`n${i}`, { taints }) });
    }
    const state = clusterOf(ops);
    const pod = makePod({ requests: { milliCPU: 8000 } });
    const fast = run(pod, state, profile, 5);
    const slow = run(pod, state, walkOnly, 5);
    expect(fast.result.kind).toBe('Unschedulable');
    if (fast.result.kind !== 'Unschedulable') return;
    expect(fast.result.message).toBe(
      '0/50 nodes are available: 3 node(s) had untolerated taint(s), 47 Insufficient cpu. preemption: 0/50 nodes are available: 50 Preemption is not helpful for scheduling.',
    );
    expect(fast.result.diagnosis.summarizedNodes).toBe(47);
    expect(fast.result.diagnosis.nodeToStatus.size).toBe(3);
    expect(fast.result.diagnosis.unresolvableNodes).toBe(50);
    expectSameOutcome(fast.result, slow.result);
    expect(fast.cursor).toBe(slow.cursor);
  });

  it('leaves a pod that fits somewhere to the walk', () => {
    const state = clusterOf([{ kind: 'node', at: 0, object: nodeObject('n0') }]);
    const { result } = run(makePod({ requests: { milliCPU: 100 } }), state, profile, 0);
    expect(result).toMatchObject({ kind: 'Scheduled', node: 'n0' });
  });

  it('gives the walk’s outcome, message, counts, plugin order and cursor on generated clusters', () => {
    let proved = 0;
    fc.assert(
      fc.property(
        fc.array(nodeObj, { minLength: 1, maxLength: NODES }),
        fc.array(op, { minLength: 1, maxLength: 80, size: 'max' }),
        fc.array(fc.tuple(queryPod, fc.nat(40)), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (nodes, changes, queries, readEveryStep) => {
          const created = nodes.map(
            (make, i): Op => ({ kind: 'node', at: i, object: make(`n${i}`) }),
          );
          // The index read after every event, or only at the end (many changes pending).
          const all = [...created, ...changes];
          const state = clusterOf(all, readEveryStep ? expectIndexMatches : undefined);
          expectIndexMatches(state);
          for (const [pod, start] of queries) {
            const fast = run(pod, state, profile, start);
            const slow = run(pod, state, walkOnly, start);
            expectSameOutcome(fast.result, slow.result);
            expect(fast.cursor).toBe(slow.cursor);
            if (fast.result.kind === 'Unschedulable' && fast.result.diagnosis.summarizedNodes > 0)
              proved++;
          }
        },
      ),
      { numRuns: 300, seed: 20261123 },
    );
    // The proof must actually have been taken, or this test compares the walk with itself.
    expect(proved).toBeGreaterThan(100);
  });

  it('gives the walk’s outcome on clusters with amounts past 2^53', () => {
    // Some nodes hold 16Ei or 2^53 + 1 bytes, some pods ask for 2^53 + 1: bigint amounts.
    const wideNode = fc.tuple(at, fc.constantFrom('16Ei', '9007199254740993')).map(
      ([i, memory]): Op => ({
        kind: 'node',
        at: i,
        object: nodeObject(`n${i}`, { allocatable: { cpu: '4', memory, pods: '110' } }),
      }),
    );
    const widePod = fc
      .constantFrom<Amount>(2n ** 53n + 1n, 2n ** 62n, 1)
      .map((memory) => makePod({ requests: { milliCPU: 100, memory } }));
    fc.assert(
      fc.property(
        fc.array(nodeObj, { minLength: 1, maxLength: NODES }),
        fc.array(fc.oneof(op, wideNode), { minLength: 1, maxLength: 40 }),
        fc.array(fc.tuple(fc.oneof(queryPod, widePod), fc.nat(40)), { minLength: 1, maxLength: 8 }),
        (nodes, changes, queries) => {
          const created = nodes.map(
            (make, i): Op => ({ kind: 'node', at: i, object: make(`n${i}`) }),
          );
          const state = clusterOf([...created, ...changes], expectIndexMatches);
          for (const [pod, start] of queries) {
            const fast = run(pod, state, profile, start);
            const slow = run(pod, state, walkOnly, start);
            expectSameOutcome(fast.result, slow.result);
            expect(fast.cursor).toBe(slow.cursor);
          }
        },
      ),
      { numRuns: 150, seed: 20261128 },
    );
  });

  it('is given up early (walkStartFits) only where the proof itself would give up', () => {
    let early = 0;
    let guardedStartProved = 0;
    const misses: string[] = [];
    // The plain proof, watched: whenever the shortcut would hold, it must find nothing.
    const watched: Profile = {
      ...profile,
      proveInfeasible: (pod, filters, snapshot, state, walkStart) => {
        const proof = proveFromIndex(pod, filters, snapshot, state, walkStart);
        const start = snapshot.nodeOrder[walkStart] as NodeInfo;
        if (walkStartFits(pod, snapshot, walkStart)) {
          early++;
          // An open node NodeResourcesFit passes: the plain proof's reason to give up. (The
          // cycle turns a throw into an Error outcome, so misses are collected, not thrown.)
          const open = capacityIndexOf(snapshot)?.guarded.has(start.name) === false;
          const fits = fitsRequest(pod, start).code === 'Success';
          if (!open || !fits || proof !== undefined) misses.push(`${pod.key} at ${start.name}`);
        } else if (proof !== undefined && start.freeMilliCPU >= pod.requests.milliCPU)
          guardedStartProved++;
        return proof;
      },
    };
    fc.assert(
      fc.property(
        fc.array(nodeObj, { minLength: 1, maxLength: NODES }),
        fc.array(op, { minLength: 1, maxLength: 80, size: 'max' }),
        fc.array(fc.tuple(queryPod, fc.nat(40)), { minLength: 1, maxLength: 8 }),
        (nodes, changes, queries) => {
          const created = nodes.map(
            (make, i): Op => ({ kind: 'node', at: i, object: make(`n${i}`) }),
          );
          const state = clusterOf([...created, ...changes]);
          for (const [pod, start] of queries) run(pod, state, watched, start);
        },
      ),
      { numRuns: 300, seed: 20261124 },
    );
    expect(misses).toEqual([]);
    expect(early).toBeGreaterThan(100);
    expect(guardedStartProved).toBeGreaterThan(0);
  });
});
