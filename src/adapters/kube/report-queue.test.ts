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
