// Tests KubeBinder's preempt and KubeReports' nominate against fake API clients that fail as client-node 1.4 does.

import { describe, expect, it } from 'vitest';
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
import type { CallOptions } from './request-options.ts';

type Kind = 'patch' | 'delete' | 'event' | 'bind';
type Call = {
  kind: Kind;
  param: Record<string, unknown>;
  options: CallOptions | undefined;
};

const timeout = () =>
  Object.assign(new Error('The user aborted a request.'), { name: 'AbortError', type: 'aborted' });

const preemptor: AttemptRef = { uid: 'uid-hi', key: 'prod/hi', attempt: 3 };
const victim: PodRef = { uid: 'uid-lo', key: 'batch/lo' };

function setup(over: Partial<KubeEffectsOptions> = {}) {
  const calls: Call[] = [];
  const behaviour: Record<Kind, () => Promise<unknown>> = {
    patch: async () => ({}),
    delete: async () => ({}),
    event: async () => ({}),
    bind: async () => ({}),
  };
  const fake = (kind: Kind) => (param: Record<string, unknown>, options?: CallOptions) => {
    calls.push({ kind, param, options });
    return behaviour[kind]();
  };
  const clients = {
    server: 'https://fake',
    http: fakeDirectHttp({ bind: fake('bind'), event: fake('event') }),
    core: {
      patchNamespacedPodStatus: fake('patch'),
      deleteNamespacedPod: fake('delete'),
    },
  } as unknown as KubeClients;
  const { binder, reports, stop, ingested, logLines } = testEffects(clients, over);
  const of = (kind: Kind) => calls.filter((c) => c.kind === kind);
  return { binder, reports, stop, calls, of, behaviour, ingested, logLines };
}

/** The pods/status patch of the victim (carrying its uid) that sets `condition`. */
function victimStatusPatch(condition: Record<string, unknown>) {
  return {
    name: 'lo',
    namespace: 'batch',
    body: { metadata: { uid: 'uid-lo' }, status: { conditions: [condition] } },
  };
}

/** The DisruptionTarget=True condition berth writes for a preemptor of `kind`. */
function preemptionCondition(kind: 'pod' | 'podgroup') {
  return {
    type: 'DisruptionTarget',
    status: 'True',
    reason: 'PreemptionByScheduler',
    message: `my-scheduler: preempting to accommodate a higher priority ${kind}`,
    lastTransitionTime: '2030-01-02T03:04:05.678Z',
  };
}

/**
 * The binder's preempt command for victim batch/lo on node-a (preemptor prod/hi, a member
 * of core PodGroup `group` when given).
 */
function preemptLo(t: ReturnType<typeof setup>, observedGeneration = 0, group?: PodRef): void {
  t.binder.execute({
    kind: 'preempt',
    preemptor,
    schedulerName: 'my-scheduler',
    victim,
    node: 'node-a',
    observedGeneration,
    ...(group === undefined ? {} : { preemptorGroup: group }),
  });
}

