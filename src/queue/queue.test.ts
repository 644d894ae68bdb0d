// Pins queue behaviour: priority then queue-entry order, removal, backoff math, pool, hints.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../machines/backoff.ts';
import { makeNode, makePod } from '../../test/support/builders.ts';
import type { Charge, ClusterChange, NodeFacts } from '../cluster/types.ts';
import {
  capacityFreed,
  never,
  nodeAdded,
  nodeCordonChanged,
  nodeLabelsChanged,
  nodeTaintsChanged,
} from '../framework/hints.ts';
import type { QueueingHint } from '../framework/types.ts';
import { ActiveQueue, comesBefore, type QueuedPod } from './active-queue.ts';
import { changeCouldHelp, pluginsHelpedBy } from './requeue.ts';
import { type ParkedPod, UnschedulablePool } from './unschedulable-pool.ts';

describe('ActiveQueue', () => {
  const q = (key: string, priority: number, enqueuedAt: number, order: number): QueuedPod => ({
    key,
    priority,
    enqueuedAt,
    order,
  });

  it('pops higher priority first, then the pod queued earlier, then by entry order', () => {
    const queue = new ActiveQueue();
    queue.push(q('late-high', 10, 50, 1));
    queue.push(q('b', 0, 1, 3));
    queue.push(q('a', 0, 1, 2));
    queue.push(q('old-low', 0, 0, 4));
    const order = [queue.pop(), queue.pop(), queue.pop(), queue.pop(), queue.pop()];
    expect(order.map((p) => p?.key)).toEqual(['late-high', 'old-low', 'a', 'b', undefined]);
  });

  it('puts a pod that re-entered the queue behind a newer pod of equal priority (its queue time, not its creation)', () => {
    const queue = new ActiveQueue();
    // "old" was created and queued first; its queue time is now its last failure, at 30.
    queue.push(q('new', 0, 10, 2));
    queue.push(q('old', 0, 30, 3));
    expect(queue.pop()?.key).toBe('new');
    expect(queue.pop()?.key).toBe('old');
  });

  it('removes a pod by key and re-orders a pod pushed twice', () => {
    const queue = new ActiveQueue();
    queue.push(q('a', 0, 0, 1));
    queue.push(q('b', 0, 1, 2));
    queue.push(q('c', 0, 2, 3));
    expect(queue.remove('a')).toBe(true);
    expect(queue.remove('a')).toBe(false);
    queue.push(q('c', 5, 2, 3));
    expect(queue.size).toBe(2);
    expect(queue.get('c')?.priority).toBe(5);
    expect(queue.has('a')).toBe(false);
    expect(queue.pop()?.key).toBe('c');
    expect(queue.pop()?.key).toBe('b');
  });

  it('always pops in sorted order, whatever the pushes and removals', () => {
    const pod = fc.record({
      key: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
      priority: fc.integer({ min: -3, max: 3 }),
      enqueuedAt: fc.integer({ min: 0, max: 5 }),
    });
    fc.assert(
      fc.property(fc.array(fc.oneof(pod, fc.constantFrom('a', 'c', 'e'))), (ops) => {
        const queue = new ActiveQueue();
        const model = new Map<string, QueuedPod>();
        let order = 0;
        for (const op of ops) {
          if (typeof op === 'string') {
            expect(queue.remove(op)).toBe(model.delete(op));
          } else {
            const entry = { ...op, order: ++order };
            queue.push(entry);
            model.set(op.key, entry);
          }
        }
        const expected = [...model.values()].sort((x, y) => (comesBefore(x, y) ? -1 : 1));
        const popped: QueuedPod[] = [];
        for (let p = queue.pop(); p !== undefined; p = queue.pop()) popped.push(p);
        expect(popped).toEqual(expected);
      }),
    );
  });
});

describe('ActiveQueue snapshot', () => {
  const q = (key: string, priority: number, enqueuedAt: number, order: number): QueuedPod => ({
    key,
    priority,
    enqueuedAt,
    order,
  });

  it('loads its entries back into a queue that pops in the same order', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            key: fc.string({ minLength: 1, maxLength: 3 }),
            priority: fc.integer({ min: -2, max: 2 }),
            enqueuedAt: fc.integer({ min: 0, max: 4 }),
          }),
          { selector: (p) => p.key },
        ),
        fc.nat(),
        (pods, drop) => {
          const original = new ActiveQueue();
          for (const [i, p] of pods.entries()) original.push({ ...p, order: i + 1 });
          if (pods.length > 0) original.remove(pods[drop % pods.length]?.key as string);
          const copy = new ActiveQueue();
          copy.load(JSON.parse(JSON.stringify(original.entries())) as QueuedPod[]);
          expect(copy.entries()).toEqual(original.entries());
          const popped: [string | undefined, string | undefined][] = [];
          while (original.size > 0) popped.push([original.pop()?.key, copy.pop()?.key]);
          expect(popped.every(([a, b]) => a === b)).toBe(true);
          expect(copy.size).toBe(0);
        },
      ),
    );
  });

  it('refuses entries out of heap order, twice the same key, or a queue in use', () => {
    expect(() => new ActiveQueue().load([q('late', 0, 9, 1), q('early', 0, 1, 2)])).toThrow(
      /entry 1 \(early\) breaks the heap order/,
    );
    expect(() => new ActiveQueue().load([q('a', 0, 1, 1), q('a', 0, 2, 2)])).toThrow(/twice/);
    const used = new ActiveQueue();
    used.push(q('a', 0, 1, 1));
    expect(() => used.load([q('b', 0, 1, 2)])).toThrow(/non-empty/);
  });
});

