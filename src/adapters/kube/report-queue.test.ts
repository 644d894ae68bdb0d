import { describe, expect, it } from 'vitest';
import { pod, fakeApiEffects as setup } from '../../../test/adapters/kube-effects-harness.ts';
import { flush, manualBucket } from '../../../test/support/kube-api-doubles.ts';

describe('KubeReports report backlog', () => {
  it('keeps at most maxQueuedReports waiting, dropping the oldest, and logs the count', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket, maxQueuedReports: 3 });
    for (let i = 0; i < 10; i++)
      t.reports.execute({ kind: 'reportScheduled', pod: pod(`ns/p${i}`), node: 'n' });
    expect(t.reports.queuedReports).toBe(3);
    expect(t.reports.droppedReports).toBe(7);
    expect(
      t.logLines.filter((l) => l.msg === 'report backlog full; dropping the oldest reports'),
    ).toMatchObject([{ level: 40, dropped: 1 }]);
    await flush();
    await reports.tick();
    await reports.tick();
    await t.reports.settled();
    expect(t.notes()).toEqual(['p7', 'p8', 'p9'].map((p) => `Successfully assigned ns/${p} to n`));
    expect(t.logLines.find((l) => l.msg === 'report backlog drained')).toMatchObject({
      dropped: 7,
    });
  });

  it('writes a dropped unschedulable report again when it is repeated', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket, maxQueuedReports: 2 });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/a'),
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/b'),
      message: 'B',
      observedGeneration: 0,
      reason: 'Unschedulable',
    }); // pushes a's two writes out
    expect(t.reports.droppedReports).toBe(2);
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/a'),
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    }); // not deduped; pushes b's writes out
    expect(t.reports.droppedReports).toBe(4);
    for (let i = 0; i < 4; i++) await reports.tick();
    await t.reports.settled();
    expect(t.calls.patch.map((c) => c.param.name)).toEqual(['a']);
    expect(t.notes()).toEqual(['A']);
  });
});

describe('KubeReports status writes of one pod', () => {
  it('sends them one at a time, in order, and skips one a newer report replaced while it waited', async () => {
    const t = setup();
    const pending: Array<() => void> = [];
    t.behaviour.patch = () => new Promise((resolve) => pending.push(() => resolve({})));
    const report = (message: string) =>
      t.reports.execute({
        kind: 'reportUnschedulable',
        pod: pod('ns/a'),
        message,
        observedGeneration: 0,
        reason: 'Unschedulable',
      });
    const sent = () =>
      t.calls.patch.map((c) => {
        const body = c.param.body as { status: { conditions: { message: string }[] } };
        return body.status.conditions[0]?.message;
      });
    report('first');
    await flush();
    report('second');
    report('third');
    await flush();
    // 'first' is in flight: nothing else for the pod may start before it is answered.
    expect(sent()).toEqual(['first']);
    pending.shift()?.();
    await flush();
    // 'second' was replaced by 'third' while it waited: only 'third' follows.
    expect(sent()).toEqual(['first', 'third']);
    pending.shift()?.();
    await t.reports.settled();
    expect(sent()).toEqual(['first', 'third']);
  });
});
