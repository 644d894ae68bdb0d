// Tests VirtualTimers: pod timers keyed by (uid, timer), re-arming replaces, the flush never keeps a run alive.
import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../events/types.ts';
import { VirtualClock, VirtualTimers } from './virtual-clock.ts';

function setup() {
  const clock = new VirtualClock();
  const fired: { at: number; event: InputEvent }[] = [];
  const timers = new VirtualTimers(clock, (event) => fired.push({ at: clock.now(), event }));
  const runAll = () => {
    while (clock.advance());
  };
  return { clock, fired, timers, runAll };
}

const pod = { uid: 'u1', key: 'ns/p' };

describe('VirtualTimers', () => {
  it('fires an armed pod timer as TimerFired at its deadline', () => {
    const t = setup();
    t.timers.execute({ kind: 'armPodTimer', pod, timer: 'backoff', deadline: 1500 });
    t.runAll();
    expect(t.fired).toEqual([
      { at: 1500, event: { type: 'TimerFired', timer: 'backoff', uid: 'u1', key: 'ns/p' } },
    ]);
  });

  it('arming the same (pod, timer) again replaces the earlier deadline; another timer id does not', () => {
    const t = setup();
    t.timers.execute({ kind: 'armPodTimer', pod, timer: 'backoff', deadline: 1000 });
    t.timers.execute({ kind: 'armPodTimer', pod, timer: 'permit', deadline: 1200 });
    t.timers.execute({ kind: 'armPodTimer', pod, timer: 'backoff', deadline: 3000 });
    t.runAll();
    expect(t.fired.map((f) => [f.at, (f.event as { timer: string }).timer])).toEqual([
      [1200, 'permit'],
      [3000, 'backoff'],
    ]);
  });

  it('a disarmed pod timer never fires, and disarming an unarmed one is harmless', () => {
    const t = setup();
    t.timers.execute({ kind: 'armPodTimer', pod, timer: 'backoff', deadline: 1000 });
    t.timers.execute({ kind: 'disarmPodTimer', uid: 'u1', timer: 'backoff' });
    t.timers.execute({ kind: 'disarmPodTimer', uid: 'u2', timer: 'backoff' });
    t.runAll();
    expect(t.fired).toEqual([]);
    expect(t.clock.hasForegroundTimers()).toBe(false);
  });

  it('the flush is a background timer: it fires only while foreground work keeps time moving', () => {
    const t = setup();
    t.timers.execute({ kind: 'armFlushTimer', deadline: 500 });
    expect(t.clock.hasForegroundTimers()).toBe(false);
    expect(t.clock.advance()).toBe(false);
    t.timers.execute({ kind: 'armPodTimer', pod, timer: 'backoff', deadline: 800 });
    t.runAll();
    expect(t.fired.map((f) => [f.at, (f.event as { timer: string }).timer])).toEqual([
      [500, 'flush'],
      [800, 'backoff'],
    ]);
  });
});