describe('KubeBinder preempt', () => {
  it('names the core PodGroup a group preempts for, as kube 1.37.2: "podgroup" in the condition, the group in the Event and as its related object', async () => {
    const t = setup();
    preemptLo(t, 0, { uid: 'pg-uid', key: 'prod/train' });
    await t.reports.settled();
    expect(t.calls.map((c) => c.kind)).toEqual(['patch', 'delete', 'event']);
    expect(t.of('patch')[0]?.param).toEqual(victimStatusPatch(preemptionCondition('podgroup')));
    const body = t.of('event')[0]?.param.body as Record<string, unknown>;
    expect(body).toMatchObject({
      reason: 'Preempted',
      note: 'Preempted by podgroup pg-uid on node cluster',
    });
    expect(body.related).toEqual({
      apiVersion: 'scheduling.k8s.io/v1beta1',
      kind: 'PodGroup',
      namespace: 'prod',
      name: 'train',
      uid: 'pg-uid',
    });
  });

  it('writes the Preempted Event without `related` when told to (kube-scheduler 1.37 names no preemptor)', async () => {
    const t = setup({ preemptedEventsNamePreemptor: false });
    preemptLo(t);
    await t.reports.settled();
    const body = t.of('event')[0]?.param.body as Record<string, unknown>;
    expect(body).toMatchObject({
      reason: 'Preempted',
      note: 'Preempted by pod uid-hi on node node-a',
    });
    expect(body.related).toBeUndefined();
  });

  it('sets DisruptionTarget, deletes with the uid precondition, then records Preempted, in that order', async () => {
    const t = setup();
    preemptLo(t);
    await t.reports.settled();
    expect(t.calls.map((c) => c.kind)).toEqual(['patch', 'delete', 'event']);
    expect(t.of('patch')[0]?.param).toEqual(victimStatusPatch(preemptionCondition('pod')));
    const headers = await headersAfter(t.of('patch')[0]?.options);
    expect(headers['Content-Type']).toBe('application/strategic-merge-patch+json');
    expect(t.of('delete')[0]?.param).toEqual({
      name: 'lo',
      namespace: 'batch',
      body: { preconditions: { uid: 'uid-lo' } },
    });
    expect(t.of('event')[0]?.param).toMatchObject({
      namespace: 'batch',
      body: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        type: 'Normal',
        reason: 'Preempted',
        action: 'Preempting',
        note: 'Preempted by pod uid-hi on node node-a',
        reportingController: 'berth',
        regarding: { apiVersion: 'v1', kind: 'Pod', name: 'lo', namespace: 'batch', uid: 'uid-lo' },
        related: { apiVersion: 'v1', kind: 'Pod', name: 'hi', namespace: 'prod', uid: 'uid-hi' },
      },
    });
    expect(t.ingested).toEqual([]);
    expect(t.logLines.find((l) => l.msg === 'preempted a victim')).toMatchObject({
      preemptor: 'prod/hi',
      victim: 'batch/lo',
      node: 'node-a',
    });
  });

  it.each([
    ['404 NotFound', apiError(404, 'NotFound', 'pods "lo" not found')],
    [
      '409 (uid precondition: the name is another pod now)',
      apiError(
        409,
        'Conflict',
        'Precondition failed: UID in precondition: uid-lo, UID in object meta: uid-new',
      ),
    ],
  ])('counts a delete answered %s as success, without an Event', async (_name, error) => {
    const t = setup();
    t.behaviour.delete = () => Promise.reject(error);
    t.binder.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim,
      node: 'node-a',
      observedGeneration: 0,
    });
    await t.reports.settled();
    expect(t.calls.map((c) => c.kind)).toEqual(['patch', 'delete']);
    expect(t.ingested).toEqual([]);
  });

  it.each([
    ['404 NotFound', apiError(404, 'NotFound', 'pods "lo" not found')],
    [
      '422 on the uid (the name is another pod now)',
      apiError(
        422,
        'Invalid',
        'Pod "lo" is invalid: metadata.uid: Invalid value: "uid-lo": field is immutable',
      ),
    ],
  ])('counts a condition patch answered %s as success: no delete', async (_name, error) => {
    const t = setup();
    t.behaviour.patch = () => Promise.reject(error);
    t.binder.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim,
      node: 'node-a',
      observedGeneration: 0,
    });
    await t.reports.settled();
    expect(t.calls.map((c) => c.kind)).toEqual(['patch']);
    expect(t.ingested).toEqual([]);
  });

  it.each([
    [
      'the condition patch',
      'patch',
      apiError(500, 'InternalError', 'etcdserver: request timed out'),
      'etcdserver: request timed out',
      ['patch'],
    ],
    [
      'the delete',
      'delete',
      apiError(500, 'InternalError', 'etcdserver: leader changed'),
      'etcdserver: leader changed',
      ['patch', 'delete'],
    ],
    [
      'the delete (timed out)',
      'delete',
      timeout(),
      'request aborted (timed out)',
      ['patch', 'delete'],
    ],
    [
      'the delete (403)',
      'delete',
      apiError(403, 'Forbidden', 'pods "lo" is forbidden'),
      'pods "lo" is forbidden',
      ['patch', 'delete', 'patch'],
    ],
  ] as const)(
    'reports a failure of %s as PreemptionFailed of the attempt, naming the victim',
    async (_name, kind, error, message, sent) => {
      const t = setup();
      t.behaviour[kind] = () => Promise.reject(error);
      t.binder.execute({
        kind: 'preempt',
        preemptor,
        schedulerName: 'berth',
        victim,
        node: 'node-a',
        observedGeneration: 0,
      });
      await t.binder.idle();
      expect(t.ingested).toEqual([
        {
          type: 'PreemptionFailed',
          uid: 'uid-hi',
          key: 'prod/hi',
          attempt: 3,
          node: 'node-a',
          victim: { uid: 'uid-lo', key: 'batch/lo' },
          message,
        },
      ]);
      await t.reports.settled();
      expect(t.calls.map((c) => c.kind)).toEqual(sent);
      const warn = t.logLines.find((l) => String(l.msg).startsWith('preemption failed'));
      expect(warn).toMatchObject({
        level: 40,
        preemptor: 'prod/hi',
        attempt: 3,
        victim: 'batch/lo',
        node: 'node-a',
        err: message,
      });
    },
  );

  it('takes DisruptionTarget back (False, PreemptionAbandoned) when the delete is refused, before PreemptionFailed', async () => {
    const t = setup();
    const forbidden = 'pods "lo" is forbidden: User "system:serviceaccount:s:berth" cannot delete';
    t.behaviour.delete = () => Promise.reject(apiError(403, 'Forbidden', forbidden));
    t.behaviour.patch = () => {
      // The undo must be sent before the preemptor hears of the failure (and retries).
      if (t.of('patch').length === 2) expect(t.ingested).toEqual([]);
      return Promise.resolve({ metadata: { resourceVersion: '42' } });
    };
    preemptLo(t, 7);
    await t.reports.settled();
    expect(t.calls.map((c) => c.kind)).toEqual(['patch', 'delete', 'patch']);
    const undo = t.of('patch')[1];
    // A refused delete deleted nothing: no resourceVersion precondition, only the uid.
    expect(undo?.param).toEqual(
      victimStatusPatch({
        type: 'DisruptionTarget',
        observedGeneration: 7,
        status: 'False',
        reason: 'PreemptionAbandoned',
        message: `my-scheduler: not preempted after all: deleting the pod failed: ${forbidden}`,
        lastTransitionTime: '2030-01-02T03:04:05.678Z',
      }),
    );
    const headers = await headersAfter(undo?.options);
    expect(headers['Content-Type']).toBe('application/strategic-merge-patch+json');
    expect(t.ingested.map((e) => e.type)).toEqual(['PreemptionFailed']);
    expect(
      t.logLines.find((l) => l.msg === 'DisruptionTarget taken back from the victim'),
    ).toMatchObject({
      victim: 'batch/lo',
      preemptor: 'prod/hi',
    });
    expect(t.of('event')).toEqual([]);
  });

  it.each([
    ['500', apiError(500, 'InternalError', 'etcdserver: request timed out')],
    ['a timeout', timeout()],
  ])(
    'after a delete answered %s (it may have landed) takes it back only at the version the condition patch left',
    async (_name, error) => {
      const t = setup();
      t.behaviour.delete = () => Promise.reject(error);
      t.behaviour.patch = async () => ({ metadata: { resourceVersion: '42' } });
      t.binder.execute({
        kind: 'preempt',
        preemptor,
        schedulerName: 'berth',
        victim,
        node: 'node-a',
        observedGeneration: 0,
      });
      await t.reports.settled();
      expect(t.calls.map((c) => c.kind)).toEqual(['patch', 'delete', 'patch']);
      expect(t.of('patch')[1]?.param).toMatchObject({
        body: {
          metadata: { uid: 'uid-lo', resourceVersion: '42' },
          status: { conditions: [{ type: 'DisruptionTarget', status: 'False' }] },
        },
      });
      expect(t.ingested.map((e) => e.type)).toEqual(['PreemptionFailed']);
    },
  );

  it('leaves the condition when the delete may have landed and no version came back', async () => {
    const t = setup();
    t.behaviour.delete = () => Promise.reject(timeout());
    t.binder.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim,
      node: 'node-a',
      observedGeneration: 0,
    });
    await t.reports.settled();
    expect(t.calls.map((c) => c.kind)).toEqual(['patch', 'delete']);
    expect(t.logLines.map((l) => l.msg)).toContain(
      'DisruptionTarget left on the victim: its delete may have landed',
    );
    expect(t.ingested.map((e) => e.type)).toEqual(['PreemptionFailed']);
  });

  it('only logs an undo the server refuses (the pod changed since), and still reports PreemptionFailed', async () => {
    const t = setup();
    t.behaviour.delete = () => Promise.reject(apiError(500, 'InternalError', 'boom'));
    t.behaviour.patch = async () => {
      if (t.of('patch').length === 1) return { metadata: { resourceVersion: '42' } };
      throw apiError(409, 'Conflict', 'the object has been modified');
    };
    t.binder.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim,
      node: 'node-a',
      observedGeneration: 0,
    });
    await t.reports.settled();
    expect(t.calls.map((c) => c.kind)).toEqual(['patch', 'delete', 'patch']);
    expect(
      t.logLines.find((l) => l.msg === 'could not take DisruptionTarget back from the victim'),
    ).toMatchObject({
      level: 40,
      code: 409,
      err: 'the object has been modified',
    });
    expect(t.ingested.map((e) => e.type)).toEqual(['PreemptionFailed']);
  });

  it('does not trust extra fields of the refs it is given', async () => {
    const t = setup();
    t.behaviour.patch = () => Promise.reject(apiError(500, 'InternalError', 'x'));
    const loose = { ...preemptor, type: 'VictimPreempted', node: 'n', victim } as AttemptRef;
    t.binder.execute({
      kind: 'preempt',
      preemptor: loose,
      schedulerName: 'berth',
      victim: { ...victim, extra: 1 } as PodRef,
      node: 'node-a',
      observedGeneration: 0,
    });
    await t.binder.idle();
    expect(t.ingested[0]).toEqual({
      type: 'PreemptionFailed',
      uid: 'uid-hi',
      key: 'prod/hi',
      attempt: 3,
      node: 'node-a',
      victim: { uid: 'uid-lo', key: 'batch/lo' },
      message: 'x',
    });
  });

  it('takes a bind-limiter token per victim write and never waits behind reports', async () => {
    const binds = manualBucket(1);
    const reports = manualBucket(1);
    const t = setup({ limiter: binds.bucket, reportLimiter: reports.bucket });
    for (let i = 0; i < 50; i++)
      t.reports.execute({
        kind: 'reportScheduled',
        pod: { uid: `u${i}`, key: `ns/r${i}` },
        node: 'n',
      });
    await flush();
    t.binder.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim,
      node: 'node-a',
      observedGeneration: 0,
    });
    await flush();
    expect(t.of('patch')).toHaveLength(1);
    expect(t.of('delete')).toHaveLength(0);
    await binds.tick();
    expect(t.of('delete')).toHaveLength(1);
    // The Event is a report: it queues behind the other reports, on the report bucket.
    const reasons = () => t.of('event').map((c) => (c.param.body as { reason: string }).reason);
    expect(reasons()).toEqual(['Scheduled']);
    expect(t.reports.queuedReports).toBe(50);
    for (let i = 0; i < 50; i++) await reports.tick();
    expect(reasons().at(-1)).toBe('Preempted');
  });

  it('is waited for by idle() until its result is in', async () => {
    const t = setup();
    const del = deferred();
    t.behaviour.delete = () => del.promise.then(() => Promise.reject(apiError(500, 'X', 'boom')));
    t.binder.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim,
      node: 'node-a',
      observedGeneration: 0,
    });
    await flush();
    expect(await within(t.binder.idle(), 20)).toBe('pending');
    del.resolve();
    expect(await within(t.binder.idle(), 200)).toBe('settled');
    expect(t.ingested.map((e) => e.type)).toEqual(['PreemptionFailed']);
  });

  it('sends nothing after stop(): not a new preemption, nor one waiting for a token, nor the rest of one', async () => {
    const binds = manualBucket(1);
    const t = setup({ limiter: binds.bucket });
    const patch = deferred();
    t.behaviour.patch = () => patch.promise;
    t.binder.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim,
      node: 'node-a',
      observedGeneration: 0,
    }); // patch sent, answer pending
    t.binder.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim: { uid: 'uid-2', key: 'batch/two' },
      node: 'node-a',
      observedGeneration: 0,
    }); // waits
    await flush();
    t.stop();
    patch.resolve();
    t.binder.execute({
      kind: 'preempt',
      preemptor,
      schedulerName: 'berth',
      victim: { uid: 'uid-3', key: 'batch/three' },
      node: 'node-a',
      observedGeneration: 0,
    });
    t.reports.execute({ kind: 'nominate', pod: { uid: 'uid-hi', key: 'prod/hi' }, node: 'node-a' });
    await binds.tick();
    await binds.tick();
    await t.reports.settled();
    expect(t.calls.map((c) => `${c.kind} ${String(c.param.name)}`)).toEqual(['patch lo']);
    expect(t.ingested).toEqual([]);
  });
});

