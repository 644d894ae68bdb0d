// Tests KubeEffects against fake API clients that fail the way client-node 1.4 fails.
import { ApiException, FetchError } from '@kubernetes/client-node';
import { describe, expect, it, vi } from 'vitest';
import {
  apiError,
  deferred,
  fakeDirectHttp,
  flush,
  headersAfter,
  manualBucket,
  testEffects,
  within,
} from '../../../test/support/kube-api-doubles.ts';
import type { AttemptRef, PodRef } from '../../events/types.ts';
import type { KubeClients } from './config.ts';
import type { KubeEffectsOptions } from './effects.ts';
import { TokenBucket } from './rate-limiter.ts';
import type { CallOptions } from './request-options.ts';
import { FencedWriteError } from './write-fence.ts';

type Call = { param: Record<string, unknown>; options: CallOptions | undefined };

/** A pod in `ns` named `name`; its uid defaults to `uid-<name>`. */
function pod(key: string, uid = `uid-${key.split('/')[1] ?? key}`): PodRef {
  return { uid, key };
}

function attempt(key: string, n = 1, uid?: string): AttemptRef {
  return { ...pod(key, uid), attempt: n };
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
    http: fakeDirectHttp({
      bind: (param) => {
        calls.bind.push({ param, options: undefined });
        return behaviour.bind();
      },
      event: (param) => {
        calls.event.push({ param, options: undefined });
        return behaviour.event();
      },
    }),
    core: {
      patchNamespacedPodStatus: (param: Record<string, unknown>, options?: CallOptions) => {
        calls.patch.push({ param, options });
        return behaviour.patch();
      },
    },
  } as unknown as KubeClients;
  const { effects, ingested, logLines } = testEffects(clients, over);
  const notes = () => calls.event.map((c) => (c.param.body as { note: string }).note);
  return { effects, calls, behaviour, ingested, logLines, notes };
}

