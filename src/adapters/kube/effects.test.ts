// Tests KubeEffects against fake API clients that fail the way client-node 1.4 fails.
import {
  ApiException,
  type ConfigurationOptions,
  FetchError,
  HttpMethod,
  RequestContext,
  V1MicroTime,
} from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { InputEvent } from '../../events/types.ts';
import type { KubeClients } from './config.ts';
import { KubeEffects, type KubeEffectsOptions } from './effects.ts';
import { TokenBucket } from './rate-limiter.ts';

type Call = { param: Record<string, unknown>; options: ConfigurationOptions | undefined };

function status(code: number, reason: string, message: string) {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message,
    reason,
    code,
  });
}

function apiError(code: number, reason: string, message: string) {
  return new ApiException(code, 'Unknown API Status Code!', status(code, reason, message), {});
}

function deferred() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function setup(over: Partial<KubeEffectsOptions> = {}) {
  const calls = { bind: [] as Call[], patch: [] as Call[], event: [] as Call[] };
  const behaviour = {
    bind: async (): Promise<unknown> => ({}),
    patch: async (): Promise<unknown> => ({}),
    event: async (): Promise<unknown> => ({}),
  };
  const clients = {
    server: 'https://fake',
    core: {
      createNamespacedPodBinding: (
        param: Record<string, unknown>,
        options?: ConfigurationOptions,
      ) => {
        calls.bind.push({ param, options });
        return behaviour.bind();
      },
      patchNamespacedPodStatus: (
        param: Record<string, unknown>,
        options?: ConfigurationOptions,
      ) => {
        calls.patch.push({ param, options });
        return behaviour.patch();
      },
    },
    events: {
      createNamespacedEvent: (param: Record<string, unknown>, options?: ConfigurationOptions) => {
        calls.event.push({ param, options });
        return behaviour.event();
      },
    },
  } as unknown as KubeClients;
  const ingested: InputEvent[] = [];
  const logLines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const effects = new KubeEffects({
    clients,
    limiter: new TokenBucket({ qps: 1000, burst: 1000 }),
    ingest: (e) => ingested.push(e),
    logger,
    reportingInstance: 'berth-test',
    schedulerName: 'berth',
    now: () => new Date('2030-01-02T03:04:05.678Z'),
    ...over,
  });
  return { effects, calls, behaviour, ingested, logLines };
}

/** Runs the per-call middleware of `options` on a request and returns its headers. */
async function headersAfter(options: ConfigurationOptions | undefined) {
  const ctx = new RequestContext('https://fake/x', HttpMethod.PATCH);
  ctx.setHeaderParam('Content-Type', 'application/json-patch+json');
  for (const m of options?.middleware ?? []) await m.pre(ctx).toPromise();
  return ctx.getHeaders();
}

