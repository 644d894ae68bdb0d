// The bench's decision window opens at the start of the cycle that holds the first measured decision, whatever ran before it.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { decisionWindow } from '../../bench/support/decision-window.ts';
import type { Envelope } from '../../src/events/types.ts';

/** Keeps the main thread busy for `ms` (the window measures wall and CPU time). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

const reserved = (uid: string) =>
  ({
    seq: 1,
    event: { type: 'PodReserved', uid, key: `ns/${uid}`, node: 'n1' },
  }) as unknown as Envelope;

describe('the decision window', () => {
  it('leaves out the set-up before the first cycle that decides a measured pod', () => {
    const window = decisionWindow();
    busy(200); // set-up: nodes, objects, pods
    const started = performance.now();
    busy(2);
    window.inspect('before', reserved('a'));
    busy(2);
    window.inspect('before', reserved('b'));
    window.cycles.push(performance.now() - started);
    // Two pods in ~4 ms (~500 pods/s); with the set-up counted it would be under 10. The
    // margin leaves room for a loaded machine stretching the 4 ms.
    expect(window.counts()).toEqual({ scheduled: 2, unschedulable: 0 });
    expect(window.podsPerSecond()).toBeGreaterThan(20);
    expect(window.podsPerCpuSecond()).toBeGreaterThan(20);
  });

  it('ignores pods it does not measure, and counts each pod once', () => {
    const window = decisionWindow((key) => key !== 'ns/x');
    const started = performance.now();
    window.inspect('before', reserved('x'));
    window.inspect('before', reserved('a'));
    window.inspect('before', reserved('a'));
    window.cycles.push(performance.now() - started);
    expect(window.counts()).toEqual({ scheduled: 1, unschedulable: 0 });
  });
});
