// Preemption end to end on the simulated cluster: victims evicted, the preemptor bound, the log replayed.
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/core/config.ts';
import { parseLog } from '../../src/events/reader.ts';
import type { DecisionEvent, Envelope } from '../../src/events/types.ts';
import type { PodObject } from '../../src/model/objects.ts';
import { replay } from '../../src/runtime/replay.ts';
import { simulate } from '../../src/runtime/simulate.ts';
import { nodeObject, podObject } from '../support/objects.ts';

function pod(
  name: string,
  cpu: string,
  priority: number,
  o: { nodeName?: string } = {},
): PodObject {
  const p = podObject(name, { requests: { cpu }, priority, schedulerName: 'berth', ...o });
  p.metadata.uid = `uid-${name}`;
  if (o.nodeName !== undefined) p.status = { phase: 'Running' };
  return p;
}

function run(pods: PodObject[], script: { at: number; createPod: PodObject }[] = []) {
  const lines: string[] = [];
  const decisions: DecisionEvent[] = [];
  const summary = simulate({
    nodes: [nodeObject('n1'), nodeObject('n2')],
    pods,
    seed: 7,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    script,
    record: (line) => {
      lines.push(line);
      const parsed = JSON.parse(line) as Partial<Envelope>;
      const e = parsed.event;
      if (
        e !== undefined &&
        ['PodNominated', 'VictimPreempted', 'NominationCleared'].includes(e.type)
      )
        decisions.push(e as DecisionEvent);
    },
  });
  return { summary, decisions, log: `${lines.join('\n')}\n` };
}

describe('preemption on the simulated cluster', () => {
  // n1: four 900m pods of priority 1 (3.6 of 4 cpu); n2: four of priority 5.
  const residents = [
    ...[0, 1, 2, 3].map((i) => pod(`low-${i}`, '900m', 1, { nodeName: 'n1' })),
    ...[0, 1, 2, 3].map((i) => pod(`mid-${i}`, '900m', 5, { nodeName: 'n2' })),
  ];
  const { summary, decisions, log } = run(residents, [{ at: 1000, createPod: pod('hi', '3', 10) }]);

  it('evicts three of the lowest-priority pods and binds the preemptor to their node', () => {
    const nominated = decisions.filter((d) => d.type === 'PodNominated');
    expect(nominated).toMatchObject([{ key: 'default/hi', node: 'n1' }]);
    const victims = decisions.flatMap((d) => (d.type === 'VictimPreempted' ? [d.victim.key] : []));
    expect(victims).toHaveLength(3);
    for (const v of victims) expect(v).toMatch(/^default\/low-/);
    expect(summary.placements['default/hi']).toBe('n1');
    expect(summary.pending['default/hi']).toBeUndefined();
  });

  it('names the message of the failed cycle on the nomination, without the PostFilter part', () => {
    const n = decisions.find((d) => d.type === 'PodNominated');
    expect(n?.type === 'PodNominated' && n.message).toBe(
      '0/2 nodes are available: 2 Insufficient cpu.',
    );
  });

  it('replays the recorded log to the same decisions, preemption included', () => {
    const r = replay(parseLog(log));
    expect(r.matches).toBe(true);
    expect(r.summary.placements['default/hi']).toBe('n1');
  });

  it('leaves a preemptionPolicy Never pod pending with kube’s message', () => {
    const never = pod('never', '3', 10);
    (never.spec as Record<string, unknown>).preemptionPolicy = 'Never';
    const r = run(residents, [{ at: 1000, createPod: never }]);
    expect(r.decisions).toEqual([]);
    expect(r.summary.pending['default/never']).toBe(
      '0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.',
    );
  });
});
