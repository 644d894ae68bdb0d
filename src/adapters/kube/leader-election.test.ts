// Tests the Lease elector against an in-memory API server with resourceVersions, on fake timers.
import { ApiException, type V1Lease } from '@kubernetes/client-node';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  formatMicroTime,
  type LeaderElectionConfig,
  type LeaseApi,
  LeaseElector,
  leaderIdentity,
  validateLeaderElectionConfig,
} from './leader-election.ts';

const sixDigits = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

function apiError(code: number, reason: string, message: string): ApiException<string> {
  const body = JSON.stringify({ kind: 'Status', status: 'Failure', code, reason, message });
  return new ApiException(code, `HTTP-Code: ${code}`, body, {});
}

/** A request the fake served: its verb and, for writes, the spec it stored. */
interface Served {
  verb: 'get' | 'create' | 'replace';
  client: string;
  spec?: Record<string, unknown>;
}

/**
 * One Lease as kube-apiserver keeps it: JSON on the wire (times come back as strings),
 * resourceVersion bumped on every write, 409 for a stale PUT or a second create, 400 for a
 * MicroTime without exactly six fractional digits.
 */
class FakeLeaseServer {
  stored: V1Lease | undefined;
  private rv = 0;
  readonly served: Served[] = [];
  /** When set, every request fails with this error (an outage). */
  failWith: Error | undefined;
  /** Milliseconds each answer takes (on the fake clock). */
  latencyMs = 0;

  client(name: string): LeaseApi {
    return {
      get: (_namespace, _name) =>
        this.answer(() => {
          this.served.push({ verb: 'get', client: name });
          return this.stored === undefined ? undefined : wire(this.stored);
        }),
      create: (lease) =>
        this.answer(() => {
          if (this.stored !== undefined) throw apiError(409, 'AlreadyExists', 'already exists');
          return this.write(name, 'create', lease);
        }),
      replace: (lease) =>
        this.answer(() => {
          if (this.stored === undefined) throw apiError(404, 'NotFound', 'not found');
          if (lease.metadata?.resourceVersion !== this.stored.metadata?.resourceVersion)
            throw apiError(409, 'Conflict', 'the object has been modified');
          return this.write(name, 'replace', lease);
        }),
    };
  }

  /** Another party writes the spec directly (a holder elsewhere, or an admin). */
  put(spec: Record<string, unknown>): void {
    const metadata = {
      namespace: 'kube-system',
      name: 'berth',
      resourceVersion: String(++this.rv),
    };
    this.stored = wire({ metadata, spec } as V1Lease);
  }

  get spec(): Record<string, unknown> {
    return (this.stored?.spec ?? {}) as Record<string, unknown>;
  }

  writesBy(client: string): Served[] {
    return this.served.filter((s) => s.client === client && s.verb !== 'get');
  }

  private write(client: string, verb: 'create' | 'replace', lease: V1Lease): V1Lease {
    const sent = wire(lease);
    for (const field of ['acquireTime', 'renewTime'] as const) {
      const t = sent.spec?.[field] as unknown;
      if (t !== undefined && (typeof t !== 'string' || !sixDigits.test(t)))
        throw apiError(400, 'BadRequest', `parsing time ${JSON.stringify(t)}`);
    }
    sent.metadata = { ...sent.metadata, resourceVersion: String(++this.rv) };
    this.stored = sent;
    this.served.push({ verb, client, spec: sent.spec as Record<string, unknown> });
    return wire(sent);
  }

  private answer<T>(serve: () => T): Promise<T> {
    const run = () => {
      if (this.failWith !== undefined) throw this.failWith;
      return serve();
    };
    if (this.latencyMs === 0) return Promise.resolve().then(run);
    return new Promise((resolve, reject) => {
      setTimeout(() => {
        try {
          resolve(run());
        } catch (error) {
          reject(error);
        }
      }, this.latencyMs);
    });
  }
}

/** What JSON over HTTP does to a Lease (client-node leaves MicroTimes as strings). */
function wire(lease: V1Lease): V1Lease {
  return JSON.parse(JSON.stringify(lease)) as V1Lease;
}

const config = (identity: string): LeaderElectionConfig => ({
  namespace: 'kube-system',
  name: 'berth',
  identity,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
});

interface Harness {
  elector: LeaseElector;
  started: number;
  stopped: string[];
  leaders: string[];
  logs: Record<string, unknown>[];
}