describe('KubeEffects.bind', () => {
  it('posts the Binding subresource with the pod uid and reports BindSucceeded for the attempt', async () => {
    const t = setup();
    t.effects.bind(attempt('ns1/p1', 3, 'uid-1'), 'node-a');
    await t.effects.idle();
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

  it('reports a uid precondition failure (pod recreated under its name) as Conflict of that attempt', async () => {
    const t = setup();
    const message =
      'Operation cannot be fulfilled on pods "p1": StorageError: invalid object, Code: 4, Key: /registry/pods/ns1/p1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: uid-1, UID in object meta: uid-2';
    t.behaviour.bind = () => Promise.reject(apiError(409, 'Conflict', message));
    t.effects.bind(attempt('ns1/p1', 2, 'uid-1'), 'node-a');
    await t.effects.idle();
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
    t.effects.bind(attempt('ns1/p1', 4), 'node-a');
    await t.effects.idle();
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
    t.effects.bind(attempt('ns1/p1'), 'node-a');
    await t.effects.idle();
    expect(t.logLines.some((l) => l.msg === 'ingesting a bind result failed')).toBe(true);
  });

  it('waits for a limiter token before each bind', async () => {
    vi.useFakeTimers();
    try {
      const limiter = new TokenBucket({ qps: 10, burst: 1, now: () => Date.now() });
      const t = setup({ limiter });
      t.effects.bind(attempt('ns/a'), 'n');
      t.effects.bind(attempt('ns/b'), 'n');
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
    for (let i = 0; i <= 100; i++) t.effects.reportUnschedulable(pod(`ns/r${i}`), 'no fit');
    await flush();
    expect(t.effects.queuedReports).toBe(201);
    t.effects.bind(attempt('ns/p', 1), 'n');
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
    t.effects.bind(attempt('ns/a', 1), 'n1'); // takes the one token
    t.effects.bind(attempt('ns/b', 4), 'n2'); // waits for the next
    await flush();
    nodes.delete('n2');
    await binds.tick();
    await t.effects.idle();
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
    t.effects.bind(attempt('ns/a', 1), 'n1');
    await t.effects.idle();
    expect(t.ingested).toEqual([]);
    expect(t.logLines.some((l) => l.msg === 'bind fenced')).toBe(true);
  });

  it('sends nothing after stop(), including binds and reports still waiting for a token', async () => {
    const binds = manualBucket(1);
    const reports = manualBucket(1);
    const t = setup({ limiter: binds.bucket, reportLimiter: reports.bucket });
    t.effects.bind(attempt('ns/a'), 'n');
    t.effects.bind(attempt('ns/b'), 'n');
    t.effects.reportScheduled(pod('ns/q1'), 'n');
    t.effects.reportScheduled(pod('ns/q2'), 'n');
    await flush();
    t.effects.stop();
    t.effects.bind(attempt('ns/c'), 'n');
    t.effects.reportUnschedulable(pod('ns/d'), 'no');
    t.effects.reportScheduled(pod('ns/e'), 'n');
    await binds.tick();
    await reports.tick();
    await t.effects.settled();
    expect(t.calls.bind.map((c) => c.param.name)).toEqual(['a']);
    expect(t.calls.patch).toHaveLength(0);
    expect(t.notes()).toEqual(['Successfully assigned ns/q1 to n']);
  });
});

describe('KubeEffects reports', () => {
  it('sends a report 10 ms after it is queued by default, off the moment its bind lands', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const t = setup({ reportDelayMs: undefined });
      t.effects.bind(attempt('ns/p', 1), 'n');
      t.effects.reportScheduled(pod('ns/p'), 'n');
      t.effects.reportUnschedulable(pod('ns/q'), 'no fit');
      await vi.advanceTimersByTimeAsync(9);
      expect(t.calls.bind).toHaveLength(1);
      expect(t.calls.event.length + t.calls.patch.length).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(t.notes()).toEqual(['Successfully assigned ns/p to n', 'no fit']);
      expect(t.calls.patch).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('patches PodScheduled=False/Unschedulable with a strategic merge patch', async () => {
    const t = setup();
    t.effects.reportUnschedulable(pod('ns1/p1'), '0/3 nodes are available: 3 Insufficient cpu.');
    await t.effects.settled();
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

  it('writes a refused bind as PodScheduled=False/SchedulerError and a Warning FailedScheduling with the same message', async () => {
    const t = setup();
    const message =
      'running Bind plugin "DefaultBinder": pods "p1" is forbidden: User "system:serviceaccount:b:b" cannot create resource "pods/binding" in API group "" in the namespace "ns1"';
    t.effects.reportUnschedulable(pod('ns1/p1'), message, 2, 'SchedulerError');
    // The same reason and message again is a repeat: written once.
    t.effects.reportUnschedulable(pod('ns1/p1'), message, 2, 'SchedulerError');
    await t.effects.settled();
    const conditions = t.calls.patch.map(
      (c) => (c.param.body as { status: { conditions: unknown[] } }).status.conditions[0],
    );
    expect(conditions).toEqual([
      {
        type: 'PodScheduled',
        observedGeneration: 2,
        status: 'False',
        reason: 'SchedulerError',
        message,
        lastTransitionTime: '2030-01-02T03:04:05.678Z',
      },
    ]);
    expect(t.calls.event.map((c) => c.param.body)).toMatchObject([
      { type: 'Warning', reason: 'FailedScheduling', action: 'Scheduling', note: message },
    ]);
  });

  it('records FailedScheduling as an events.k8s.io/v1 Event regarding the pod uid, with a MicroTime', async () => {
    const t = setup();
    t.effects.reportUnschedulable(pod('ns1/p1', 'uid-1'), 'no fit');
    await t.effects.settled();
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
    // MicroTime: 6 fractional digits (a Date would serialise with 3).
    expect(body.eventTime).toBe('2030-01-02T03:04:05.678000Z');
  });

  it('does not repeat both writes while the message stays the same', async () => {
    const t = setup();
    const p = pod('ns/p');
    t.effects.reportUnschedulable(p, 'A');
    t.effects.reportUnschedulable(p, 'A');
    await t.effects.settled();
    t.effects.reportUnschedulable(p, 'A');
    await t.effects.settled();
    expect(t.calls.patch).toHaveLength(1);
    expect(t.calls.event).toHaveLength(1);
    t.effects.reportUnschedulable(p, 'B');
    t.effects.reportUnschedulable(p, 'A');
    await t.effects.settled();
    expect(t.notes()).toEqual(['A', 'B', 'A']);
  });

  it('writes both again for a pod recreated under the same name with the same message', async () => {
    const t = setup();
    t.effects.reportUnschedulable(pod('ns/web-0', 'uid-old'), 'A');
    await t.effects.settled();
    t.effects.reportUnschedulable(pod('ns/web-0', 'uid-new'), 'A');
    await t.effects.settled();
    expect(t.calls.patch.map((c) => c.param.name)).toEqual(['web-0', 'web-0']);
    expect(
      t.calls.event.map((c) => (c.param.body as { regarding: { uid: string } }).regarding.uid),
    ).toEqual(['uid-old', 'uid-new']);
  });

  it('forgetPod clears the dedupe: the same message is written again', async () => {
    const t = setup();
    const p = pod('ns/p');
    t.effects.reportUnschedulable(p, 'A');
    await t.effects.settled();
    t.effects.forgetPod(p);
    t.effects.reportUnschedulable(p, 'A');
    await t.effects.settled();
    expect(t.calls.patch).toHaveLength(2);
    expect(t.calls.event).toHaveLength(2);
  });

  it("forgetPod drops the pod's queued status patch (the name may be another pod now) but keeps its Event", async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket });
    t.effects.reportScheduled(pod('ns/other'), 'n');
    t.effects.reportUnschedulable(pod('ns/p', 'uid-old'), 'A');
    await flush();
    t.effects.forgetPod(pod('ns/p', 'uid-old'));
    expect(t.effects.queuedReports).toBe(1);
    await reports.tick();
    await reports.tick();
    await t.effects.settled();
    expect(t.calls.patch).toHaveLength(0);
    expect(t.notes()).toEqual(['Successfully assigned ns/other to n', 'A']);
  });

  it('reports the same message again after the pod was scheduled', async () => {
    const t = setup();
    const p = pod('ns/p');
    t.effects.reportUnschedulable(p, 'A');
    t.effects.reportScheduled(p, 'n1');
    t.effects.reportUnschedulable(p, 'A');
    await t.effects.settled();
    expect(t.calls.patch).toHaveLength(2);
  });

  it('sends a report again when the previous identical one failed', async () => {
    // One try: the retries of a 500 have tests of their own (report-retry.test.ts).
    const t = setup({ reportRetry: { tries: 1, firstDelayMs: 100 } });
    t.behaviour.patch = () => Promise.reject(apiError(500, 'InternalError', 'boom'));
    t.effects.reportUnschedulable(pod('ns/p'), 'A');
    await t.effects.settled();
    expect(t.logLines.some((l) => l.msg === 'report failed' && l.code === 500)).toBe(true);
    t.behaviour.patch = async () => ({});
    t.effects.reportUnschedulable(pod('ns/p'), 'A');
    await t.effects.settled();
    expect(t.calls.patch).toHaveLength(2);
  });

  it('remembers a bounded number of pods', async () => {
    const t = setup({ maxRemembered: 2 });
    for (const name of ['a', 'b', 'c', 'a'])
      t.effects.reportUnschedulable(pod(`ns/${name}`), 'same');
    await t.effects.settled();
    expect(t.calls.patch.map((c) => c.param.name)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('names events <pod>.<hex time>, unique even within one millisecond', async () => {
    const t = setup();
    t.effects.reportScheduled(pod('ns/p'), 'n');
    t.effects.reportScheduled(pod('ns/p'), 'n');
    await t.effects.settled();
    const names = t.calls.event.map(
      (c) => (c.param.body as { metadata: { name: string } }).metadata.name,
    );
    expect(new Set(names).size).toBe(2);
    expect(names.every((n) => /^p\.[0-9a-f]+$/.test(n))).toBe(true);
  });

  it('records Scheduled as a Normal Binding event', async () => {
    const t = setup();
    t.effects.reportScheduled(pod('ns1/p1', 'uid-1'), 'node-a');
    await t.effects.settled();
    expect(t.calls.event[0]?.param.body).toMatchObject({
      reason: 'Scheduled',
      type: 'Normal',
      action: 'Binding',
      note: 'Successfully assigned ns1/p1 to node-a',
      regarding: { kind: 'Pod', name: 'p1', namespace: 'ns1', uid: 'uid-1' },
    });
  });

  it('cuts notes to the 1 kB the API accepts', async () => {
    const t = setup();
    t.effects.reportUnschedulable(pod('ns/p'), `é${'x'.repeat(5000)}`);
    await t.effects.settled();
    const note = t.notes()[0] ?? '';
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
    t.effects.reportScheduled(pod('ns/p'), 'n');
    await t.effects.settled();
    expect(t.logLines.find((l) => l.msg === 'report failed')).toMatchObject({
      level: 40,
      pod: 'ns/p',
      uid: 'uid-p',
      code: 403,
      err: 'events.events.k8s.io is forbidden',
    });
  });
});

describe('KubeEffects report backlog', () => {
  it('keeps at most maxQueuedReports waiting, dropping the oldest, and logs the count', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket, maxQueuedReports: 3 });
    for (let i = 0; i < 10; i++) t.effects.reportScheduled(pod(`ns/p${i}`), 'n');
    expect(t.effects.queuedReports).toBe(3);
    expect(t.effects.droppedReports).toBe(7);
    expect(
      t.logLines.filter((l) => l.msg === 'report backlog full; dropping the oldest reports'),
    ).toMatchObject([{ level: 40, dropped: 1 }]);
    await flush();
    await reports.tick();
    await reports.tick();
    await t.effects.settled();
    expect(t.notes()).toEqual(['p7', 'p8', 'p9'].map((p) => `Successfully assigned ns/${p} to n`));
    expect(t.logLines.find((l) => l.msg === 'report backlog drained')).toMatchObject({
      dropped: 7,
    });
  });

  it('writes a dropped unschedulable report again when it is repeated', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket, maxQueuedReports: 2 });
    t.effects.reportUnschedulable(pod('ns/a'), 'A');
    t.effects.reportUnschedulable(pod('ns/b'), 'B'); // pushes a's two writes out
    expect(t.effects.droppedReports).toBe(2);
    t.effects.reportUnschedulable(pod('ns/a'), 'A'); // not deduped; pushes b's writes out
    expect(t.effects.droppedReports).toBe(4);
    for (let i = 0; i < 4; i++) await reports.tick();
    await t.effects.settled();
    expect(t.calls.patch.map((c) => c.param.name)).toEqual(['a']);
    expect(t.notes()).toEqual(['A']);
  });
});

