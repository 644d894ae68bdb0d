// Pins queue behaviour: priority then creation order, removal, backoff math, pool, hints.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ActiveQueue, comesBefore, type QueuedPod } from './active-queue.ts';
import { backoffDelayMs } from './backoff.ts';
import { couldHelpParkedPods, nodeUpdateCouldHelp } from './requeue.ts';
import { UnschedulablePool } from './unschedulable-pool.ts';

describe('ActiveQueue', () => {
  it('pops higher priority first, then older pods, then by key', () => {
    const q = new ActiveQueue();
    q.push({ key: 'ns/late-high', priority: 10, creationMs: 50 });
    q.push({ key: 'ns/b', priority: 0, creationMs: 1 });
    q.push({ key: 'ns/a', priority: 0, creationMs: 1 });
    q.push({ key: 'ns/old-low', priority: 0, creationMs: 0 });
    const order = [q.pop(), q.pop(), q.pop(), q.pop(), q.pop()].map((p) => p?.key);
    expect(order).toEqual(['ns/late-high', 'ns/old-low', 'ns/a', 'ns/b', undefined]);
  });

  it('removes a pod by key and re-orders a pod pushed twice', () => {
    const q = new ActiveQueue();
    q.push({ key: 'a', priority: 0, creationMs: 0 });
    q.push({ key: 'b', priority: 0, creationMs: 1 });
    q.push({ key: 'c', priority: 0, creationMs: 2 });
    expect(q.remove('a')).toBe(true);
    expect(q.remove('a')).toBe(false);
    q.push({ key: 'c', priority: 5, creationMs: 2 });
    expect(q.size).toBe(2);
    expect(q.pop()?.key).toBe('c');
    expect(q.pop()?.key).toBe('b');
  });

  it('always pops in sorted order, whatever the pushes and removals', () => {
    const pod = fc.record({
      key: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
      priority: fc.integer({ min: -3, max: 3 }),
      creationMs: fc.integer({ min: 0, max: 5 }),
    });
    fc.assert(
      fc.property(fc.array(fc.oneof(pod, fc.constantFrom('a', 'c', 'e'))), (ops) => {
        const q = new ActiveQueue();
        const model = new Map<string, QueuedPod>();
        for (const op of ops) {
          if (typeof op === 'string') {
            expect(q.remove(op)).toBe(model.delete(op));
          } else {
            q.push(op);
            model.set(op.key, op);
          }
        }
        const expected = [...model.values()].sort((x, y) => (comesBefore(x, y) ? -1 : 1));
        const popped: QueuedPod[] = [];
        for (let p = q.pop(); p !== undefined; p = q.pop()) popped.push(p);
        expect(popped).toEqual(expected);
      }),
    );
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
});

describe('couldHelpParkedPods', () => {
  const none = { before: undefined, after: undefined };
  it.each([
    [
      'a node is added or changed',
      { type: 'NodeUpserted', node: { metadata: { name: 'n' } } },
      none,
      true,
    ],
    [
      'a bound pod is deleted',
      { type: 'PodDeleted', key: 'a/b' },
      { before: { kind: 'bound', node: 'n' }, after: undefined },
      true,
    ],
    [
      'a pending pod is deleted',
      { type: 'PodDeleted', key: 'a/b' },
      { before: { kind: 'none' }, after: undefined },
      false,
    ],
    [
      'a pod completes',
      { type: 'PodUpserted', pod: { metadata: { name: 'b' }, spec: {} } },
      { before: { kind: 'bound', node: 'n' }, after: { kind: 'none' } },
      true,
    ],
    [
      'a pod is bound where it was assumed',
      { type: 'PodUpserted', pod: { metadata: { name: 'b' }, spec: {} } },
      { before: { kind: 'assumed', node: 'n' }, after: { kind: 'bound', node: 'n' } },
      false,
    ],
    [
      'a bind fails',
      { type: 'BindFailed', key: 'a/b', node: 'n', reason: 'Error', message: 'x' },
      none,
      true,
    ],
    ['a node is deleted', { type: 'NodeDeleted', name: 'n' }, none, false],
  ] as const)('%s → %s', (_name, event, change, expected) => {
    expect(couldHelpParkedPods(event as never, change as never)).toBe(expected);
  });
});

describe('nodeUpdateCouldHelp', () => {
  const facts = {
    labels: { zone: 'a' },
    taints: [],
    unschedulable: false,
    allocatable: { milliCPU: 1000, memory: 1, ephemeralStorage: 0, pods: 10, scalar: {} },
  };
  const updated = (patch: Partial<typeof facts>) => ({ ...facts, ...patch }) as never;
  it.each([
    ['a new node', undefined, updated({}), true],
    [
      'a heartbeat that changes nothing scheduling reads',
      facts,
      updated({ labels: { zone: 'a' } }),
      false,
    ],
    [
      'more allocatable cpu',
      facts,
      updated({ allocatable: { ...facts.allocatable, milliCPU: 2000 } }),
      true,
    ],
    [
      'a new GPU',
      facts,
      updated({ allocatable: { ...facts.allocatable, scalar: { 'nvidia.com/gpu': 1 } } }),
      true,
    ],
    ['a label change', facts, updated({ labels: { zone: 'b' } }), true],
    [
      'a removed taint',
      { ...facts, taints: [{ key: 'k', effect: 'NoSchedule' }] },
      updated({}),
      true,
    ],
    ['an uncordon', { ...facts, unschedulable: true }, updated({}), true],
  ] as const)('%s → %s', (_name, before, node, expected) => {
    expect(nodeUpdateCouldHelp(before as never, node)).toBe(expected);
  });
});