describe('UnschedulablePool snapshot', () => {
  it('loads its entries back in parking order, so the oldest are flushed first', () => {
    const pool = new UnschedulablePool();
    pool.park('a', 0, ['NodeAffinity']);
    pool.park('b', 100);
    pool.park('a', 250, ['NodeResourcesFit']);
    const copy = new UnschedulablePool();
    copy.load(JSON.parse(JSON.stringify([...pool.entries()])) as [string, ParkedPod][]);
    expect([...copy.entries()]).toEqual([...pool.entries()]);
    expect(copy.parkedLongerThan(300, 150)).toEqual(['b']);
    expect(() => copy.load([['c', { at: 1, plugins: [] }]])).toThrow(/non-empty/);
    expect(() =>
      new UnschedulablePool().load([
        ['c', { at: 1, plugins: [] }],
        ['c', { at: 2, plugins: [] }],
      ]),
    ).toThrow(/twice/);
  });
});

describe('backoffDelayMs', () => {
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [4, 8_000],
    [5, 10_000],
    [1_000_000, 10_000],
  ])('after %i failed attempts waits %i ms', (attempts, expected) => {
    expect(backoffDelayMs(attempts)).toBe(expected);
  });

  it('honours a configured initial and maximum', () => {
    expect(backoffDelayMs(3, { initialMs: 100, maxMs: 250 })).toBe(250);
    expect(backoffDelayMs(2, { initialMs: 100, maxMs: 250 })).toBe(200);
  });
});

describe('UnschedulablePool', () => {
  it('lists pods parked longer than the limit, oldest first', () => {
    const pool = new UnschedulablePool();
    pool.park('a', 0);
    pool.park('b', 100);
    pool.park('c', 200);
    pool.park('a', 250);
    expect(pool.parkedLongerThan(300, 150)).toEqual(['b']);
    expect(pool.keys()).toEqual(['b', 'c', 'a']);
  });

  it('remembers which plugins rejected each parked pod, replaced on re-parking', () => {
    const pool = new UnschedulablePool();
    pool.park('a', 0, ['NodeAffinity']);
    pool.park('b', 1);
    pool.park('a', 2, ['NodeResourcesFit']);
    expect([...pool.entries()]).toEqual([
      ['b', { at: 1, plugins: [] }],
      ['a', { at: 2, plugins: ['NodeResourcesFit'] }],
    ]);
  });
});

const allocatable = { milliCPU: 1000, memory: 1, ephemeralStorage: 0, pods: 10, scalar: {} };
const facts: NodeFacts = { labels: { zone: 'a' }, taints: [], unschedulable: false, allocatable };
const nodeChange = (before: NodeFacts | undefined, after: Partial<NodeFacts>): ClusterChange => ({
  kind: 'node',
  name: 'n',
  before,
  after: makeNode({ name: 'n', ...facts, ...after }),
});
const podChange = (
  before: Charge | undefined,
  after: Charge | undefined,
  replaced?: Charge,
): ClusterChange => {
  const info = makePod({ name: 'b' });
  const rec = (charge: Charge | undefined) => (charge === undefined ? undefined : { info, charge });
  return {
    kind: 'pod',
    uid: info.uid,
    before: rec(before),
    after: rec(after),
    replaced: rec(replaced),
  };
};
const none: Charge = { kind: 'none' };
const boundN: Charge = { kind: 'bound', node: 'n' };
const assumedN: Charge = { kind: 'assumed', node: 'n', attempt: 1 };

