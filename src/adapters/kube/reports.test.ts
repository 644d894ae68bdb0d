import { describe, expect, it, vi } from 'vitest';
import {
  attempt,
  pod,
  fakeApiEffects as setup,
} from '../../../test/adapters/kube-effects-harness.ts';
import {
  apiError,
  flush,
  headersAfter,
  manualBucket,
} from '../../../test/support/kube-api-doubles.ts';

describe('KubeReports', () => {
  it('sends a report 10 ms after it is queued by default, off the moment its bind lands', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const t = setup({ reportDelayMs: undefined });
      t.binder.execute({ kind: 'bind', attempt: attempt('ns/p', 1), node: 'n' });
      t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/p'), node: 'n' });
      t.reports.execute({
        kind: 'reportUnschedulable',
        pod: pod('ns/q'),
        message: 'no fit',
        observedGeneration: 0,
        reason: 'Unschedulable',
      });
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
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns1/p1'),
      message: '0/3 nodes are available: 3 Insufficient cpu.',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
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
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns1/p1'),
      message,
      observedGeneration: 2,
      reason: 'SchedulerError',
    });
    // The same reason and message again is a repeat: written once.
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns1/p1'),
      message,
      observedGeneration: 2,
      reason: 'SchedulerError',
    });
    await t.reports.settled();
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
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns1/p1', 'uid-1'),
      message: 'no fit',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
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
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: p,
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: p,
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: p,
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    expect(t.calls.patch).toHaveLength(1);
    expect(t.calls.event).toHaveLength(1);
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: p,
      message: 'B',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: p,
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    expect(t.notes()).toEqual(['A', 'B', 'A']);
  });

  it('writes both again for a pod recreated under the same name with the same message', async () => {
    const t = setup();
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/web-0', 'uid-old'),
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/web-0', 'uid-new'),
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    expect(t.calls.patch.map((c) => c.param.name)).toEqual(['web-0', 'web-0']);
    expect(
      t.calls.event.map((c) => (c.param.body as { regarding: { uid: string } }).regarding.uid),
    ).toEqual(['uid-old', 'uid-new']);
  });

  it('forgetPod clears the dedupe: the same message is written again', async () => {
    const t = setup();
    const p = pod('ns/p');
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: p,
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    t.reports.execute({ kind: 'forgetPod', pod: p });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: p,
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    expect(t.calls.patch).toHaveLength(2);
    expect(t.calls.event).toHaveLength(2);
  });

  it("forgetPod drops the pod's queued status patch (the name may be another pod now) but keeps its Event", async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/other'), node: 'n' });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/p', 'uid-old'),
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await flush();
    t.reports.execute({ kind: 'forgetPod', pod: pod('ns/p', 'uid-old') });
    expect(t.reports.queuedReports).toBe(1);
    await reports.tick();
    await reports.tick();
    await t.reports.settled();
    expect(t.calls.patch).toHaveLength(0);
    expect(t.notes()).toEqual(['Successfully assigned ns/other to n', 'A']);
  });

  it('reports the same message again after the pod was scheduled', async () => {
    const t = setup();
    const p = pod('ns/p');
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: p,
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    t.reports.execute({ kind: 'reportScheduled', pod: p, node: 'n1' });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: p,
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    expect(t.calls.patch).toHaveLength(2);
  });

  it('sends a report again when the previous identical one failed', async () => {
    // One try: the retries of a 500 have tests of their own (report-retry.test.ts).
    const t = setup({ reportRetry: { tries: 1, firstDelayMs: 100 } });
    t.behaviour.patch = () => Promise.reject(apiError(500, 'InternalError', 'boom'));
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/p'),
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    expect(t.logLines.some((l) => l.msg === 'report failed' && l.code === 500)).toBe(true);
    t.behaviour.patch = async () => ({});
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/p'),
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
    expect(t.calls.patch).toHaveLength(2);
  });

  it('remembers a bounded number of pods', async () => {
    const t = setup({ maxRemembered: 2 });
    for (const name of ['a', 'b', 'c', 'a'])
      t.reports.execute({
        kind: 'reportUnschedulable',
        pod: pod(`ns/${name}`),
        message: 'same',
        observedGeneration: 0,
        reason: 'Unschedulable',
      });
    await t.reports.settled();
    expect(t.calls.patch.map((c) => c.param.name)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('names events <pod>.<hex time>, unique even within one millisecond', async () => {
    const t = setup();
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/p'), node: 'n' });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/p'), node: 'n' });
    await t.reports.settled();
    const names = t.calls.event.map(
      (c) => (c.param.body as { metadata: { name: string } }).metadata.name,
    );
    expect(new Set(names).size).toBe(2);
    expect(names.every((n) => /^p\.[0-9a-f]+$/.test(n))).toBe(true);
  });

  it('records Scheduled as a Normal Binding event', async () => {
    const t = setup();
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns1/p1', 'uid-1'), node: 'node-a' });
    await t.reports.settled();
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
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/p'),
      message: `é${'x'.repeat(5000)}`,
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await t.reports.settled();
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
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/p'), node: 'n' });
    await t.reports.settled();
    expect(t.logLines.find((l) => l.msg === 'report failed')).toMatchObject({
      level: 40,
      pod: 'ns/p',
      uid: 'uid-p',
      code: 403,
      err: 'events.events.k8s.io is forbidden',
    });
  });
});
