// Tests that failed reports are retried with backoff only when the failure may pass, on the report budget, never delaying binds.
import { FetchError } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  apiError,
  fakeDirectHttp,
  flush,
  manualBucket,
  testEffects,
} from '../../../test/support/kube-api-doubles.ts';
import { describeApiError } from './api-error.ts';
import type { KubeClients } from './config.ts';
import type { KubeEffectsOptions } from './effects.ts';
import { isRetriable, type RetryClock, RetryTimers, retryDelay } from './report-retry.ts';

/** A RetryClock that fires only when told: `advance(ms)` runs every timer due by then. */
function manualClock() {
  let now = 0;
  let next = 0;
  const timers = new Map<number, { at: number; fire: () => void }>();
  const clock: RetryClock = {
    setTimeout: (fire, ms) => {
      timers.set(++next, { at: now + ms, fire });
      return next;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
  };
  return {
    clock,
    /** Delays of the timers armed now, in arming order. */
    armed: () => [...timers.values()].map((t) => t.at - now),
    async advance(ms: number) {
      now += ms;
      for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at))
        if (t.at <= now) {
          timers.delete(id);
          t.fire();
        }
      await flush();
    },
  };
}

const timeout = Object.assign(new Error('The user aborted a request.'), {
  name: 'AbortError',
  type: 'aborted',
});
const refused = new FetchError(
  'request to https://127.0.0.1:1/x failed, reason: connect ECONNREFUSED 127.0.0.1:1',
  'system',
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
);

/** KubeReports whose pod status patches and Events fail as `failures` says, one entry per call. */
function setup(over: Partial<KubeEffectsOptions> = {}) {
  const failures = { patch: [] as unknown[], event: [] as unknown[] };
  const calls = { patch: 0, event: 0, bind: 0 };
  const answer = (which: 'patch' | 'event') => {
    calls[which]++;
    const failure = failures[which].shift();
    return failure === undefined ? Promise.resolve({}) : Promise.reject(failure);
  };
  const clients = {
    server: 'https://fake',
    http: fakeDirectHttp({
      bind: async () => {
        calls.bind++;
        return {};
      },
      event: () => answer('event'),
    }),
    core: { patchNamespacedPodStatus: () => answer('patch') },
  } as unknown as KubeClients;
  const time = manualClock();
  const t = testEffects(clients, { retryClock: time.clock, ...over });
  const retries = () => t.logLines.filter((l) => l.msg === 'report failed; retrying');
  const drops = () => t.logLines.filter((l) => l.msg === 'report failed');
  return { ...t, failures, calls, time, retries, drops };
}

const pod = (key: string) => ({ uid: `uid-${key}`, key });

describe('isRetriable and retryDelay', () => {
  it.each([
    [500, true],
    [503, true],
    [504, true],
    [429, true],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [409, false],
    [422, false],
  ])('a %i answer is retried: %s', (code, expected) => {
    expect(isRetriable(describeApiError(apiError(code, 'X', 'm')))).toBe(expected);
  });

  it('retries a timeout and a refused connection, not an error that is not the API’s', () => {
    expect(isRetriable(describeApiError(timeout))).toBe(true);
    expect(isRetriable(describeApiError(refused))).toBe(true);
    expect(isRetriable(describeApiError(new TypeError('a bug')))).toBe(false);
  });

  it('waits 100, 200, 400 ms after the 1st, 2nd, 3rd failed try, and gives up after the 4th', () => {
    const policy = { tries: 4, firstDelayMs: 100 };
    expect([1, 2, 3, 4].map((n) => retryDelay(policy, n))).toEqual([100, 200, 400, undefined]);
  });
});

describe('RetryTimers', () => {
  it('requeues after the delay, cancels what is asked, and settles once nothing waits', async () => {
    const time = manualClock();
    const requeued: string[] = [];
    const timers = new RetryTimers<string>((job) => requeued.push(job), time.clock);
    timers.schedule('a', 100);
    timers.schedule('b', 200);
    timers.schedule('c', 50);
    expect(timers.cancel((job) => job === 'c')).toBe(1);
    await time.advance(100);
    expect(requeued).toEqual(['a']);
    let settled = false;
    void timers.settled().then(() => {
      settled = true;
    });
    await flush();
    expect(settled).toBe(false);
    expect(timers.close()).toBe(1);
    await flush();
    expect(settled).toBe(true);
    timers.schedule('d', 1);
    await time.advance(10);
    expect(requeued).toEqual(['a']);
  });
});

