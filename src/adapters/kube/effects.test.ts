import { describe, expect, it } from 'vitest';
import {
  attempt,
  pod,
  fakeApiEffects as setup,
} from '../../../test/adapters/kube-effects-harness.ts';
import { deferred, flush, manualBucket, within } from '../../../test/support/kube-api-doubles.ts';

describe('kubeEffects idle and stop', () => {
  it('resolves once the binds in flight have settled, without waiting for reports', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket });
    const bind = deferred();
    const event = deferred();
    t.behaviour.bind = () => bind.promise;
    t.behaviour.event = () => event.promise;
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/p'), node: 'n' });
    // One report in flight (never answered) and five waiting for a report token.
    for (let i = 0; i < 6; i++)
      t.reports.execute({ kind: 'reportScheduled', pod: pod(`ns/q${i}`), node: 'n' });
    await flush();
    expect(await within(t.binder.idle(), 20)).toBe('pending');
    bind.resolve();
    expect(await within(t.binder.idle(), 200)).toBe('settled');
    expect(t.ingested).toHaveLength(1);
    expect(t.reports.queuedReports).toBe(5);
  });

  it('stop() drops the queued reports and logs how many', async () => {
    const reports = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket });
    for (let i = 0; i < 6; i++)
      t.reports.execute({ kind: 'reportScheduled', pod: pod(`ns/q${i}`), node: 'n' });
    await flush();
    t.stop();
    expect(t.reports.queuedReports).toBe(0);
    expect(t.logLines.find((l) => l.msg === 'stopped; queued reports dropped')).toMatchObject({
      dropped: 5,
    });
    for (let i = 0; i < 5; i++) await reports.tick();
    expect(t.calls.event).toHaveLength(1);
  });

  it('resolves at once when nothing is in flight', async () => {
    const t = setup();
    await expect(t.binder.idle()).resolves.toBeUndefined();
  });
});

describe('kubeEffects under a burst of binds', () => {
  it('holds reports while reportsYieldAt binds are in flight and sends them as binds finish', async () => {
    const t = setup({ reportsYieldAt: 2 });
    const binds = [deferred(), deferred()];
    let i = 0;
    t.behaviour.bind = () => (binds[i++] as ReturnType<typeof deferred>).promise;
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/a'), node: 'n' });
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/b'), node: 'n' });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/earlier'), node: 'n' });
    await flush();
    expect(t.calls.bind).toHaveLength(2);
    expect(t.calls.event).toHaveLength(0);
    binds[0]?.resolve();
    await flush();
    await flush();
    expect(t.notes()).toEqual(['Successfully assigned ns/earlier to n']);
    binds[1]?.resolve();
    await t.reports.settled();
  });

  it('by default sends reports beside a burst of binds, on their own budget (as kube-scheduler)', async () => {
    const t = setup();
    const binds = Array.from({ length: 8 }, () => deferred());
    let i = 0;
    t.behaviour.bind = () => (binds[i++] as ReturnType<typeof deferred>).promise;
    for (let b = 0; b < binds.length; b++)
      t.binder.execute({ kind: 'bind', attempt: attempt(`ns/b${b}`), node: 'n' });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/earlier'), node: 'n' });
    await flush();
    await flush();
    expect(t.calls.bind).toHaveLength(8);
    expect(t.notes()).toEqual(['Successfully assigned ns/earlier to n']);
    for (const b of binds) b.resolve();
    await t.reports.settled();
  });

  it('sends reports at once while fewer binds than reportsYieldAt are busy', async () => {
    const t = setup({ reportsYieldAt: 2 });
    const bind = deferred();
    t.behaviour.bind = () => bind.promise;
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/a'), node: 'n' });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/x'), node: 'n' });
    await flush();
    expect(t.calls.event).toHaveLength(1);
    bind.resolve();
    await t.reports.settled();
  });

  it('stop() releases reports held back by binds (they are dropped, nothing hangs)', async () => {
    const t = setup({ reportsYieldAt: 1 });
    const bind = deferred();
    t.behaviour.bind = () => bind.promise;
    t.binder.execute({ kind: 'bind', attempt: attempt('ns/a'), node: 'n' });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/x'), node: 'n' });
    await flush();
    t.stop();
    bind.resolve();
    expect(await within(t.reports.settled(), 1000)).toBe('settled');
    expect(t.calls.event).toHaveLength(0);
  });
});
