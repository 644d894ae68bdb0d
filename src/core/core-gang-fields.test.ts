// Gang scheduling of core PodGroups by their own fields: schedulingConstraints.topology, priority, preemptionPolicy, disruptionMode.
import { describe, expect, it } from 'vitest';
import {
  coreMember,
  corePodGroup,
  given,
  labelledNode,
  node,
} from '../../test/support/gang-harness.ts';
import type { DecisionEvent } from '../events/types.ts';

const rack = 'topology.kubernetes.io/rack';
const key = 'default/train (scheduling.k8s.io)';
const gang = (minCount: number) => ({ gang: { minCount } });
const inRacks = (spec: Record<string, unknown> = {}) => ({
  schedulingPolicy: gang(3),
  schedulingConstraints: { topology: [{ key: rack }] },
  ...spec,
});

/** Where each reserved member went, by pod key. */
function placements(decisions: readonly DecisionEvent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of decisions) if (d.type === 'PodReserved') out[d.key] = d.node;
  return out;
}

describe('core PodGroup schedulingConstraints.topology', () => {
  it('places every member inside the one rack that holds them all, though the cluster has room elsewhere', () => {
    const h = given().events(
      labelledNode('a1', '2', { [rack]: 'a' }),
      labelledNode('a2', '0', { [rack]: 'a' }),
      labelledNode('b1', '1', { [rack]: 'b' }),
      labelledNode('b2', '2', { [rack]: 'b' }),
      corePodGroup('train', inRacks()),
    );
    for (let i = 0; i < 3; i++) h.pods(coreMember(`w${i}`, 'train', { created: i }));
    h.drain();
    expect(Object.values(placements(h.decisions)).sort()).toEqual(['b1', 'b2', 'b2']);
    expect(h.effects.groups.at(-1)?.initiallyScheduled?.status).toBe('True');
    expect(h.broken).toEqual([]);
  });

  it('chooses the tightest rack of two that hold the group', () => {
    const h = given().events(
      labelledNode('a1', '8', { [rack]: 'a' }),
      labelledNode('b1', '4', { [rack]: 'b' }),
      corePodGroup('train', inRacks()),
    );
    for (let i = 0; i < 3; i++) h.pods(coreMember(`w${i}`, 'train', { created: i }));
    h.drain();
    expect(Object.values(placements(h.decisions))).toEqual(['b1', 'b1', 'b1']);
  });

  it('places none when no rack holds the group, though the cluster does, and says why', () => {
    const h = given().events(
      labelledNode('a1', '2', { [rack]: 'a' }),
      labelledNode('b1', '2', { [rack]: 'b' }),
      corePodGroup('train', inRacks()),
    );
    for (let i = 0; i < 3; i++) h.pods(coreMember(`w${i}`, 'train', { created: i }));
    h.drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      `pod group ${key}: no domain of ${rack} holds all 3 members: 0 of 2 domains tried, 2 too small by summed free capacity`,
    );
  });

  it('keeps members beyond minCount inside the rack of those placed', () => {
    const h = given().events(
      labelledNode('a1', '2', { [rack]: 'a' }),
      labelledNode('b1', '3', { [rack]: 'b' }),
      corePodGroup('train', { ...inRacks(), schedulingPolicy: gang(2) }),
    );
    for (let i = 0; i < 4; i++) h.pods(coreMember(`w${i}`, 'train', { created: i }));
    h.drain();
    const where = placements(h.decisions);
    expect(new Set(Object.values(where))).toEqual(new Set(['a1']));
    expect(Object.keys(where)).toHaveLength(2);
  });

  it('refuses a PodGroup whose topology key is no label key, saying so, and places nothing', () => {
    const h = given().events(
      node('n1', '4'),
      corePodGroup('train', {
        schedulingPolicy: gang(1),
        schedulingConstraints: { topology: [{ key: 'bad key' }] },
      }),
    );
    h.pods(coreMember('w0', 'train')).drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      `pod group ${key}: PodGroup default/train (scheduling.k8s.io/v1beta1) is invalid: spec.schedulingConstraints.topology[0].key "bad key" is not a node label key`,
    );
  });
});