function elector(
  server: FakeLeaseServer,
  identity: string,
  opts: { random?: () => number; now?: () => number } = {},
): Harness {
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const h: Harness = {
    elector: new LeaseElector({
      api: server.client(identity),
      config: config(identity),
      logger,
      callbacks: {
        onStartedLeading: () => {
          h.started++;
        },
        onStoppedLeading: (reason) => h.stopped.push(reason),
        onNewLeader: (holder) => h.leaders.push(holder),
      },
      now: opts.now ?? (() => Date.now()),
      random: opts.random ?? (() => 0),
    }),
    started: 0,
    stopped: [],
    leaders: [],
    logs,
  };
  return h;
}

/** A lease held by `holder` whose renewTime says `renewTime` (the holder's clock). */
function heldBy(holder: string, renewTime: string) {
  return {
    holderIdentity: holder,
    leaseDurationSeconds: 15,
    acquireTime: renewTime,
    renewTime,
    leaseTransitions: 3,
  };
}

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('LeaseElector', () => {
  let server: FakeLeaseServer;
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-11-23T10:00:00.000Z') });
    server = new FakeLeaseServer();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('creates and takes a lease nobody has made yet, with six-digit MicroTimes', async () => {
    const a = elector(server, 'a');
    a.elector.start();
    await advance(0);
    expect(a.elector.leading).toBe(true);
    expect(a.started).toBe(1);
    expect(a.leaders).toEqual(['a']);
    expect(server.spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      acquireTime: '2026-11-23T10:00:00.000000Z',
      renewTime: '2026-11-23T10:00:00.000000Z',
    });
    a.elector.stop();
  });

  it('takes a released lease (no holder) at once, counting a transition', async () => {
    server.put({ ...heldBy('', '2026-11-23T09:00:00.000000Z'), leaseDurationSeconds: 1 });
    const b = elector(server, 'b');
    b.elector.start();
    await advance(0);
    expect(b.elector.leading).toBe(true);
    expect(server.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 4 });
    b.elector.stop();
  });

  for (const [when, renewTime] of [
    ['far in the past', '2000-01-01T00:00:00.000000Z'],
    ['far in the future', '2099-01-01T00:00:00.000000Z'],
  ] as const) {
    it(`waits a whole leaseDuration from its own observation when the holder's renewTime is ${when}`, async () => {
      server.put(heldBy('other', renewTime));
      const b = elector(server, 'b');
      b.elector.start();
      // Tries at 0, 2, …, 14 s (no jitter drawn): the lease is not expired before 15 s.
      await advance(15_000);
      expect(b.elector.leading).toBe(false);
      expect(server.writesBy('b')).toEqual([]);
      expect(b.leaders).toEqual(['other']);
      // The next try is timed for 1 ms past expiry (not the 16 s retry) and takes it over.
      await advance(1);
      expect(b.elector.leading).toBe(true);
      expect(server.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 4 });
      expect(server.spec.acquireTime).toBe('2026-11-23T10:00:15.001000Z');
      expect(b.leaders).toEqual(['other', 'b']);
      b.elector.stop();
    });
  }

  it('counts expiry from the last change it saw: a renewal by the holder restarts the wait', async () => {
    server.put(heldBy('other', '2026-11-23T10:00:00.000000Z'));
    const b = elector(server, 'b');
    b.elector.start();
    await advance(9_000);
    server.put(heldBy('other', '2026-11-23T10:00:09.000000Z')); // seen at the 10 s try
    await advance(15_000); // 24 s: 14 s after it saw the change
    expect(b.elector.leading).toBe(false);
    await advance(1_001); // 25.001 s: 15 s and 1 ms after
    expect(b.elector.leading).toBe(true);
    b.elector.stop();
  });

  it('a change of any field of the record counts as a change (here leaseTransitions only)', async () => {
    server.put(heldBy('other', '2026-11-23T10:00:00.000000Z'));
    const b = elector(server, 'b');
    b.elector.start();
    await advance(13_000);
    server.put({ ...heldBy('other', '2026-11-23T10:00:00.000000Z'), leaseTransitions: 9 });
    await advance(4_000); // 17 s: would have taken it at 15 s had it compared renewTime only
    expect(b.elector.leading).toBe(false);
    await advance(11_900); // the 14 s try saw the change: still held at 28.9 s
    expect(b.elector.leading).toBe(false);
    await advance(102); // expired after 29 s, taken 1 ms later
    expect(b.elector.leading).toBe(true);
    b.elector.stop();
  });

  it('jitters the acquire retry between retryPeriod and retryPeriod × 2.2', async () => {
    server.put(heldBy('other', '2026-11-23T10:00:00.000000Z'));
    const draws = [0.999, 0, 0.5];
    const b = elector(server, 'b', { random: () => draws.shift() ?? 0 });
    b.elector.start();
    await advance(0);
    const at: number[] = [];
    for (let t = 0; t <= 9_000; t += 100) {
      const gets = server.served.filter((s) => s.verb === 'get').length;
      if (gets > at.length) at.push(t);
      await advance(100);
    }
    // Waits 2 s × (1 + 1.2 × draw): 4.3976 s, then 2 s, then 3.2 s (at 9.5976 s, too late).
    expect(at).toEqual([0, 4_400, 6_400]);
    b.elector.stop();
  });

  it('renews every retryPeriod, keeping acquireTime (to the microsecond) and transitions', async () => {
    server.put({ ...heldBy('', '2026-11-23T09:59:59.123456Z'), leaseDurationSeconds: 1 });
    const a = elector(server, 'a');
    a.elector.start();
    await advance(0);
    const acquired = { ...server.spec };
    await advance(10_000);
    const renewals = server.writesBy('a').slice(1);
    expect(renewals).toHaveLength(5);
    for (const [i, r] of renewals.entries()) {
      expect(r.spec).toMatchObject({
        holderIdentity: 'a',
        acquireTime: acquired.acquireTime,
        leaseTransitions: acquired.leaseTransitions,
        renewTime: `2026-11-23T10:00:${String(2 * (i + 1)).padStart(2, '0')}.000000Z`,
      });
    }
    // Renewals go by the fast path: one PUT each, no read before it.
    expect(server.served.filter((s) => s.verb === 'get')).toHaveLength(1);
    expect(a.elector.leading).toBe(true);
    expect(a.stopped).toEqual([]);
    a.elector.stop();
  });

  it('keeps the server microseconds of acquireTime when renewing', async () => {
    server.put(heldBy('a', '2026-11-23T09:59:59.123456Z'));
    const a = elector(server, 'a');
    a.elector.start();
    await advance(0);
    expect(server.spec.acquireTime).toBe('2026-11-23T09:59:59.123456Z');
    expect(server.spec.leaseTransitions).toBe(3);
    a.elector.stop();
  });

  it('loses leadership when no renew has succeeded for renewDeadline, and retries until then', async () => {
    const a = elector(server, 'a');
    a.elector.start();
    await advance(0);
    server.failWith = apiError(500, 'InternalError', 'etcd is down');
    const before = server.served.length;
    await advance(9_999);
    expect(a.elector.leading).toBe(true);
    expect(a.stopped).toEqual([]);
    await advance(1);
    expect(a.elector.leading).toBe(false);
    expect(a.stopped).toHaveLength(1);
    expect(a.stopped[0]).toMatch(/renew deadline/);
    expect(server.served.length).toBe(before); // every request failed, none was served
    const failures = a.logs.filter((l) => l.status === 500);
    expect(failures.length).toBeGreaterThanOrEqual(4);
    expect(failures[0]).toMatchObject({ lease: 'kube-system/berth', identity: 'a' });
    server.failWith = undefined;
    await advance(30_000);
    expect(server.writesBy('a')).toHaveLength(1); // nothing after losing it
    expect(a.stopped).toHaveLength(1);
  });

  it('on a 409 re-reads: another holder means leadership is lost at once, never retaken', async () => {
    const a = elector(server, 'a');
    a.elector.start();
    await advance(0);
    server.put(heldBy('intruder', '2026-11-23T10:00:01.000000Z'));
    await advance(2_000);
    expect(a.elector.leading).toBe(false);
    expect(a.stopped).toEqual(['the lease is now held by intruder']);
    expect(a.logs.some((l) => l.status === 409)).toBe(true);
    expect(server.spec.holderIdentity).toBe('intruder');
    await advance(60_000);
    expect(server.writesBy('a')).toHaveLength(1);
  });

  it('on a 409 with the record unchanged (someone touched metadata) renews after the re-read', async () => {
    const a = elector(server, 'a');
    a.elector.start();
    await advance(0);
    server.put(server.spec); // same spec, new resourceVersion
    await advance(2_000);
    expect(a.elector.leading).toBe(true);
    expect(server.writesBy('a')).toHaveLength(2);
    expect(server.served.map((s) => s.verb)).toEqual(['get', 'create', 'get', 'replace']);
    a.elector.stop();
  });

  it('release writes the lease free and a standby takes it at its next retry', async () => {
    const a = elector(server, 'a');
    const b = elector(server, 'b');
    a.elector.start();
    await advance(0);
    b.elector.start();
    await advance(5_000);
    expect(b.elector.leading).toBe(false);
    await a.elector.release();
    expect(server.spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 0,
    });
    expect(server.spec.renewTime).toMatch(sixDigits);
    expect(a.elector.leading).toBe(false);
    expect(a.stopped).toEqual([]);
    await advance(2_000);
    expect(b.elector.leading).toBe(true);
    expect(server.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(b.leaders).toEqual(['a', 'b']);
    b.elector.stop();
  });

  it('release waits for a renew in flight and then writes with its resourceVersion', async () => {
    server.latencyMs = 500;
    const a = elector(server, 'a');
    a.elector.start();
    await advance(1_000); // the get answered at 0.5 s, the create at 1 s
    expect(a.elector.leading).toBe(true);
    await advance(2_200); // the renew sent at 3 s is in flight until 3.5 s
    const released = a.elector.release();
    await advance(1_000);
    await released;
    expect(server.spec.holderIdentity).toBe('');
    expect(a.logs.some((l) => l.status === 409)).toBe(false);
  });

  it('release gives up after about 2 s when the API does not answer, and never rejects', async () => {
    const a = elector(server, 'a');
    a.elector.start();
    await advance(0);
    server.latencyMs = 60_000;
    let done = false;
    void a.elector.release().then(() => {
      done = true;
    });
    await advance(1_900);
    expect(done).toBe(false);
    await advance(200);
    expect(done).toBe(true);
  });

  it('stop() writes nothing and calls nothing', async () => {
    const a = elector(server, 'a');
    a.elector.start();
    await advance(0);
    a.elector.stop();
    await advance(60_000);
    expect(server.writesBy('a')).toHaveLength(1);
    expect(server.spec.holderIdentity).toBe('a');
    expect(a.stopped).toEqual([]);
  });

  it('a standby takes over after a leader vanishes without releasing, counting transitions', async () => {
    const a = elector(server, 'a');
    const b = elector(server, 'b');
    a.elector.start();
    await advance(1_000);
    b.elector.start(); // b tries at 1, 3, 5, 7 s …; a renews at 2, 4, 6 s
    await advance(6_500);
    a.elector.stop(); // at 7.5 s: its last renew (6 s) was first seen by b at 7 s
    await advance(14_500);
    expect(b.elector.leading).toBe(false); // 22 s: b's try at 21 s found it valid
    await advance(1); // 22.001 s: the try timed for expiry, not the retry at 23 s
    expect(b.elector.leading).toBe(true);
    expect(server.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    b.elector.stop();
  });

  it('an owner callback that throws is logged and does not stop the renewals', async () => {
    const logs: string[] = [];
    const a = new LeaseElector({
      api: server.client('a'),
      config: config('a'),
      logger: pino({ level: 'info' }, { write: (line: string) => logs.push(line) }),
      callbacks: {
        onStartedLeading: () => {
          throw new Error('owner bug');
        },
        onStoppedLeading: () => {},
      },
      now: () => Date.now(),
    });
    a.start();
    await advance(6_000);
    expect(a.leading).toBe(true);
    expect(server.writesBy('a')).toHaveLength(4);
    expect(logs.some((l) => l.includes('onStartedLeading threw') && l.includes('owner bug'))).toBe(
      true,
    );
    a.stop();
  });

  it('mayWrite() turns false the moment the monotonic clock passes the renew deadline (a paused process), before any timer runs', async () => {
    let paused = 0;
    const a = elector(server, 'a', { now: () => Date.now() + paused });
    expect(a.elector.mayWrite()).toBe(false); // not leading yet
    a.elector.start();
    await advance(3_000); // acquired at 0, renewed at 2 s
    expect(a.elector.mayWrite()).toBe(true);
    paused = 8_999; // 9.999 s since the 2 s renew was sent
    expect(a.elector.mayWrite()).toBe(true);
    paused = 9_000; // SIGSTOP for 9 s: no timer has run, the renew deadline has passed
    expect(a.elector.refusal()).toMatch(/renew deadline \(10000 ms; last 10000 ms ago\)/);
    // Leadership is lost there and then, so the owner stops every other write too.
    expect(a.elector.leading).toBe(false);
    expect(a.stopped).toHaveLength(1);
    expect(a.stopped[0]).toMatch(/renew deadline/);
    paused = 0;
    expect(a.elector.mayWrite()).toBe(false); // never again, even if the clock looked fine
    await advance(30_000);
    expect(a.stopped).toHaveLength(1);
    expect(server.writesBy('a')).toHaveLength(2); // acquire and one renew: none after the loss
  });

  it('counts the renew deadline from when the successful renew was sent, not answered', async () => {
    const a = elector(server, 'a');
    a.elector.start();
    await advance(0); // acquired at 0 (answered at once)
    server.latencyMs = 4_000;
    await advance(2_000); // the renew is sent at 2 s …
    await advance(4_000); // … and answered at 6 s
    expect(server.writesBy('a')).toHaveLength(2);
    await advance(5_999); // 11.999 s: 9.999 s after the renew was sent (the next one is in flight)
    expect(a.elector.mayWrite()).toBe(true);
    await advance(1); // 12 s: 10 s after it was sent, though only 6 s after its answer
    expect(a.elector.mayWrite()).toBe(false);
    expect(a.stopped[0]).toMatch(/renew deadline/);
  });

  it('health() reports a leader whose last renew is older than leaseDuration + 20 s', async () => {
    let skew = 0;
    const a = elector(server, 'a', { now: () => Date.now() + skew });
    expect(a.elector.health()).toBeUndefined();
    a.elector.start();
    await advance(10_000);
    expect(a.elector.health()).toBeUndefined();
    skew = 35_000; // the event loop stalled: no timer ran for 35 s
    expect(a.elector.health()).toBeUndefined();
    skew = 36_000;
    expect(a.elector.health()).toMatch(/failed election to renew leadership on lease berth/);
    a.elector.stop();
    expect(a.elector.health()).toBeUndefined();
  });
});