describe('KubeEffects.bind', () => {
  it('posts the Binding subresource and reports BindSucceeded', async () => {
    const t = setup();
    t.effects.bind('ns1/p1', 'node-a');
    await t.effects.idle();
    expect(t.calls.bind.map((c) => c.param)).toEqual([
      {
        name: 'p1',
        namespace: 'ns1',
        body: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name: 'p1', namespace: 'ns1' },
          target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
        },
      },
    ]);
    expect(t.ingested).toEqual([{ type: 'BindSucceeded', key: 'ns1/p1', node: 'node-a' }]);
  });

  it.each([
    [
      'a 409 as Conflict with the API message',
      apiError(409, 'Conflict', 'pod p1 is already assigned to node "node-b"'),
      'Conflict',
      'pod p1 is already assigned to node "node-b"',
      409,
    ],
    [
      'a 404 as NotFound',
      apiError(404, 'NotFound', 'pods "p1" not found'),
      'NotFound',
      'pods "p1" not found',
      404,
    ],
    [
      'a 500 as Error',
      apiError(500, 'InternalError', 'Internal error occurred: etcdserver: request timed out'),
      'Error',
      'Internal error occurred: etcdserver: request timed out',
      500,
    ],
    [
      'a 401 (client-node gives no body) as Error',
      new ApiException(401, 'Unauthorized', undefined, {}),
      'Error',
      '401 Unauthorized',
      401,
    ],
    [
      'a refused connection as Error',
      new FetchError(
        'request to https://127.0.0.1:1/api/v1/namespaces/ns1/pods/p1/binding failed, reason: connect ECONNREFUSED 127.0.0.1:1',
        'system',
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      ),
      'Error',
      'connect ECONNREFUSED 127.0.0.1:1',
      undefined,
    ],
    [
      'a timeout as Error',
      Object.assign(new Error('The user aborted a request.'), {
        name: 'AbortError',
        type: 'aborted',
      }),
      'Error',
      'request aborted (timed out)',
      undefined,
    ],
  ])('reports %s', async (_name, error, reason, message, code) => {
    const t = setup();
    t.behaviour.bind = () => Promise.reject(error);
    t.effects.bind('ns1/p1', 'node-a');
    await t.effects.idle();
    expect(t.ingested).toEqual([
      { type: 'BindFailed', key: 'ns1/p1', node: 'node-a', reason, message },
    ]);
    const warn = t.logLines.find((l) => l.msg === 'bind failed');
    expect(warn).toMatchObject({ level: 40, pod: 'ns1/p1', node: 'node-a', reason });
    expect(warn?.code).toBe(code);
  });

  it('survives an ingest that throws (no unhandled rejection)', async () => {
    const t = setup({
      ingest: () => {
        throw new Error('core bug');
      },
    });
    t.effects.bind('ns1/p1', 'node-a');
    await t.effects.idle();
    expect(t.logLines.some((l) => l.msg === 'ingesting a bind result failed')).toBe(true);
  });

  it('waits for a limiter token before each write', async () => {
    vi.useFakeTimers();
    try {
      const limiter = new TokenBucket({ qps: 10, burst: 1, now: () => Date.now() });
      const t = setup({ limiter });
      t.effects.bind('ns/a', 'n');
      t.effects.bind('ns/b', 'n');
      await vi.advanceTimersByTimeAsync(0);
      expect(t.calls.bind).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(100);
      expect(t.calls.bind).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends nothing after stop(), including binds still waiting for a token', async () => {
    vi.useFakeTimers();
    try {
      const limiter = new TokenBucket({ qps: 1, burst: 1, now: () => Date.now() });
      const t = setup({ limiter });
      t.effects.bind('ns/a', 'n');
      t.effects.bind('ns/b', 'n');
      await vi.advanceTimersByTimeAsync(0);
      t.effects.stop();
      t.effects.bind('ns/c', 'n');
      t.effects.reportUnschedulable('ns/d', 'no');
      t.effects.reportScheduled('ns/e', 'n');
      await vi.advanceTimersByTimeAsync(10_000);
      await t.effects.idle();
      expect(t.calls.bind.map((c) => c.param.name)).toEqual(['a']);
      expect(t.calls.patch).toHaveLength(0);
      expect(t.calls.event).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('KubeEffects reports', () => {
  it('patches PodScheduled=False/Unschedulable with a strategic merge patch', async () => {
    const t = setup();
    t.effects.reportUnschedulable('ns1/p1', '0/3 nodes are available: 3 Insufficient cpu.');
    await t.effects.idle();
    expect(t.calls.patch.map((c) => c.param)).toEqual([
      {
        name: 'p1',
        namespace: 'ns1',
        body: {
          status: {
            conditions: [
              {
                type: 'PodScheduled',
                status: 'False',
                reason: 'Unschedulable',
                message: '0/3 nodes are available: 3 Insufficient cpu.',
                lastTransitionTime: '2030-01-02T03:04:05.678Z',
              },
            ],
          },
        },
      },
    ]);
    const headers = await headersAfter(t.calls.patch[0]?.options);
    expect(headers['Content-Type']).toBe('application/strategic-merge-patch+json');
  });

  it('records FailedScheduling as an events.k8s.io/v1 Event with a MicroTime', async () => {
    const t = setup({ uidOf: (key) => (key === 'ns1/p1' ? 'uid-1' : undefined) });
    t.effects.reportUnschedulable('ns1/p1', 'no fit');
    await t.effects.idle();
    const call = t.calls.event[0];
    expect(call?.param.namespace).toBe('ns1');
    const body = call?.param.body as Record<string, unknown>;
    expect(body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { namespace: 'ns1' },
      reportingController: 'berth',
      reportingInstance: 'berth-test',
      action: 'Scheduling',
      reason: 'FailedScheduling',
      type: 'Warning',
      note: 'no fit',
      regarding: { apiVersion: 'v1', kind: 'Pod', name: 'p1', namespace: 'ns1', uid: 'uid-1' },
    });
    const name = (body.metadata as { name: string }).name;
    expect(name).toMatch(/^p1\.[0-9a-f]+$/);
    expect(body.eventTime).toBeInstanceOf(V1MicroTime);
    expect(JSON.stringify(body.eventTime)).toBe('"2030-01-02T03:04:05.678000Z"');
  });

  it('does not repeat both writes while the message stays the same', async () => {
    const t = setup();
    t.effects.reportUnschedulable('ns/p', 'A');
    t.effects.reportUnschedulable('ns/p', 'A');
    await t.effects.idle();
    t.effects.reportUnschedulable('ns/p', 'A');
    await t.effects.idle();
    expect(t.calls.patch).toHaveLength(1);
    expect(t.calls.event).toHaveLength(1);
    t.effects.reportUnschedulable('ns/p', 'B');
    t.effects.reportUnschedulable('ns/p', 'A');
    await t.effects.idle();
    expect(t.calls.event.map((c) => (c.param.body as { note: string }).note)).toEqual([
      'A',
      'B',
      'A',
    ]);
  });

  it('reports the same message again after the pod was scheduled', async () => {
    const t = setup();
    t.effects.reportUnschedulable('ns/p', 'A');
    t.effects.reportScheduled('ns/p', 'n1');
    t.effects.reportUnschedulable('ns/p', 'A');
    await t.effects.idle();
    expect(t.calls.patch).toHaveLength(2);
  });

  it('sends a report again when the previous identical one failed', async () => {
    const t = setup();
    t.behaviour.patch = () => Promise.reject(apiError(500, 'InternalError', 'boom'));
    t.effects.reportUnschedulable('ns/p', 'A');
    await t.effects.idle();
    expect(t.logLines.some((l) => l.msg === 'report failed' && l.code === 500)).toBe(true);
    t.behaviour.patch = async () => ({});
    t.effects.reportUnschedulable('ns/p', 'A');
    await t.effects.idle();
    expect(t.calls.patch).toHaveLength(2);
  });

  it('remembers a bounded number of pods', async () => {
    const t = setup({ maxRemembered: 2 });
    for (const key of ['ns/a', 'ns/b', 'ns/c', 'ns/a']) t.effects.reportUnschedulable(key, 'same');
    await t.effects.idle();
    expect(t.calls.patch.map((c) => c.param.name)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('names events <pod>.<hex time>, unique even within one millisecond', async () => {
    const t = setup();
    t.effects.reportScheduled('ns/p', 'n');
    t.effects.reportScheduled('ns/p', 'n');
    await t.effects.idle();
    const names = t.calls.event.map(
      (c) => (c.param.body as { metadata: { name: string } }).metadata.name,
    );
    expect(new Set(names).size).toBe(2);
    expect(names.every((n) => /^p\.[0-9a-f]+$/.test(n))).toBe(true);
  });

  it('records Scheduled as a Normal Binding event', async () => {
    const t = setup();
    t.effects.reportScheduled('ns1/p1', 'node-a');
    await t.effects.idle();
    expect(t.calls.event[0]?.param.body).toMatchObject({
      reason: 'Scheduled',
      type: 'Normal',
      action: 'Binding',
      note: 'Successfully assigned ns1/p1 to node-a',
      regarding: { kind: 'Pod', name: 'p1', namespace: 'ns1' },
    });
  });

  it('cuts notes to the 1 kB the API accepts', async () => {
    const t = setup();
    t.effects.reportUnschedulable('ns/p', `é${'x'.repeat(5000)}`);
    await t.effects.idle();
    const note = (t.calls.event[0]?.param.body as { note: string } | undefined)?.note ?? '';
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(1024);
    expect(note.endsWith('...')).toBe(true);
    // The condition keeps the whole message.
    const patch = t.calls.patch[0]?.param.body as { status: { conditions: { message: string }[] } };
    expect(patch.status.conditions[0]?.message).toHaveLength(5001);
  });

  it('logs failed reports and never throws', async () => {
    const t = setup();
    t.behaviour.event = () =>
      Promise.reject(apiError(403, 'Forbidden', 'events.events.k8s.io is forbidden'));
    t.effects.reportScheduled('ns/p', 'n');
    await t.effects.idle();
    expect(t.logLines.find((l) => l.msg === 'report failed')).toMatchObject({
      level: 40,
      pod: 'ns/p',
      code: 403,
      err: 'events.events.k8s.io is forbidden',
    });
  });
});

describe('KubeEffects.idle', () => {
  it('resolves only once every in-flight write has settled', async () => {
    const t = setup();
    const bind = deferred();
    const event = deferred();
    t.behaviour.bind = () => bind.promise;
    t.behaviour.event = () => event.promise;
    t.effects.bind('ns/p', 'n');
    t.effects.reportScheduled('ns/q', 'n');
    let idle = false;
    const waiting = t.effects.idle().then(() => {
      idle = true;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(idle).toBe(false);
    bind.resolve();
    await new Promise((r) => setTimeout(r, 5));
    expect(idle).toBe(false);
    event.resolve();
    await waiting;
    expect(idle).toBe(true);
    expect(t.ingested).toHaveLength(1);
  });

  it('resolves at once when nothing is in flight', async () => {
    const t = setup();
    await expect(t.effects.idle()).resolves.toBeUndefined();
  });
});
