// Tests how a batch of decisions becomes kube's preemption attempts and victims per nomination.
import { describe, expect, it } from 'vitest';
import type { DecisionEvent, Envelope } from '../../events/types.ts';
import { preemptionCounts } from './preemption-counts.ts';

const batch = (events: DecisionEvent[]): Envelope<DecisionEvent>[] =>
  events.map((event, i) => ({ seq: i + 1, time: 0, event }));
const ref = (name: string, attempt = 1) => ({ uid: `uid-${name}`, key: `ns/${name}`, attempt });
const victim = (name: string) => ({ uid: `uid-${name}`, key: `ns/${name}` });

describe('preemptionCounts', () => {
  it('counts the victims of the same uid and attempt for each nomination', () => {
    expect(
      preemptionCounts(
        batch([
          { type: 'PodNominated', ...ref('a'), node: 'n1', message: 'm' },
          { type: 'VictimPreempted', ...ref('a'), node: 'n1', victim: victim('x') },
          { type: 'VictimPreempted', ...ref('a', 2), node: 'n1', victim: victim('y') },
          { type: 'VictimPreempted', ...ref('b'), node: 'n1', victim: victim('z') },
          { type: 'PodNominated', ...ref('b'), node: 'n2', message: 'm' },
          { type: 'VictimPreempted', ...ref('a'), node: 'n1', victim: victim('w') },
        ]),
      ),
    ).toEqual({ attempts: 2, victims: [2, 1] });
  });

  it('observes a nomination without victims as 0', () => {
    expect(
      preemptionCounts(batch([{ type: 'PodNominated', ...ref('a'), node: 'n1', message: 'm' }])),
    ).toEqual({
      attempts: 1,
      victims: [0],
    });
  });

  it('counts an unschedulable attempt only when PostFilter ran', () => {
    expect(
      preemptionCounts(
        batch([
          {
            type: 'PodUnschedulable',
            ...ref('a'),
            message:
              '0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
          },
          {
            type: 'PodUnschedulable',
            ...ref('b'),
            message: '0/1 nodes are available: 1 Too many pods.',
          },
          { type: 'PodReserved', ...ref('c'), node: 'n1' },
        ]),
      ),
    ).toEqual({ attempts: 1, victims: [] });
  });

  it('finds nothing in an empty batch', () => {
    expect(preemptionCounts([])).toEqual({ attempts: 0, victims: [] });
  });
});
