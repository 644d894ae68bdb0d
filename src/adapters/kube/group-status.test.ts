// Tests KubeReports' reportGroup: PodGroup status patches and Events, coalesced, on the report budget.
import { describe, expect, it } from 'vitest';
import { report, setup } from '../../../test/support/group-reports-harness.ts';
import {
  apiError,
  deferred,
  flush,
  headersAfter,
  manualBucket,
} from '../../../test/support/kube-api-doubles.ts';
import type { GroupReport } from '../../core/ports.ts';
import { MicroTime } from './lease-record.ts';
import type { RetryClock } from './report-retry.ts';

describe('KubeReports reportGroup status', () => {
  it('merge-patches the PodGroup status subresource with the phase, counts and start time', async () => {
    const t = setup();
    t.reports.execute({
      kind: 'reportGroup',
      report: {
        key: 'ml/train',
        phase: 'Scheduled',
        scheduled: 3,
        running: 1,
        succeeded: 0,
        failed: 0,
        scheduleStartMs: Date.parse('2030-01-02T03:04:05.678Z'),
      },
    });
    await t.reports.settled();
    expect(t.calls.status.map((c) => c.param)).toEqual([
      {
        group: 'scheduling.x-k8s.io',
        version: 'v1alpha1',
        plural: 'podgroups',
        namespace: 'ml',
        name: 'train',
        body: {
          status: {
            phase: 'Scheduled',
            scheduled: 3,
            running: 1,
            succeeded: 0,
            failed: 0,
            scheduleStartTime: '2030-01-02T03:04:05Z',
          },
        },
      },
    ]);
    const headers = await headersAfter(t.calls.status[0]?.options);
    expect(headers['Content-Type']).toBe('application/merge-patch+json');
    expect(t.calls.event).toEqual([]);
    expect(t.ingested).toEqual([]);
  });

  it('leaves scheduleStartTime out before scheduling began', async () => {
    const t = setup();
    t.reports.execute({ kind: 'reportGroup', report: report('ml/train', 'Pending') });
    await t.reports.settled();
    expect(t.calls.status[0]?.param.body).toEqual({
      status: { phase: 'Pending', scheduled: 0, running: 0, succeeded: 0, failed: 0 },
    });
  });

  it('sends only the latest of the reports that waited for a token, per group', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Pending') });
    await flush(); // sent: it took the one token
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduling') });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/b', 'Pending') });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduled', 2) });
    await flush();
    expect(t.written()).toEqual(['a Pending 0/0']);
    expect(t.reports.queuedReports).toBe(2);
    await reports.tick();
    await reports.tick();
    await reports.tick();
    await t.reports.settled();
    // a's newest report took the place of the one it replaced, ahead of b.
    expect(t.written()).toEqual(['a Pending 0/0', 'a Scheduled 2/0', 'b Pending 0/0']);
  });

  it('skips a status identical to the last one written for the group', async () => {
    const t = setup();
    const steps: GroupReport[] = [
      report('ml/a', 'Scheduled', 2),
      report('ml/a', 'Scheduled', 2),
      report('ml/b', 'Scheduled', 2),
      report('ml/a', 'Running', 2, 2),
      report('ml/a', 'Running', 2, 2),
      report('ml/a', 'Scheduled', 2),
    ];
    for (const r of steps) {
      t.reports.execute({ kind: 'reportGroup', report: r });
      await t.reports.settled();
    }
    expect(t.written()).toEqual([
      'a Scheduled 2/0',
      'b Scheduled 2/0',
      'a Running 2/2',
      'a Scheduled 2/0',
    ]);
  });

  it('remembers the last status of at most maxRemembered groups, forgetting the oldest', async () => {
    const t = setup({ maxRemembered: 2 });
    for (const key of ['ml/a', 'ml/b', 'ml/c', 'ml/a', 'ml/c']) {
      t.reports.execute({ kind: 'reportGroup', report: report(key, 'Pending') });
      await t.reports.settled();
    }
    expect(t.written()).toEqual([
      'a Pending 0/0',
      'b Pending 0/0',
      'c Pending 0/0',
      'a Pending 0/0',
    ]);
  });

  it('withdraws a waiting write when the group is reported back to what is written', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduled', 2) });
    await t.reports.settled();
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Running', 2, 2) });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduled', 2) });
    expect(t.reports.queuedReports).toBe(0);
    await reports.tick();
    await t.reports.settled();
    expect(t.written()).toEqual(['a Scheduled 2/0']);
  });

  it('never has two writes of one group in flight: the next waits for the answer, then goes', async () => {
    const t = setup();
    const first = deferred();
    t.behaviour.status = () => first.promise;
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduling') });
    await flush();
    t.behaviour.status = async () => ({});
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduled', 1) });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduled', 2) });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/b', 'Pending') });
    await flush();
    expect(t.written()).toEqual(['a Scheduling 0/0', 'b Pending 0/0']);
    first.resolve();
    await t.reports.settled();
    expect(t.written()).toEqual(['a Scheduling 0/0', 'b Pending 0/0', 'a Scheduled 2/0']);
  });

  it('does not send a report that came during a write when it equals what that write wrote', async () => {
    const t = setup();
    const first = deferred();
    t.behaviour.status = () => first.promise;
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduling') });
    await flush();
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduled', 1) });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduling') });
    first.resolve();
    await t.reports.settled();
    expect(t.written()).toEqual(['a Scheduling 0/0']);
  });

  it('drops the oldest write when the backlog is full, and queues the dropped group again next time', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket, maxQueuedReports: 1 });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/x', 'Pending') });
    await flush(); // sent: it took the one token
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Pending') });
    t.reports.execute({ kind: 'reportGroup', report: report('ml/b', 'Pending') }); // pushes a's write out
    expect(t.reports.droppedReports).toBe(1);
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduling') }); // pushes b's out
    expect(t.reports.droppedReports).toBe(2);
    for (let i = 0; i < 3; i++) await reports.tick();
    await t.reports.settled();
    expect(t.written()).toEqual(['x Pending 0/0', 'a Scheduling 0/0']);
  });
});