describe('KubeReports retries', () => {
  it('a PodScheduled patch and its Event refused with 503 are sent again 100 ms later and written', async () => {
    const t = setup();
    t.failures.patch.push(apiError(503, 'ServiceUnavailable', 'etcd leader changed'));
    t.failures.event.push(apiError(500, 'InternalError', 'etcdserver: request timed out'));
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/p'),
      message: 'no fit',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await flush();
    expect(t.calls).toMatchObject({ patch: 1, event: 1 });
    expect(t.retries()).toMatchObject([
      { write: 'patch PodScheduled', code: 503, tries: 1, retryInMs: 100 },
      { write: 'event FailedScheduling', code: 500, tries: 1, retryInMs: 100 },
    ]);
    expect(t.reports.queuedReports).toBe(2);
    await t.time.advance(99);
    expect(t.calls).toMatchObject({ patch: 1, event: 1 });
    await t.time.advance(1);
    expect(t.calls).toMatchObject({ patch: 2, event: 2 });
    expect(t.reports.queuedReports).toBe(0);
    expect(t.drops()).toEqual([]);
  });

  it('an Event that keeps timing out is tried 4 times, 100, 200 and 400 ms apart, then dropped', async () => {
    const t = setup();
    t.failures.event.push(timeout, refused, timeout, timeout, timeout);
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/p'), node: 'n1' });
    await flush();
    for (const wait of [100, 200, 400]) {
      expect(t.time.armed()).toEqual([wait]);
      await t.time.advance(wait);
    }
    expect(t.calls.event).toBe(4);
    expect(t.time.armed()).toEqual([]);
    expect(t.drops()).toMatchObject([{ write: 'event Scheduled', tries: 4 }]);
    await t.time.advance(10_000);
    expect(t.calls.event).toBe(4);
  });

  it.each([
    ['403', apiError(403, 'Forbidden', 'events is forbidden')],
    ['404 (the pod is gone)', apiError(404, 'NotFound', 'pods "p" not found')],
    ['409', apiError(409, 'AlreadyExists', 'events "p.1" already exists')],
    ['422', apiError(422, 'Invalid', 'note: Too long')],
  ])('a report refused with %s is not tried again', async (_name, error) => {
    const t = setup();
    t.failures.patch.push(error);
    t.failures.event.push(error);
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/p'),
      message: 'no fit',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await flush();
    await t.time.advance(10_000);
    expect(t.calls).toMatchObject({ patch: 1, event: 1 });
    expect(t.retries()).toEqual([]);
    expect(t.drops()).toHaveLength(2);
  });

  it('each try takes a report token; a bind waiting behind the retries goes at once on its own bucket', async () => {
    const reports = manualBucket(1);
    const binds = manualBucket(1);
    const t = setup({ reportLimiter: reports.bucket, limiter: binds.bucket });
    t.failures.event.push(apiError(503, 'ServiceUnavailable', 'x'));
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/p'), node: 'n1' });
    await flush();
    expect(t.calls.event).toBe(1);
    await t.time.advance(100);
    // The retry is queued again and waits for a token of the report bucket (now empty).
    expect(t.calls.event).toBe(1);
    t.binder.execute({ kind: 'bind', attempt: { ...pod('ns/q'), attempt: 1 }, node: 'n1' });
    await flush();
    expect(t.calls.bind).toBe(1);
    await reports.tick();
    expect(t.calls.event).toBe(2);
  });

  it('a status patch is not sent again once its pod is forgotten, bound, or has a newer report', async () => {
    const unavailable = () => apiError(503, 'ServiceUnavailable', 'x');
    const t = setup();
    t.failures.patch.push(unavailable(), unavailable(), unavailable());
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/gone'),
      message: 'no fit',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/bound'),
      message: 'no fit',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/newer'),
      message: 'A',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await flush();
    expect(t.calls.patch).toBe(3);
    t.reports.execute({ kind: 'forgetPod', pod: pod('ns/gone') });
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/bound'), node: 'n1' });
    t.reports.execute({
      kind: 'reportUnschedulable',
      pod: pod('ns/newer'),
      message: 'B',
      observedGeneration: 0,
      reason: 'Unschedulable',
    });
    await flush();
    // Only B's patch went out (and the Events, which are records, not state).
    expect(t.calls.patch).toBe(4);
    await t.time.advance(1_000);
    expect(t.calls.patch).toBe(4);
  });

  it('stop() cancels the retries waiting and counts them as dropped', async () => {
    const t = setup();
    t.failures.event.push(timeout);
    t.reports.execute({ kind: 'reportScheduled', pod: pod('ns/p'), node: 'n1' });
    await flush();
    t.stop();
    expect(t.logLines.find((l) => l.msg === 'stopped; queued reports dropped')).toMatchObject({
      dropped: 1,
    });
    await t.time.advance(1_000);
    expect(t.calls.event).toBe(1);
    await t.reports.settled();
  });
});
