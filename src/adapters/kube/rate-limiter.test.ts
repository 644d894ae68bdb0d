// Tests the token bucket and the paced queue with an injected clock and timer.
import { describe, expect, it } from 'vitest';
import { PacedQueue, TokenBucket } from './rate-limiter.ts';

/** Lets pending promise callbacks run (they record the time they saw). */
async function flush() {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

/** A manual clock whose timers fire only when the test advances time. */
function manualClock() {
  let now = 0;
  let timers: { at: number; fire: () => void }[] = [];
  return {
    now: () => now,
    setTimeout: (fire: () => void, ms: number) => {
      timers.push({ at: now + ms, fire });
      return timers.length;
    },
    get armed() {
      return timers.length;
    },
    async advance(ms: number) {
      await flush();
      const until = now + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (next === undefined || next.at > until) break;
        timers = timers.slice(1);
        now = next.at;
        next.fire();
        await flush();
      }
      now = until;
      await flush();
    },
  };
}

function recorder(bucket: TokenBucket, clock: { now(): number }) {
  const done: { id: number; at: number }[] = [];
  const take = (id: number) => void bucket.take().then(() => done.push({ id, at: clock.now() }));
  return { done, take };
}

describe('TokenBucket', () => {
  it('grants the burst at once', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 10, burst: 3, ...clock });
    const r = recorder(bucket, clock);
    for (let i = 0; i < 3; i++) r.take(i);
    await clock.advance(0);
    expect(r.done).toEqual([
      { id: 0, at: 0 },
      { id: 1, at: 0 },
      { id: 2, at: 0 },
    ]);
    expect(clock.armed).toBe(0);
  });

  it('then grants one token per 1/qps seconds, in the order the calls were made', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 10, burst: 2, ...clock });
    const r = recorder(bucket, clock);
    for (let i = 0; i < 6; i++) r.take(i);
    expect(bucket.pending).toBe(4);
    await clock.advance(1000);
    expect(r.done).toEqual([
      { id: 0, at: 0 },
      { id: 1, at: 0 },
      { id: 2, at: 100 },
      { id: 3, at: 200 },
      { id: 4, at: 300 },
      { id: 5, at: 400 },
    ]);
    expect(bucket.pending).toBe(0);
  });

  it('does not let a newcomer overtake callers already waiting', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 2, burst: 1, ...clock });
    const r = recorder(bucket, clock);
    r.take(1);
    r.take(2);
    await clock.advance(499);
    r.take(3);
    await clock.advance(2000);
    expect(r.done.map((d) => d.id)).toEqual([1, 2, 3]);
    expect(r.done.map((d) => d.at)).toEqual([0, 500, 1000]);
  });

  it('refills while idle, but never beyond the burst', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 100, burst: 5, ...clock });
    const r = recorder(bucket, clock);
    for (let i = 0; i < 5; i++) r.take(i);
    await clock.advance(60_000);
    for (let i = 5; i < 12; i++) r.take(i);
    await clock.advance(0);
    expect(r.done.filter((d) => d.at === 60_000)).toHaveLength(5);
    await clock.advance(20);
    expect(r.done.map((d) => d.at).slice(10)).toEqual([60_010, 60_020]);
  });

  it('supports fractional rates', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 0.5, burst: 1, ...clock });
    const r = recorder(bucket, clock);
    r.take(1);
    r.take(2);
    await clock.advance(1999);
    expect(r.done).toHaveLength(1);
    await clock.advance(1);
    expect(r.done).toEqual([
      { id: 1, at: 0 },
      { id: 2, at: 2000 },
    ]);
  });

  it('keeps a single timer armed however many callers wait', async () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, ...clock });
    for (let i = 0; i < 50; i++) void bucket.take();
    expect(clock.armed).toBe(1);
  });

  it('rejects nonsensical settings', () => {
    expect(() => new TokenBucket({ qps: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new TokenBucket({ qps: Number.NaN, burst: 1 })).toThrow(RangeError);
    expect(() => new TokenBucket({ qps: 5, burst: 0 })).toThrow(RangeError);
  });
});