describe('KubeReports reportGroup events and failures', () => {
  it('creates an events.k8s.io/v1 Event regarding the PodGroup, even when the status is unchanged', async () => {
    const t = setup();
    const timeout: GroupReport = {
      ...report('ml/train', 'Pending'),
      event: {
        type: 'Warning',
        reason: 'GangTimeout',
        message: `waited 60s; ${'member ml/train-0 not placed; '.repeat(80)}`,
      },
    };
    t.reports.execute({ kind: 'reportGroup', report: report('ml/train', 'Pending') });
    await t.reports.settled();
    t.reports.execute({ kind: 'reportGroup', report: timeout });
    await t.reports.settled();
    expect(t.calls.status).toHaveLength(1);
    expect(t.calls.event).toHaveLength(1);
    const param = t.calls.event[0]?.param as { namespace: string; body: Record<string, unknown> };
    expect(param.namespace).toBe('ml');
    const { metadata, eventTime, note, ...rest } = param.body as {
      metadata: { name: string; namespace: string };
      eventTime: unknown;
      note: string;
    };
    expect(metadata.namespace).toBe('ml');
    expect(metadata.name).toMatch(/^train\.[0-9a-f]+$/);
    expect(eventTime).toEqual(new MicroTime(Date.parse('2030-01-02T03:04:05.678Z')));
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(1024);
    expect(note.startsWith('waited 60s; member ml/train-0 not placed; ')).toBe(true);
    expect(rest).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      reportingController: 'berth',
      reportingInstance: 'berth-test',
      action: 'Scheduling',
      reason: 'GangTimeout',
      type: 'Warning',
      regarding: {
        apiVersion: 'scheduling.x-k8s.io/v1alpha1',
        kind: 'PodGroup',
        name: 'train',
        namespace: 'ml',
      },
    });
  });

  it('logs a 404 (PodGroup or CRD gone) at debug, drops it, and forgets what it had written there', async () => {
    const t = setup();
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Pending') });
    await t.reports.settled();
    t.behaviour.status = () =>
      Promise.reject(apiError(404, 'NotFound', 'podgroups.scheduling.x-k8s.io "a" not found'));
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduling') });
    await t.reports.settled();
    // Recreated under its name: its status is empty, so Pending must be written again.
    t.behaviour.status = async () => ({});
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Pending') });
    await t.reports.settled();
    expect(t.written()).toEqual(['a Pending 0/0', 'a Scheduling 0/0', 'a Pending 0/0']);
    expect(t.logLines.filter((l) => (l.level as number) >= 40)).toEqual([]);
    expect(t.logLines.find((l) => l.podGroup === 'ml/a')).toMatchObject({
      level: 20,
      code: 404,
      write: 'patch status Scheduling',
    });
    expect(t.ingested).toEqual([]);
  });

  it('logs any other failure at warn with the group and the write, and drops it once its tries are spent', async () => {
    // One try: retries have tests of their own below.
    const t = setup({ reportRetry: { tries: 1, firstDelayMs: 100 } });
    t.behaviour.status = () => Promise.reject(apiError(500, 'InternalError', 'etcd timeout'));
    t.behaviour.event = () => Promise.reject(apiError(403, 'Forbidden', 'events is forbidden'));
    t.reports.execute({
      kind: 'reportGroup',
      report: {
        ...report('ml/a', 'Failed'),
        event: { type: 'Warning', reason: 'GangFailed', message: 'a member failed' },
      },
    });
    await t.reports.settled();
    expect(t.calls.status).toHaveLength(1);
    expect(t.calls.event).toHaveLength(1);
    const warnings = t.logLines.filter((l) => l.level === 40);
    expect(warnings).toEqual([
      expect.objectContaining({
        podGroup: 'ml/a',
        write: 'patch status Failed',
        code: 500,
        err: 'etcd timeout',
      }),
      expect.objectContaining({
        podGroup: 'ml/a',
        write: 'event GangFailed',
        code: 403,
        err: 'events is forbidden',
      }),
    ]);
    // Not written, so not remembered: the same status is sent when reported again.
    t.behaviour.status = async () => ({});
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Failed') });
    await t.reports.settled();
    expect(t.calls.status).toHaveLength(2);
    expect(t.ingested).toEqual([]);
  });

  it('never holds up a bind: binds go while group reports wait behind an empty report bucket', async () => {
    const binds = manualBucket(1);
    const reports = manualBucket(1);
    const t = setup({ limiter: binds.bucket, reportLimiter: reports.bucket });
    for (let i = 0; i < 50; i++)
      t.reports.execute({ kind: 'reportGroup', report: report(`ml/g${i}`, 'Pending') });
    await flush();
    t.binder.execute({ kind: 'bind', attempt: { uid: 'u', key: 'ml/p', attempt: 1 }, node: 'n' });
    await t.binder.idle();
    expect(t.calls.bind).toHaveLength(1);
    expect(t.ingested).toEqual([
      { type: 'BindSucceeded', uid: 'u', key: 'ml/p', attempt: 1, node: 'n' },
    ]);
    expect(t.calls.status).toHaveLength(1);
    expect(t.reports.queuedReports).toBe(49);
  });

  it('stop() drops the queued group writes and ignores later reports', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket });
    for (let i = 0; i < 4; i++)
      t.reports.execute({ kind: 'reportGroup', report: report(`ml/g${i}`, 'Pending') });
    await flush();
    t.stop();
    t.reports.execute({ kind: 'reportGroup', report: report('ml/late', 'Pending') });
    expect(t.reports.queuedReports).toBe(0);
    expect(t.logLines.find((l) => l.msg === 'stopped; queued reports dropped')).toMatchObject({
      dropped: 3,
    });
    for (let i = 0; i < 4; i++) await reports.tick();
    await t.reports.settled();
    expect(t.written()).toEqual(['g0 Pending 0/0']);
  });
});

