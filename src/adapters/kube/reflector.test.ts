// Tests the reflector's state machine against a scripted in-memory ListWatchSource.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiError } from '../../../test/support/kube-api-doubles.ts';
import type { InputEvent, ResourceKind } from '../../events/types.ts';
import { reflect } from './reflector.ts';
import type { ReflectorOptions } from './reflector-options.ts';
import type { ListWatchSource, WatchHandlers } from './watch-source.ts';

/** A scripted list: its items, its resourceVersion, and a failure after the items, if any. */
type ListResult = {
  items: unknown[];
  resourceVersion: string;
  failAfterItems?: Error;
  /** The items come already trimmed (as decoded protobuf items do). */
  trimmed?: boolean;
  /** After this many items the source says the pods bound to nodes are all listed. */
  assignedAfter?: number;
};

interface FakeWatch {
  rv: string;
  handlers: WatchHandlers;
  aborted: boolean;
  /** Resolves the watch() promise (immediately unless the test holds it back). */
  connect(): void;
}

/** A ListWatchSource that plays back scripted lists and records every watch. */
class ScriptedSource implements ListWatchSource {
  resource: string | undefined;
  readonly lists: (ListResult | Error)[] = [];
  readonly watches: FakeWatch[] = [];
  listCalls = 0;
  /** `fromCache` of each list call, in order. */
  readonly fromCache: boolean[] = [];
  holdWatches = false;

  /** Hands the scripted items over after a turn, as they would come off the wire. */
  list(
    opts: { fromCache: boolean },
    onItem: (item: unknown, trimmed?: boolean) => void,
    onAssignedListed?: () => void,
  ): Promise<{ resourceVersion: string }> {
    this.listCalls++;
    this.fromCache.push(opts.fromCache);
    const next = this.lists.shift() ?? new Error('no scripted list');
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve().then(() => {
      next.items.forEach((item, i) => {
        if (i === next.assignedAfter) onAssignedListed?.();
        onItem(item, next.trimmed ?? false);
      });
      if (next.failAfterItems !== undefined) throw next.failAfterItems;
      return { resourceVersion: next.resourceVersion };
    });
  }

  watch(rv: string, handlers: WatchHandlers): Promise<{ abort(): void }> {
    return new Promise((resolve) => {
      const w: FakeWatch = {
        rv,
        handlers,
        aborted: false,
        connect: () =>
          resolve({
            abort: () => {
              w.aborted = true;
            },
          }),
      };
      this.watches.push(w);
      if (!this.holdWatches) w.connect();
    });
  }

  get current(): FakeWatch {
    const w = this.watches.at(-1);
    if (w === undefined) throw new Error('no watch yet');
    return w;
  }
}

function node(name: string, rv: string, extra: Record<string, unknown> = {}) {
  return { metadata: { name, resourceVersion: rv, managedFields: [{}] }, ...extra };
}

function pod(ns: string, name: string, rv: string) {
  return {
    metadata: { namespace: ns, name, resourceVersion: rv },
    spec: { schedulerName: 'berth' },
  };
}

function describeEvent(e: InputEvent): string {
  switch (e.type) {
    case 'NodeUpserted':
      return `NodeUpserted ${e.node.metadata.name}`;
    case 'PodUpserted':
      return `PodUpserted ${e.pod.metadata.namespace}/${e.pod.metadata.name}`;
    case 'NodeDeleted':
      return `NodeDeleted ${e.name}`;
    case 'PodDeleted':
      return `PodDeleted ${e.key}`;
    case 'ObjectUpserted':
      return `ObjectUpserted ${e.kind} ${JSON.stringify(e.object)}`;
    case 'ObjectDeleted':
      return `ObjectDeleted ${e.kind} ${e.key}`;
    case 'ResyncStarted':
      return `${e.type} ${e.kind}`;
    case 'ResyncDone':
      return e.unavailable === undefined
        ? `${e.type} ${e.kind}`
        : `${e.type} ${e.kind} unavailable: ${e.unavailable}`;
    default:
      return e.type;
  }
}

type SetupOptions = Pick<
  ReflectorOptions,
  'inactivityTimeoutMs' | 'optional' | 'optionalRetryMs' | 'onAssignedListed' | 'onListed'
>;

