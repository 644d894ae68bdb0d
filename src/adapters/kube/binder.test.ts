// Tests KubeBinder (binds) against fake API clients that fail the way client-node 1.4 fails.
import { ApiException, FetchError } from '@kubernetes/client-node';
import { describe, expect, it, vi } from 'vitest';
import {
  attempt,
  pod,
  fakeApiEffects as setup,
} from '../../../test/adapters/kube-effects-harness.ts';
import { apiError, flush, manualBucket } from '../../../test/support/kube-api-doubles.ts';
import { TokenBucket } from './rate-limiter.ts';
import { FencedWriteError } from './write-fence.ts';

describe('KubeBinder bind', () => {
  it('posts the Binding subresource with the pod uid and reports BindSucceeded for the attempt', async () => {
    const t = setup();
    t.binder.execute({ kind: 'bind', attempt: attempt('ns1/p1', 3, 'uid-1'), node: 'node-a' });
    await t.binder.idle();
    expect(t.calls.bind.map((c) => c.param)).toEqual([
      {
        name: 'p1',
        namespace: 'ns1',
        body: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name: 'p1', namespace: 'ns1', uid: 'uid-1' },
          target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
        },
      },
    ]);
    expect(t.ingested).toEqual([
      { type: 'BindSucceeded', uid: 'uid-1', key: 'ns1/p1', attempt: 3, node: 'node-a' },
    ]);
  });

  it('annotates the Binding with the lease and holder under a bind fence', async () => {
    const t = setup({
      bindFence: { leaseNamespace: 'berth-system', leaseName: 'berth', identity: 'host-a_1' },
    });
    t.binder.execute({ kind: 'bind', attempt: attempt('ns1/p1', 1, 'uid-1'), node: 'node-a' });
    await t.binder.idle();
    const body = t.calls.bind[0]?.param.body as { metadata: Record<string, unknown> };
    expect(body.metadata).toEqual({
      name: 'p1',
      namespace: 'ns1',
      uid: 'uid-1',
      annotations: { 'berth.dev/lease': 'berth-system/berth', 'berth.dev/holder': 'host-a_1' },
    });
  });

  it('reports a uid precondition failure (pod recreated under its name) as Conflict of that attempt', async () => {
    const t = setup();
    const message =
      'Operation cannot be fulfilled on pods "p1": StorageError: invalid object, Code: 4, Key: /registry/pods/ns1/p1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: uid-1, UID in object meta: uid-2';
    t.behaviour.bind = () => Promise.reject(apiError(409, 'Conflict', message));
    t.binder.execute({ kind: 'bind', attempt: attempt('ns1/p1', 2, 'uid-1'), node: 'node-a' });
    await t.binder.idle();
    expect(t.ingested).toEqual([
      {
        type: 'BindFailed',
        uid: 'uid-1',
        key: 'ns1/p1',
        attempt: 2,
        node: 'node-a',
        reason: 'Conflict',
        message,
        code: 409,
      },
    ]);
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
    t.binder.execute({ kind: 'bind', attempt: attempt('ns1/p1', 4), node: 'node-a' });
    await t.binder.idle();
    expect(t.ingested).toEqual([
      {
        type: 'BindFailed',
        uid: 'uid-p1',
        key: 'ns1/p1',
        attempt: 4,
        node: 'node-a',
        reason,
        message,
        // The HTTP status goes into the log with the result; a request never answered has none.
        ...(code === undefined ? {} : { code }),
      },
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
    t.binder.execute({ kind: 'bind', attempt: attempt('ns1/p1'), node: 'node-a' });
    await t.binder.idle();
    expect(t.logLines.some((l) => l.msg === 'ingesting a bind result failed')).toBe(true);
  });

  it('waits for a limiter token before each bind', async () => {
    vi.useFakeTimers();
    try {
      const limiter = new TokenBucket({ qps: 10, burst: 1, now: () => Date.now() });
      const t = setup({ limiter });
      t.binder.execute({ kind: 'bind', attempt: attempt('ns/a'), node: 'n' });
      t.binder.execute({ kind: 'bind', attempt: attempt('ns/b'), node: 'n' });
      await vi.advanceTimersByTimeAsync(0);
      expect(t.calls.bind).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(100);
      expect(t.calls.bind).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends a bind at once while 100 reports wait behind an empty report bucket', async () => {
    const binds = manualBucket(1);
    const reports = manualBucket(1);
    const t = setup({ limiter: binds.bucket, reportLimiter: reports.bucket });
    for (let i = 0; i <= 100; i++)
      t.reports.execute({
        kind: 'reportUnschedulable',
        pod: pod(`ns/r${i}`),
        message: 'no fit',
        observedGeneration: 0,
        reason: 'Unschedulable',
      });
    await flush();
    expect(t.reports.queuedReports).toBe(201);
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/p', 1), node: 'n' });
    await flush();
    expect(t.calls.bind).toHaveLength(1);
    expect(t.ingested).toEqual([
      { type: 'BindSucceeded', uid: 'uid-p', key: 'ns/p', attempt: 1, node: 'n' },
    ]);
    // The reports still wait: one write per report token, none from the binds' bucket.
    expect(t.calls.patch.length + t.calls.event.length).toBe(1);
    await reports.tick();
    expect(t.calls.patch.length + t.calls.event.length).toBe(2);
  });

  it('does not send a bind whose node was deleted while it waited for its token: BindFailed NotFound of that attempt', async () => {
    const binds = manualBucket(1);
    const nodes = new Set(['n1', 'n2']);
    const t = setup({ limiter: binds.bucket, nodeExists: (n) => nodes.has(n) });
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/a', 1), node: 'n1' }); // takes the one token
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/b', 4), node: 'n2' }); // waits for the next
    await flush();
    nodes.delete('n2');
    await binds.tick();
    await t.binder.idle();
    expect(t.calls.bind.map((c) => c.param.name)).toEqual(['a']);
    expect(t.ingested).toEqual([
      { type: 'BindSucceeded', uid: 'uid-a', key: 'ns/a', attempt: 1, node: 'n1' },
      {
        type: 'BindFailed',
        uid: 'uid-b',
        key: 'ns/b',
        attempt: 4,
        node: 'n2',
        reason: 'NotFound',
        message: 'node n2 was deleted before the bind was sent',
      },
    ]);
  });

  it('a bind the write fence refused is not answered: no result is ingested, the next leader binds the pod', async () => {
    const t = setup();
    t.behaviour.bind = () =>
      Promise.reject(new FencedWriteError('POST', '/x/binding', 'not the leader (lost)'));
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/a', 1), node: 'n1' });
    await t.binder.idle();
    expect(t.ingested).toEqual([]);
    expect(t.logLines.some((l) => l.msg === 'bind fenced')).toBe(true);
  });

  it('sends nothing after stop(), including binds and reports still waiting for a token', async () => {
    const binds = manualBucket(1);
    const reports = manualBucket(1);
    const t = setup({ limiter: binds.bucket, reportLimiter: reports.bucket });
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/a'), node: 'n' });
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/b'), node: 'n' });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/q1'), node: 'n' });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/q2'), node: 'n' });
    await flush();
    t.stop();
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/c'), node: 'n' });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/d'),
      message: 'no',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/e'), node: 'n' });
    await binds.tick();
    await reports.tick();
    await t.reports.settled();
    expect(t.calls.bind.map((c) => c.param.name)).toEqual(['a']);
    expect(t.calls.patch).toHaveLength(0);
    expect(t.notes()).toEqual(['Successfully assigned ns/q1 to n']);
  });
});