describe('KubeReports nominate', () => {
  it('sets status.nominatedNodeName with a merge patch carrying the uid', async () => {
    const t = setup();
    t.reports.execute({ kind: 'nominate', pod: { uid: 'uid-hi', key: 'prod/hi' }, node: 'node-a' });
    await t.reports.settled();
    expect(t.calls.map((c) => c.param)).toEqual([
      {
        name: 'hi',
        namespace: 'prod',
        body: { metadata: { uid: 'uid-hi' }, status: { nominatedNodeName: 'node-a' } },
      },
    ]);
    const headers = await headersAfter(t.calls[0]?.options);
    expect(headers['Content-Type']).toBe('application/merge-patch+json');
  });

  it('clears it with null', async () => {
    const t = setup();
    t.reports.execute({ kind: 'nominate', pod: { uid: 'uid-x', key: 'x' }, node: undefined });
    await t.reports.settled();
    expect(t.calls.map((c) => c.param)).toEqual([
      {
        name: 'x',
        namespace: 'default',
        body: { metadata: { uid: 'uid-x' }, status: { nominatedNodeName: null } },
      },
    ]);
  });

  it('only logs a failure (nothing is ingested)', async () => {
    const t = setup();
    t.behaviour.patch = () => Promise.reject(apiError(500, 'InternalError', 'boom'));
    t.reports.execute({ kind: 'nominate', pod: { uid: 'uid-x', key: 'ns/x' }, node: undefined });
    t.reports.execute({ kind: 'nominate', pod: { uid: 'uid-y', key: 'ns/y' }, node: 'node-b' });
    await t.reports.settled();
    expect(t.ingested).toEqual([]);
    expect(t.logLines.filter((l) => l.level === 40)).toMatchObject([
      { msg: "Cannot clear 'NominatedNodeName' field", pod: 'ns/x', code: 500, err: 'boom' },
      { msg: "Cannot set 'NominatedNodeName' field", pod: 'ns/y', node: 'node-b' },
    ]);
  });

  it('takes its token from the bind limiter', async () => {
    const binds = manualBucket(1);
    const t = setup({ limiter: binds.bucket });
    t.binder.execute({
      kind: 'bind',
      attempt: { uid: 'uid-a', key: 'ns/a', attempt: 1 },
      node: 'n',
    });
    t.reports.execute({ kind: 'nominate', pod: { uid: 'uid-x', key: 'ns/x' }, node: 'n' });
    await flush();
    expect(t.calls.map((c) => c.kind)).toEqual(['bind']);
    expect(await within(t.binder.idle(), 20)).toBe('pending');
    await binds.tick();
    expect(t.calls.map((c) => c.kind)).toEqual(['bind', 'patch']);
    expect(await within(t.binder.idle(), 200)).toBe('settled');
  });
});