describe('KubeEffects.idle', () => {
  it('resolves once the binds in flight have settled, without waiting for reports', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket });
    const bind = deferred();
    const event = deferred();
    t.behaviour.bind = () => bind.promise;
    t.behaviour.event = () => event.promise;
    t.effects.bind(attempt('ns/p'), 'n');
    // One report in flight (never answered) and five waiting for a report token.
    for (let i = 0; i < 6; i++) t.effects.reportScheduled(pod(`ns/q${i}`), 'n');
    await flush();
    expect(await within(t.effects.idle(), 20)).toBe('pending');
    bind.resolve();
    expect(await within(t.effects.idle(), 200)).toBe('settled');
    expect(t.ingested).toHaveLength(1);
    expect(t.effects.queuedReports).toBe(5);
  });

  it('stop() drops the queued reports and logs how many', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket });
    for (let i = 0; i < 6; i++) t.effects.reportScheduled(pod(`ns/q${i}`), 'n');
    await flush();
    t.effects.stop();
    expect(t.effects.queuedReports).toBe(0);
    expect(t.logLines.find((l) => l.msg === 'stopped; queued reports dropped')).toMatchObject({
      dropped: 5,
    });
    for (let i = 0; i < 5; i++) await reports.tick();
    expect(t.calls.event).toHaveLength(1);
  });

  it('resolves at once when nothing is in flight', async () => {
    const t = setup();
    await expect(t.effects.idle()).resolves.toBeUndefined();
  });
});

