// Tests the token bucket with an injected clock and timer.
import { describe, expect, it } from 'vitest';
import { TokenBucket } from './rate-limiter.ts';

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
