// Tests the reflector's Backoff (jittered doubling, capped, reset) and TimerSlot (one pending timer).
import { describe, expect, it, vi } from 'vitest';
import { Backoff, TimerSlot } from './reflector-timers.ts';

describe('Backoff', () => {
  it('doubles from initialMs up to maxMs, jittered ±25 %, and starts over on reset', () => {
    const mid = new Backoff(800, 3000, () => 0.5);
    expect([mid.next(), mid.next(), mid.next(), mid.next()]).toEqual([800, 1600, 3000, 3000]);
    mid.reset();
    expect(mid.next()).toBe(800);
    expect(new Backoff(800, 3000, () => 0).next()).toBe(600);
    expect(new Backoff(800, 3000, () => 1).next()).toBe(1000);
  });
});

describe('TimerSlot', () => {
  it('keeps one pending timer: setting again replaces it, clear cancels it', () => {
    vi.useFakeTimers();
    try {
      const slot = new TimerSlot({ setTimeout, clearTimeout });
      const fired: string[] = [];
      slot.set(100, () => fired.push('first'));
      slot.set(200, () => fired.push('second'));
      vi.advanceTimersByTime(150);
      expect(fired).toEqual([]);
      vi.advanceTimersByTime(100);
      expect(fired).toEqual(['second']);
      slot.set(100, () => fired.push('third'));
      slot.clear();
      vi.advanceTimersByTime(1000);
      expect(fired).toEqual(['second']);
    } finally {
      vi.useRealTimers();
    }
  });
});