describe('KubeEffects under a burst of binds', () => {
  it('holds reports while reportsYieldAt binds are in flight and sends them as binds finish', async () => {
    const t = setup({ reportsYieldAt: 2 });
    const binds = [deferred(), deferred()];
    let i = 0;
    t.behaviour.bind = () => (binds[i++] as ReturnType<typeof deferred>).promise;
    t.effects.bind(attempt('ns/a'), 'n');
    t.effects.bind(attempt('ns/b'), 'n');
    t.effects.reportScheduled(pod('ns/earlier'), 'n');
    await flush();
    expect(t.calls.bind).toHaveLength(2);
    expect(t.calls.event).toHaveLength(0);
    binds[0]?.resolve();
    await flush();
    await flush();
    expect(t.notes()).toEqual(['Successfully assigned ns/earlier to n']);
    binds[1]?.resolve();
    await t.effects.settled();
  });

  it('sends reports at once while fewer binds than reportsYieldAt are busy', async () => {
    const t = setup({ reportsYieldAt: 2 });
    const bind = deferred();
    t.behaviour.bind = () => bind.promise;
    t.effects.bind(attempt('ns/a'), 'n');
    t.effects.reportScheduled(pod('ns/x'), 'n');
    await flush();
    expect(t.calls.event).toHaveLength(1);
    bind.resolve();
    await t.effects.settled();
  });

  it('stop() releases reports held back by binds (they are dropped, nothing hangs)', async () => {
    const t = setup({ reportsYieldAt: 1 });
    const bind = deferred();
    t.behaviour.bind = () => bind.promise;
    t.effects.bind(attempt('ns/a'), 'n');
    t.effects.reportScheduled(pod('ns/x'), 'n');
    await flush();
    t.effects.stop();
    bind.resolve();
    expect(await within(t.effects.settled(), 1000)).toBe('settled');
    expect(t.calls.event).toHaveLength(0);
  });
});