function setup(kind: ResourceKind = 'Node', opts: SetupOptions = {}) {
  const source = new ScriptedSource();
  const events: InputEvent[] = [];
  const logLines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const start = () =>
    reflect({
      kind,
      source,
      logger,
      random: () => 0.5, // no jitter: delays are exactly 800, 1600, 3200 ms …
      timers: { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout },
      ...opts,
    }).subscribe((e) => events.push(e));
  const seen = () => events.splice(0).map(describeEvent);
  return { source, events, logLines, start, seen };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

const tick = (ms = 0) => vi.advanceTimersByTimeAsync(ms);

describe('reflect', () => {
  it('lists first: resync markers around trimmed upserts, then watches from the list rv', async () => {
    const t = setup();
    t.source.lists.push({ items: [node('a', '5'), node('b', '6')], resourceVersion: '10' });
    t.start();
    await tick();
    expect(t.seen()).toEqual([
      'ResyncStarted Node',
      'NodeUpserted a',
      'NodeUpserted b',
      'ResyncDone Node',
    ]);
    expect(t.source.watches.map((w) => w.rv)).toEqual(['10']);
  });

  it('passes on, in order, that a Pod list has handed over every bound pod; a stopped reflector does not', async () => {
    const marks: string[] = [];
    const t = setup('Pod', {
      onAssignedListed: () => marks.push(`assigned after ${t.events.length}`),
    });
    t.source.lists.push({
      items: [pod('ns', 'bound', '5'), pod('ns', 'pending', '6')],
      resourceVersion: '10',
      assignedAfter: 1,
    });
    const sub = t.start();
    await tick();
    // The marker comes after ResyncStarted and the bound pod's upsert, before the pending one.
    expect(marks).toEqual(['assigned after 2']);
    expect(t.seen()).toEqual([
      'ResyncStarted Pod',
      'PodUpserted ns/bound',
      'PodUpserted ns/pending',
      'ResyncDone Pod',
    ]);
    let late: (() => void) | undefined;
    t.source.list = (_opts, _onItem, onAssignedListed) => {
      late = onAssignedListed;
      return new Promise(() => {});
    };
    t.source.current.handlers.onEvent('ERROR', { code: 410, reason: 'Expired', message: 'gone' });
    await tick(1_000);
    late?.(); // the relist's own marker is passed on (the runtime ignores a repeat)
    expect(marks).toHaveLength(2);
    sub.unsubscribe();
    late?.();
    expect(marks).toHaveLength(2);
  });

  it('calls onListed after each completed list, once its ResyncDone is out', async () => {
    const marks: string[] = [];
    const t = setup('Node', { onListed: () => marks.push(t.seen().at(-1) ?? '') });
    t.source.lists.push({ items: [node('a', '5')], resourceVersion: '10' });
    t.source.lists.push(new Error('refused'));
    t.source.lists.push({ items: [node('a', '11')], resourceVersion: '12' });
    t.start();
    await tick();
    expect(marks).toEqual(['ResyncDone Node']);
    t.source.current.handlers.onEvent('ERROR', { code: 410, reason: 'Expired', message: 'gone' });
    await tick(1_000); // the failed relist: no call
    expect(marks).toHaveLength(1);
    await tick(2_000);
    expect(marks).toEqual(['ResyncDone Node', 'ResyncDone Node']);
  });

  it('trims listed objects to what scheduling reads', async () => {
    const t = setup();
    t.source.lists.push({ items: [node('a', '5')], resourceVersion: '10' });
    t.start();
    await tick();
    const upsert = t.events.find((e) => e.type === 'NodeUpserted');
    expect(upsert).toEqual({
      type: 'NodeUpserted',
      node: { metadata: { name: 'a', resourceVersion: '5' } },
    });
  });

  it('does not trim again what the source hands over as already trimmed', async () => {
    const t = setup('Pod');
    const decoded = { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: {} };
    const raw = { ...decoded, metadata: { ...decoded.metadata, annotations: { a: 'b' } } };
    t.source.lists.push({ items: [decoded], resourceVersion: '10', trimmed: true });
    t.start();
    await tick();
    const upsert = t.events.find((e) => e.type === 'PodUpserted');
    // The very object, not a projected copy.
    expect(upsert).toHaveProperty('pod', decoded);
    expect((upsert as { pod: unknown }).pod).toBe(decoded);
    const u = setup('Pod');
    u.source.lists.push({ items: [raw], resourceVersion: '10' });
    u.start();
    await tick();
    const trimmed = u.events.find((e) => e.type === 'PodUpserted') as { pod: unknown };
    expect(trimmed.pod).toEqual(decoded);
  });

  it('turns watch events into upserts and deletes, with ns/name keys for pods', async () => {
    const t = setup('Pod');
    t.source.lists.push({ items: [], resourceVersion: '1' });
    t.start();
    await tick();
    t.seen();
    const h = t.source.current.handlers;
    h.onEvent('ADDED', pod('ns1', 'p', '2'));
    h.onEvent('MODIFIED', pod('ns1', 'p', '3'));
    h.onEvent('DELETED', pod('ns1', 'p', '4'));
    expect(t.seen()).toEqual(['PodUpserted ns1/p', 'PodUpserted ns1/p', 'PodDeleted ns1/p']);
  });

  it('turns another kind into trimmed object upserts and deletes keyed by ns/name', async () => {
    const t = setup('Service');
    const svc = (rv: string) => ({
      metadata: { namespace: 'team', name: 'web', resourceVersion: rv, annotations: { a: 'b' } },
      spec: { selector: { app: 'web' }, clusterIP: '10.0.0.1' },
    });
    t.source.lists.push({ items: [svc('1')], resourceVersion: '1' });
    t.start();
    await tick();
    t.source.current.handlers.onEvent('DELETED', svc('2'));
    const trimmed = (rv: string) =>
      `{"metadata":{"namespace":"team","name":"web","resourceVersion":"${rv}"},"spec":{"selector":{"app":"web"}}}`;
    expect(t.seen()).toEqual([
      'ResyncStarted Service',
      `ObjectUpserted Service ${trimmed('1')}`,
      'ResyncDone Service',
      'ObjectDeleted Service team/web',
    ]);
  });

  it('remembers a bookmark rv without emitting, and resumes from it at once after a normal close', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '1' });
    t.start();
    await tick();
    t.seen();
    t.source.current.handlers.onEvent('MODIFIED', node('a', '7'));
    t.source.current.handlers.onEvent('BOOKMARK', {
      kind: 'Node',
      metadata: { resourceVersion: '9' },
    });
    expect(t.seen()).toEqual(['NodeUpserted a']);
    t.source.current.handlers.onClose(null);
    await tick();
    expect(t.source.watches.map((w) => w.rv)).toEqual(['1', '9']);
    expect(t.source.listCalls).toBe(1);
  });

  it('backs off before re-watching when a watch closes without delivering anything', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '1' });
    t.start();
    await tick();
    t.source.current.handlers.onClose(undefined);
    await tick(799);
    expect(t.source.watches).toHaveLength(1);
    await tick(1);
    expect(t.source.watches.map((w) => w.rv)).toEqual(['1', '1']);
  });

  it('re-watches from the last rv after errors, doubling the backoff until an event resets it', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '1' });
    t.start();
    await tick();
    t.source.current.handlers.onEvent('ADDED', node('a', '4'));
    const times: number[] = [];
    let last = Date.now();
    for (let i = 0; i < 3; i++) {
      const before = t.source.watches.length;
      t.source.current.handlers.onClose(new Error('connection reset'));
      while (t.source.watches.length === before) await tick(100);
      times.push(Date.now() - last);
      last = Date.now();
    }
    expect(times).toEqual([800, 1600, 3200]);
    expect(t.source.watches.map((w) => w.rv)).toEqual(['1', '4', '4', '4']);
    t.source.current.handlers.onEvent('MODIFIED', node('a', '5'));
    t.source.current.handlers.onClose(new Error('connection reset'));
    await tick(800);
    expect(t.source.watches.map((w) => w.rv)).toEqual(['1', '4', '4', '4', '5']);
    expect(t.source.listCalls).toBe(1);
  });

  it('caps the backoff at maxMs', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '1' });
    reflect({
      kind: 'Node',
      source: t.source,
      random: () => 0.5,
      backoff: { initialMs: 100, maxMs: 250 },
      timers: { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout },
    }).subscribe(() => {});
    await tick();
    const gaps: number[] = [];
    for (let i = 0; i < 4; i++) {
      const before = t.source.watches.length;
      const start = Date.now();
      t.source.current.handlers.onClose(new Error('boom'));
      while (t.source.watches.length === before) await tick(10);
      gaps.push(Date.now() - start);
    }
    expect(gaps).toEqual([100, 200, 250, 250]);
  });

  it('relists with resync markers when a watch ERROR event carries 410 Gone', async () => {
    const t = setup();
    t.source.lists.push({ items: [node('a', '2'), node('b', '3')], resourceVersion: '3' });
    t.source.lists.push({ items: [node('b', '8')], resourceVersion: '20' });
    t.start();
    await tick();
    t.seen();
    const gone = t.source.current;
    gone.handlers.onEvent('ERROR', {
      kind: 'Status',
      status: 'Failure',
      message: 'too old resource version: 3 (15)',
      reason: 'Expired',
      code: 410,
    });
    expect(gone.aborted).toBe(true);
    await tick(800);
    expect(t.source.listCalls).toBe(2);
    expect(t.seen()).toEqual(['ResyncStarted Node', 'NodeUpserted b', 'ResyncDone Node']);
    expect(t.source.current.rv).toBe('20');
    // Only the first list may be answered from the watch cache; a relist asks for now.
    expect(t.source.fromCache).toEqual([true, false]);
    // A late close of the expired watch changes nothing.
    gone.handlers.onClose(null);
    gone.handlers.onEvent('ADDED', node('zombie', '99'));
    await tick(5000);
    expect(t.seen()).toEqual([]);
    expect(t.source.watches).toHaveLength(2);
  });

  it('relists when the watch request itself fails with HTTP 410', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '3' });
    t.source.lists.push({ items: [], resourceVersion: '30' });
    t.start();
    await tick();
    t.source.current.handlers.onClose(Object.assign(new Error('Gone'), { statusCode: 410 }));
    await tick(800);
    expect(t.source.listCalls).toBe(2);
    expect(t.source.current.rv).toBe('30');
  });

  it('relists when a watch fails with "too old resource version" in the message', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '3' });
    t.source.lists.push({ items: [], resourceVersion: '31' });
    t.start();
    await tick();
    t.source.current.handlers.onClose(new Error('too old resource version: 3 (40)'));
    await tick(800);
    expect(t.source.listCalls).toBe(2);
  });

  it('re-watches (without relisting) after a non-410 ERROR event', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '3' });
    t.start();
    await tick();
    t.source.current.handlers.onEvent('MODIFIED', node('a', '4'));
    const failed = t.source.current;
    failed.handlers.onEvent('ERROR', { kind: 'Status', code: 500, message: 'etcd hiccup' });
    expect(failed.aborted).toBe(true);
    await tick(800);
    expect(t.source.listCalls).toBe(1);
    expect(t.source.watches.map((w) => w.rv)).toEqual(['3', '4']);
  });

  it('retries a failed list with backoff and emits nothing for the failed attempts', async () => {
    const t = setup();
    t.source.lists.push(new Error('connect ECONNREFUSED'), new Error('connect ECONNREFUSED'));
    t.source.lists.push({ items: [node('a', '2')], resourceVersion: '2' });
    t.start();
    await tick();
    expect(t.source.listCalls).toBe(1);
    expect(t.seen()).toEqual([]);
    await tick(800);
    expect(t.source.listCalls).toBe(2);
    await tick(1599);
    expect(t.source.listCalls).toBe(2);
    await tick(1);
    expect(t.source.listCalls).toBe(3);
    expect(t.seen()).toEqual(['ResyncStarted Node', 'NodeUpserted a', 'ResyncDone Node']);
    expect(t.source.current.rv).toBe('2');
    expect(t.logLines.filter((l) => l.msg === 'list failed; retrying')).toHaveLength(2);
  });

  it('folds objects as they arrive; a list that fails part-way is listed again from the start', async () => {
    const t = setup();
    const cut = new Error('socket hang up');
    t.source.lists.push({
      items: [node('a', '2'), node('b', '3')],
      resourceVersion: '',
      failAfterItems: cut,
    });
    t.source.lists.push({ items: [node('b', '4')], resourceVersion: '9' });
    t.start();
    await tick();
    // The objects of the failed list were folded as they came; no ResyncDone, no watch.
    expect(t.seen()).toEqual(['ResyncStarted Node', 'NodeUpserted a', 'NodeUpserted b']);
    expect(t.source.watches).toHaveLength(0);
    await tick(800);
    // The retry starts the relist over; its ResyncDone drops `a`, which it did not list.
    expect(t.seen()).toEqual(['ResyncStarted Node', 'NodeUpserted b', 'ResyncDone Node']);
    expect(t.source.current.rv).toBe('9');
    expect(t.source.fromCache).toEqual([true, true]);
    const failed = t.logLines.find((l) => l.msg === 'list failed; retrying');
    expect(failed?.listedBeforeFailing).toBe(2);
  });

  it('restarts a watch that stays silent for the inactivity timeout, from the last rv', async () => {
    const t = setup('Node', { inactivityTimeoutMs: 10_000 });
    t.source.lists.push({ items: [], resourceVersion: '1' });
    t.start();
    await tick();
    await tick(6_000);
    t.source.current.handlers.onEvent('BOOKMARK', { metadata: { resourceVersion: '5' } });
    await tick(9_999);
    expect(t.source.watches).toHaveLength(1);
    const silent = t.source.current;
    await tick(1);
    expect(silent.aborted).toBe(true);
    expect(t.logLines.some((l) => l.msg === 'watch silent too long; restarting it')).toBe(true);
    await tick(800);
    expect(t.source.watches.map((w) => w.rv)).toEqual(['1', '5']);
    // The aborted watch's own close callback (client-node calls it with an AbortError) is ignored.
    silent.handlers.onClose(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    await tick(5_000);
    expect(t.source.watches).toHaveLength(2);
  });

  it('restarts a watch that never connects (watch() still pending) and aborts it when it does', async () => {
    const t = setup('Node', { inactivityTimeoutMs: 10_000 });
    t.source.lists.push({ items: [], resourceVersion: '1' });
    t.source.holdWatches = true;
    t.start();
    await tick();
    const hung = t.source.current;
    await tick(10_000 + 800);
    expect(t.source.watches).toHaveLength(2);
    hung.connect();
    await tick();
    expect(hung.aborted).toBe(true);
    const second = t.source.current;
    second.connect();
    await tick();
    expect(second.aborted).toBe(false);
  });

  it('handles a close reported before watch() resolves (client-node does this on HTTP errors)', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '1' });
    t.source.holdWatches = true;
    t.start();
    await tick();
    const first = t.source.current;
    first.handlers.onClose(Object.assign(new Error('Internal Server Error'), { statusCode: 500 }));
    first.connect();
    await tick();
    expect(first.aborted).toBe(true);
    await tick(800);
    expect(t.source.watches).toHaveLength(2);
  });

  it('re-watches after backoff when watch() rejects', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '1' });
    let calls = 0;
    const original = t.source.watch.bind(t.source);
    t.source.watch = (rv, h) =>
      ++calls === 1 ? Promise.reject(new Error('exec plugin failed')) : original(rv, h);
    t.start();
    await tick();
    expect(t.source.watches).toHaveLength(0);
    await tick(800);
    expect(t.source.watches.map((w) => w.rv)).toEqual(['1']);
  });

  it('skips objects without metadata.name, logging the kind, and never errors', async () => {
    const t = setup('Pod');
    t.source.lists.push({
      items: [null, 42, { metadata: {} }, { metadata: { name: '' } }, pod('ns', 'ok', '2'), []],
      resourceVersion: '2',
    });
    t.start();
    await tick();
    expect(t.seen()).toEqual(['ResyncStarted Pod', 'PodUpserted ns/ok', 'ResyncDone Pod']);
    t.source.current.handlers.onEvent('ADDED', { spec: {} });
    t.source.current.handlers.onEvent('DELETED', 'garbage');
    t.source.current.handlers.onEvent('WHATEVER', {});
    t.source.current.handlers.onEvent('MODIFIED', pod('ns', 'ok', '3'));
    expect(t.seen()).toEqual(['PodUpserted ns/ok']);
    const skipped = t.logLines.filter((l) => String(l.msg).includes('without metadata.name'));
    expect(skipped).toHaveLength(7);
    expect(skipped.every((l) => l.kind === 'Pod')).toBe(true);
  });

  it('uses the default namespace for a deleted pod without one', async () => {
    const t = setup('Pod');
    t.source.lists.push({ items: [], resourceVersion: '1' });
    t.start();
    await tick();
    t.seen();
    t.source.current.handlers.onEvent('DELETED', { metadata: { name: 'p', resourceVersion: '2' } });
    expect(t.seen()).toEqual(['PodDeleted default/p']);
  });

  it('unsubscribing aborts the watch, clears every timer and ignores late callbacks', async () => {
    const t = setup();
    t.source.lists.push({ items: [], resourceVersion: '1' });
    const sub = t.start();
    await tick();
    const w = t.source.current;
    expect(vi.getTimerCount()).toBe(1); // the watchdog
    sub.unsubscribe();
    expect(w.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    w.handlers.onEvent('ADDED', node('late', '2'));
    w.handlers.onClose(new Error('late'));
    await tick(120_000);
    expect(t.seen()).toEqual(['ResyncStarted Node', 'ResyncDone Node']);
    expect(t.source.watches).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('unsubscribing during a backoff cancels the pending retry', async () => {
    const t = setup();
    t.source.lists.push(new Error('down'));
    const sub = t.start();
    await tick();
    expect(vi.getTimerCount()).toBe(1);
    sub.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
    await tick(60_000);
    expect(t.source.listCalls).toBe(1);
  });

  it('unsubscribing while the list is in flight drops its result', async () => {
    const t = setup();
    let resolveList: (r: { resourceVersion: string }) => void = () => {};
    let onItem: (item: unknown) => void = () => {};
    t.source.list = (_opts, handItem) =>
      new Promise((resolve) => {
        resolveList = resolve;
        onItem = handItem;
      });
    const sub = t.start();
    sub.unsubscribe();
    onItem(node('a', '1'));
    resolveList({ resourceVersion: '1' });
    await tick();
    expect(t.seen()).toEqual([]);
    expect(t.source.watches).toHaveLength(0);
  });

  it('survives a source that throws, returns junk or fails to abort', async () => {
    const t = setup();
    let calls = 0;
    t.source.list = () => {
      calls++;
      if (calls === 1) throw new Error('sync throw');
      return Promise.resolve({ resourceVersion: 7 } as unknown as { resourceVersion: string });
    };
    const original = t.source.watch.bind(t.source);
    t.source.watch = async (rv, h) => {
      await original(rv, h);
      return {
        abort: () => {
          throw new Error('abort exploded');
        },
      };
    };
    const sub = t.start();
    await tick();
    expect(t.seen()).toEqual([]);
    await tick(800);
    expect(t.seen()).toEqual(['ResyncStarted Node', 'ResyncDone Node']);
    expect(t.source.current.rv).toBe('');
    sub.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
  });
});

/** The 404 the API server answers for a resource it does not serve (no such CRD). */
const notFound = () =>
  apiError(404, 'NotFound', 'the server could not find the requested resource');

function podGroup(name: string, rv: string) {
  return {
    metadata: { namespace: 'ml', name, resourceVersion: rv },
    spec: { minMember: 2 },
    status: { phase: 'Pending' },
  };
}

const unavailablePodGroups =
  'ResyncDone PodGroup unavailable: the API server does not serve ' +
  'scheduling.x-k8s.io/v1alpha1 podgroups (is the PodGroup CRD installed?)';

/** A PodGroup reflector, as `berth run` starts it, on a source that names its resource. */
function podGroups(opts: SetupOptions = { optional: true }) {
  const t = setup('PodGroup', opts);
  t.source.resource = 'scheduling.x-k8s.io/v1alpha1 podgroups';
  const warnings = () => t.logLines.filter((l) => l.level === 40);
  const logged = (msg: string) => t.logLines.filter((l) => l.msg === msg).length;
  return { ...t, warnings, logged };
}

describe('reflect an optional kind (a CRD that may not be installed)', () => {
  it('relists a 404 as empty and unavailable, warns once, then retries quietly every 30 s until served', async () => {
    const t = podGroups();
    t.source.lists.push(notFound(), notFound(), notFound());
    t.source.lists.push({ items: [podGroup('train', '7')], resourceVersion: '7' });
    t.start();
    await tick();
    expect(t.seen()).toEqual(['ResyncStarted PodGroup', unavailablePodGroups]);
    expect(t.warnings()).toHaveLength(1);
    expect(t.source.watches).toHaveLength(0);
    await tick(29_999);
    expect(t.source.listCalls).toBe(1);
    await tick(1);
    expect(t.source.listCalls).toBe(2);
    await tick(30_000);
    expect(t.source.listCalls).toBe(3);
    // Still not served: nothing more emitted, nothing more at warn, no backoff doubling.
    expect(t.seen()).toEqual([]);
    expect(t.warnings()).toHaveLength(1);
    expect(t.logged('list failed; retrying')).toBe(0);
    await tick(30_000);
    expect(t.source.listCalls).toBe(4);
    expect(t.seen()).toEqual([
      'ResyncStarted PodGroup',
      'ObjectUpserted PodGroup {"metadata":{"namespace":"ml","name":"train","resourceVersion":"7"},"spec":{"minMember":2}}',
      'ResyncDone PodGroup',
    ]);
    expect(t.logged('now served; watching it')).toBe(1);
    expect(t.source.watches.map((w) => w.rv)).toEqual(['7']);
  });

  it('says so again, once, when the CRD is deleted later (the watch 404s, the relist 404s)', async () => {
    const t = podGroups();
    t.source.lists.push({ items: [podGroup('train', '5')], resourceVersion: '5' });
    t.source.lists.push(notFound(), notFound());
    t.start();
    await tick();
    t.seen();
    // client-node's Watch reports a refused watch request by its HTTP status.
    t.source.current.handlers.onClose(Object.assign(new Error('Not Found'), { statusCode: 404 }));
    await tick(800);
    expect(t.source.listCalls).toBe(2);
    // The empty relist deletes every PodGroup berth knew (the CRD's objects went with it).
    expect(t.seen()).toEqual(['ResyncStarted PodGroup', unavailablePodGroups]);
    expect(t.warnings()).toHaveLength(1);
    await tick(30_000);
    expect(t.source.listCalls).toBe(3);
    expect(t.seen()).toEqual([]);
    expect(t.warnings()).toHaveLength(1);
    expect(t.source.watches).toHaveLength(1);
  });

  it('relists (and finds it unavailable) after a watch ERROR event carrying 404', async () => {
    const t = podGroups();
    t.source.lists.push({ items: [], resourceVersion: '5' }, notFound());
    t.start();
    await tick();
    t.seen();
    const w = t.source.current;
    w.handlers.onEvent('ERROR', { kind: 'Status', code: 404, reason: 'NotFound', message: 'gone' });
    expect(w.aborted).toBe(true);
    await tick(800);
    expect(t.seen()).toEqual(['ResyncStarted PodGroup', unavailablePodGroups]);
  });

  it('cycles: served, not served, served again, each change logged once', async () => {
    const t = podGroups({ optional: true, optionalRetryMs: 1_000 });
    t.source.lists.push(notFound(), { items: [], resourceVersion: '3' }, notFound());
    t.source.lists.push({ items: [], resourceVersion: '9' });
    t.start();
    await tick();
    await tick(1_000);
    t.source.current.handlers.onClose(Object.assign(new Error('Not Found'), { statusCode: 404 }));
    await tick(800);
    await tick(1_000);
    expect(t.seen()).toEqual([
      'ResyncStarted PodGroup',
      unavailablePodGroups,
      'ResyncStarted PodGroup',
      'ResyncDone PodGroup',
      'ResyncStarted PodGroup',
      unavailablePodGroups,
      'ResyncStarted PodGroup',
      'ResyncDone PodGroup',
    ]);
    expect(t.warnings()).toHaveLength(2);
    expect(t.logged('now served; watching it')).toBe(2);
    expect(t.source.watches.map((w) => w.rv)).toEqual(['3', '9']);
  });

  it('keeps the backoff retry, with warnings, for other list failures of an optional kind', async () => {
    const t = podGroups();
    t.source.lists.push(apiError(403, 'Forbidden', 'podgroups is forbidden'), notFound());
    t.start();
    await tick();
    expect(t.seen()).toEqual([]);
    expect(t.logged('list failed; retrying')).toBe(1);
    await tick(800);
    expect(t.source.listCalls).toBe(2);
    expect(t.seen()).toEqual(['ResyncStarted PodGroup', unavailablePodGroups]);
  });

  it('treats a 404 of a kind that is not optional as any other list failure', async () => {
    const t = podGroups({});
    t.source.lists.push(notFound(), { items: [], resourceVersion: '2' });
    t.start();
    await tick();
    expect(t.seen()).toEqual([]);
    expect(t.logged('list failed; retrying')).toBe(1);
    await tick(800);
    expect(t.seen()).toEqual(['ResyncStarted PodGroup', 'ResyncDone PodGroup']);
  });

  it('unsubscribing while an unserved kind waits to be listed again clears the timer', async () => {
    const t = podGroups();
    t.source.lists.push(notFound());
    const sub = t.start();
    await tick();
    expect(vi.getTimerCount()).toBe(1);
    sub.unsubscribe();
    expect(vi.getTimerCount()).toBe(0);
    await tick(120_000);
    expect(t.source.listCalls).toBe(1);
  });
});