describe('KubeReports reportGroup retries', () => {
  /** Retry timers that fire only when told. */
  function retryClock() {
    const timers: { ms: number; fire: () => void }[] = [];
    const clock: RetryClock = {
      setTimeout: (fire, ms) => timers.push({ ms, fire }),
      clearTimeout: () => {},
    };
    return {
      clock,
      /** Fires the timers armed so far; returns their delays. */
      async fire(): Promise<number[]> {
        const due = timers.splice(0);
        for (const t of due) t.fire();
        await flush();
        return due.map((t) => t.ms);
      },
    };
  }

  it('sends a status patch and an Event refused with 503 again after 100 ms, on a report token each', async () => {
    const time = retryClock();
    const reports = manualBucket(2);
    const t = setup({ retryClock: time.clock, reportLimiter: reports.bucket });
    const unavailable = () =>
      Promise.reject(apiError(503, 'ServiceUnavailable', 'etcd leader changed'));
    t.behaviour.status = unavailable;
    t.behaviour.event = unavailable;
    t.reports.execute({
      kind: 'reportGroup',
      report: {
        ...report('ml/a', 'Scheduling', 2),
        event: { type: 'Normal', reason: 'GangScheduling', message: 'placing 2 members' },
      },
    });
    await flush();
    expect([t.calls.status.length, t.calls.event.length]).toEqual([1, 1]);
    t.behaviour.status = async () => ({});
    t.behaviour.event = async () => ({});
    expect(await time.fire()).toEqual([100, 100]);
    // Both retries wait for a token of the report bucket, which the first tries emptied.
    expect([t.calls.status.length, t.calls.event.length]).toEqual([1, 1]);
    await reports.tick();
    await reports.tick();
    expect(t.written()).toEqual(['a Scheduling 2/0', 'a Scheduling 2/0']);
    expect(t.calls.event).toHaveLength(2);
    expect(t.logLines.filter((l) => l.msg === 'PodGroup report failed; retrying')).toHaveLength(2);
  });

  it('a status retry sends the latest status when a newer report came while it waited', async () => {
    const time = retryClock();
    const t = setup({ retryClock: time.clock });
    t.behaviour.status = () => Promise.reject(apiError(500, 'InternalError', 'x'));
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduling', 1) });
    await flush();
    t.behaviour.status = async () => ({});
    t.reports.execute({ kind: 'reportGroup', report: report('ml/a', 'Scheduled', 2) });
    await flush();
    // The newer report waits for the retry instead of overtaking it.
    expect(t.written()).toEqual(['a Scheduling 1/0']);
    await time.fire();
    await t.reports.settled();
    expect(t.written()).toEqual(['a Scheduling 1/0', 'a Scheduled 2/0']);
  });

  it('tries a status 4 times (100, 200, 400 ms apart) while it keeps failing, and does not retry a 403 or 422', async () => {
    const time = retryClock();
    const t = setup({ retryClock: time.clock });
    t.behaviour.status = () =>
      Promise.reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    t.behaviour.event = () => Promise.reject(apiError(422, 'Invalid', 'note: Too long'));
    t.reports.execute({
      kind: 'reportGroup',
      report: {
        ...report('ml/a', 'Failed'),
        event: { type: 'Warning', reason: 'GangFailed', message: 'a member failed' },
      },
    });
    await flush();
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) waits.push(...(await time.fire()));
    expect(waits).toEqual([100, 200, 400]);
    expect(t.calls.status).toHaveLength(4);
    expect(t.calls.event).toHaveLength(1);
    await t.reports.settled();
    expect(t.reports.queuedReports).toBe(0);
  });
});