describe('queueing hints', () => {
  it.each<[string, ClusterChange, boolean]>([
    ['a new node', nodeChange(undefined, {}), true],
    ['a node deleted', { kind: 'node', name: 'n', before: facts, after: undefined }, false],
    ['a heartbeat that changes nothing scheduling reads', nodeChange(facts, {}), false],
    [
      'more allocatable cpu',
      nodeChange(facts, { allocatable: { ...allocatable, milliCPU: 2000 } }),
      true,
    ],
    [
      'a new GPU',
      nodeChange(facts, { allocatable: { ...allocatable, scalar: { 'nvidia.com/gpu': 1 } } }),
      true,
    ],
    [
      'memory past 2^53 grown by one byte (a bigint amount)',
      nodeChange(
        { ...facts, allocatable: { ...allocatable, memory: 2n ** 53n + 1n } },
        { allocatable: { ...allocatable, memory: 2n ** 53n + 2n } },
      ),
      true,
    ],
    [
      'a heartbeat of a node with memory past 2^53',
      nodeChange(
        { ...facts, allocatable: { ...allocatable, memory: 2n ** 53n + 1n } },
        { allocatable: { ...allocatable, memory: 2n ** 53n + 1n } },
      ),
      false,
    ],
    ['a label change', nodeChange(facts, { labels: { zone: 'b' } }), false],
    ['a bound pod deleted', podChange(boundN, undefined), true],
    ['a pending pod deleted', podChange(none, undefined), false],
    ['a pod completing', podChange(boundN, none), true],
    ['a pod bound where it was assumed', podChange(assumedN, boundN), false],
    ['a pod added', podChange(undefined, none), false],
    ['a bound pod replaced by a new pod of its name', podChange(undefined, none, boundN), true],
    ['a reservation released', { kind: 'charge', uid: 'u', before: assumedN, after: none }, true],
    ['a reservation made', { kind: 'charge', uid: 'u', before: none, after: assumedN }, false],
    [
      'a relist removing pods',
      { kind: 'resync', removedNodes: [], removedPods: [{ info: makePod(), charge: boundN }] },
      true,
    ],
    ['a relist removing nothing', { kind: 'resync', removedNodes: [], removedPods: [] }, false],
    ['nothing', { kind: 'none' }, false],
  ])('capacityFreed: %s → %s', (_name, change, expected) => {
    expect(capacityFreed(change)).toBe(expected);
  });

  it.each<[string, QueueingHint, ClusterChange, boolean]>([
    [
      'labels: a label change',
      nodeLabelsChanged,
      nodeChange(facts, { labels: { zone: 'b' } }),
      true,
    ],
    ['labels: a new node', nodeLabelsChanged, nodeChange(undefined, {}), true],
    ['labels: a heartbeat', nodeLabelsChanged, nodeChange(facts, { labels: { zone: 'a' } }), false],
    [
      'labels: more cpu',
      nodeLabelsChanged,
      nodeChange(facts, { allocatable: { ...allocatable, milliCPU: 9 } }),
      false,
    ],
    ['labels: a pod deleted', nodeLabelsChanged, podChange(boundN, undefined), false],
    [
      'taints: a removed taint',
      nodeTaintsChanged,
      nodeChange({ ...facts, taints: [{ key: 'k', effect: 'NoSchedule' }] }, {}),
      true,
    ],
    [
      'taints: a label change',
      nodeTaintsChanged,
      nodeChange(facts, { labels: { zone: 'b' } }),
      false,
    ],
    [
      'cordon: an uncordon',
      nodeCordonChanged,
      nodeChange({ ...facts, unschedulable: true }, {}),
      true,
    ],
    ['cordon: a heartbeat', nodeCordonChanged, nodeChange(facts, {}), false],
    ['name: a new node', nodeAdded, nodeChange(undefined, {}), true],
    ['name: a node update', nodeAdded, nodeChange(facts, { labels: { x: 'y' } }), false],
    ['never: a new node', never, nodeChange(undefined, {}), false],
  ])('%s → %s', (_name, hint, change, expected) => {
    expect(hint(change)).toBe(expected);
  });
});

describe('requeue with hints', () => {
  const hints = new Map<string, QueueingHint>([
    ['NodeAffinity', nodeLabelsChanged],
    ['NodeResourcesFit', capacityFreed],
    ['PodValidity', never],
  ]);
  const parked = (...plugins: string[]): ParkedPod => ({ at: 0, plugins });
  const freed = podChange(boundN, undefined);
  const relabelled = nodeChange(facts, { labels: { zone: 'b' } });

  it('names the plugins a change could help', () => {
    expect([...pluginsHelpedBy(freed, hints)]).toEqual(['NodeResourcesFit']);
    expect([...pluginsHelpedBy(relabelled, hints)]).toEqual(['NodeAffinity']);
    expect(pluginsHelpedBy({ kind: 'none' }, hints).size).toBe(0);
  });

  it.each<[string, ParkedPod, ClusterChange, boolean]>([
    ['rejected only by NodeAffinity, capacity freed', parked('NodeAffinity'), freed, false],
    ['rejected only by NodeAffinity, a node relabelled', parked('NodeAffinity'), relabelled, true],
    [
      'rejected by NodeAffinity and NodeResourcesFit, capacity freed',
      parked('NodeAffinity', 'NodeResourcesFit'),
      freed,
      true,
    ],
    ['rejected by a plugin without a hint', parked('Custom'), freed, true],
    ['rejected by no named plugin', parked(), freed, true],
    ['rejected by PodValidity, whose hint never helps', parked('PodValidity'), relabelled, false],
  ])('%s → %s', (_name, pod, change, expected) => {
    expect(changeCouldHelp(pod, pluginsHelpedBy(change, hints), hints)).toBe(expected);
  });
});