describe('PacedQueue', () => {
  function paced(capacity: number, burst = 1) {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 10, burst, ...clock });
    const started: { job: string; at: number }[] = [];
    const dropped: string[] = [];
    const queue = new PacedQueue<string>({
      bucket,
      capacity,
      run: async (job) => void started.push({ job, at: clock.now() }),
      onDrop: (job) => dropped.push(job),
    });
    return { clock, bucket, queue, started, dropped };
  }

  it('starts one job per token, in order', async () => {
    const q = paced(10);
    for (const job of ['a', 'b', 'c']) q.queue.push(job);
    await q.clock.advance(1000);
    expect(q.started).toEqual([
      { job: 'a', at: 0 },
      { job: 'b', at: 100 },
      { job: 'c', at: 200 },
    ]);
  });

  it('drops the oldest waiting job beyond its capacity, and waits on the bucket only once', async () => {
    const q = paced(2);
    for (const job of ['a', 'b', 'c', 'd', 'e']) q.queue.push(job);
    expect(q.queue.size).toBe(2);
    expect(q.dropped).toEqual(['a', 'b', 'c']);
    expect(q.bucket.pending).toBeLessThanOrEqual(1);
    await q.clock.advance(1000);
    expect(q.started.map((s) => s.job)).toEqual(['d', 'e']);
  });

  it('removes matching waiting jobs, and close() drops the rest and ignores later pushes', async () => {
    const q = paced(10);
    for (const job of ['a', 'x1', 'b', 'x2', 'c']) q.queue.push(job);
    expect(q.queue.remove((j) => j.startsWith('x'))).toBe(2);
    await q.clock.advance(150);
    expect(q.started.map((s) => s.job)).toEqual(['a', 'b']);
    expect(q.queue.close()).toBe(1);
    q.queue.push('d');
    await q.clock.advance(1000);
    await q.queue.settled();
    expect(q.started.map((s) => s.job)).toEqual(['a', 'b']);
  });

  it('settled() waits for the started jobs', async () => {
    const clock = manualClock();
    let finish: () => void = () => {};
    const queue = new PacedQueue<string>({
      bucket: new TokenBucket({ qps: 10, burst: 1, ...clock }),
      capacity: 5,
      run: () =>
        new Promise<void>((r) => {
          finish = r;
        }),
    });
    queue.push('a');
    let settled = false;
    void queue.settled().then(() => {
      settled = true;
    });
    await clock.advance(0);
    expect(settled).toBe(false);
    finish();
    await clock.advance(0);
    expect(settled).toBe(true);
  });

  /** A queue whose jobs wait 30 ms after their push, on a 100 qps bucket. */
  function delayed(capacity: number, burst: number) {
    const clock = manualClock();
    const started: { job: string; at: number }[] = [];
    const queue = new PacedQueue<string>({
      bucket: new TokenBucket({ qps: 100, burst, ...clock }),
      capacity,
      delayMs: 30,
      ...clock,
      run: async (job) => void started.push({ job, at: clock.now() }),
    });
    return { clock, queue, started };
  }

  it('starts each job no sooner than delayMs after its push, then one per token', async () => {
    const { clock, queue, started } = delayed(10, 2);
    queue.push('a');
    queue.push('b');
    await clock.advance(20);
    queue.push('c');
    await clock.advance(9);
    expect(started).toEqual([]);
    await clock.advance(1);
    // a and b are due at 30 with a token each; c is due at 50 and the bucket has refilled.
    expect(started).toEqual([
      { job: 'a', at: 30 },
      { job: 'b', at: 30 },
    ]);
    await clock.advance(100);
    expect(started).toEqual([
      { job: 'a', at: 30 },
      { job: 'b', at: 30 },
      { job: 'c', at: 50 },
    ]);
  });

  it("keeps a removed or dropped job from starting, and waits for the next one's own time", async () => {
    const { clock, queue, started } = delayed(2, 5);
    queue.push('x');
    await clock.advance(10);
    queue.push('a');
    await clock.advance(10);
    queue.push('b'); // full: drops x
    expect(queue.remove((j) => j === 'a')).toBe(1);
    await clock.advance(100);
    expect(started).toEqual([{ job: 'b', at: 50 }]);
    expect(queue.size).toBe(0);
  });

  it('holds a job that became first while the queue waited at the gate until its own time', async () => {
    const clock = manualClock();
    const started: { job: string; at: number }[] = [];
    let open: () => void = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    const queue = new PacedQueue<string>({
      bucket: new TokenBucket({ qps: 100, burst: 5, ...clock }),
      capacity: 10,
      delayMs: 30,
      gate: { whenOpen: () => opened },
      ...clock,
      run: async (job) => void started.push({ job, at: clock.now() }),
    });
    queue.push('a');
    await clock.advance(30); // a is due; the queue now waits at the closed gate
    expect(queue.remove((j) => j === 'a')).toBe(1);
    await clock.advance(5);
    queue.push('b'); // due at 65
    await clock.advance(5);
    open();
    await clock.advance(10);
    expect(started).toEqual([]);
    await clock.advance(50);
    expect(started).toEqual([{ job: 'b', at: 65 }]);
  });

  it('rejects a negative delay', () => {
    const bucket = new TokenBucket({ qps: 1, burst: 1 });
    expect(() => new PacedQueue({ bucket, capacity: 1, delayMs: -1, run: async () => {} })).toThrow(
      RangeError,
    );
  });

  it('rejects a capacity below one', () => {
    const bucket = new TokenBucket({ qps: 1, burst: 1 });
    expect(() => new PacedQueue({ bucket, capacity: 0, run: async () => {} })).toThrow(RangeError);
  });
});