describe('leader election helpers', () => {
  it('formats MicroTime with exactly six fractional digits', () => {
    expect(formatMicroTime(new Date('2026-11-23T10:00:00.123Z'))).toBe(
      '2026-11-23T10:00:00.123000Z',
    );
    expect(formatMicroTime(new Date(0))).toMatch(sixDigits);
  });

  it('makes hostname_uuid identities, different each time', () => {
    const a = leaderIdentity('node-1');
    expect(a).toMatch(/^node-1_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(leaderIdentity('node-1')).not.toBe(a);
  });

  const good = config('x');
  for (const [what, change, flag] of [
    ['lease not above the renew deadline', { leaseDurationMs: 10_000 }, 'lease-duration'],
    ['renew deadline not above retry × 1.2', { renewDeadlineMs: 2_400 }, 'renew-deadline'],
    ['a zero retry period', { retryPeriodMs: 0 }, 'retry-period'],
    ['a negative renew deadline', { renewDeadlineMs: -1 }, 'renew-deadline'],
    [
      'a lease under one second',
      { leaseDurationMs: 900, renewDeadlineMs: 800, retryPeriodMs: 100 },
      'lease-duration',
    ],
    ['a NaN lease', { leaseDurationMs: Number.NaN }, 'lease-duration'],
    ['an empty name', { name: '' }, 'resource-name'],
    ['an empty namespace', { namespace: '' }, 'resource-namespace'],
  ] as const) {
    it(`refuses ${what}, naming --leader-elect-${flag}`, () => {
      expect(() => validateLeaderElectionConfig({ ...good, ...change })).toThrow(
        `--leader-elect-${flag}`,
      );
    });
  }

  it('accepts the defaults and a short test setting', () => {
    validateLeaderElectionConfig(good);
    validateLeaderElectionConfig({
      ...good,
      leaseDurationMs: 4_000,
      renewDeadlineMs: 3_000,
      retryPeriodMs: 1_000,
    });
  });
});
