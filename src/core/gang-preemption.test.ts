// Gang preemption in the core: victims across nodes only when the whole group then fits, groups taken whole, budgets, refusals.
import { describe, expect, it } from 'vitest';
import {
  gangBudget,
  gangCore,
  gangGroup,
  gangNode,
  gangPod,
} from '../../test/support/gang-core.ts';
import type { PodObject } from '../model/objects.ts';
import { defaultConfig } from './config.ts';

const high = 100;
const low = 10;

/** Three 1-cpu nodes, each full with a bound low-priority pod, and a group `train` of `size`. */
function fullCluster(size: number, opts: { lowPriority?: number } = {}) {
  const h = gangCore().events(
    gangNode('n1'),
    gangNode('n2'),
    gangNode('n3'),
    gangGroup('train', size),
  );
  const priority = opts.lowPriority ?? low;
  h.pods(
    gangPod('low-1', { node: 'n1', priority }),
    gangPod('low-2', { node: 'n2', priority }),
    gangPod('low-3', { node: 'n3', priority }),
  );
  for (let i = 0; i < size; i++)
    h.pods(gangPod(`train-${i}`, { group: 'train', priority: high, created: i }));
  return h.drain();
}

/**
 * Three 1-cpu nodes: `third` bound on n3, a low-priority group `old` placed by berth on n1
 * and n2; then a one-member high-priority group `train` arrives.
 */
function oldGroupAnd(third: PodObject) {
  const h = gangCore().events(gangNode('n1'), gangNode('n2'), gangNode('n3'), gangGroup('old', 2));
  h.pods(third);
  h.pods(
    gangPod('old-0', { group: 'old', priority: low }),
    gangPod('old-1', { group: 'old', priority: low }),
  );
  h.drain().confirmBinds();
  h.events(gangGroup('train', 1)).pods(gangPod('train-0', { group: 'train', priority: high }));
  return h.drain();
}

describe('gang preemption', () => {
  it('evicts the fewest lower-priority pods across nodes, nominates every member, and binds the group once they are gone', () => {
    const h = fullCluster(2);
    expect(h.keys('PodReserved')).toEqual([]);
    expect(h.keys('PodNominated').sort()).toEqual(['default/train-0', 'default/train-1']);
    expect(h.victims()).toHaveLength(2);
    const victimNodes = h.evictions.map((e) => e.node).sort();
    const nominated = h.decisions.flatMap((d) => (d.type === 'PodNominated' ? [d.node] : []));
    expect(nominated.sort()).toEqual(victimNodes);
    expect(h.messages.get('default/train-0')).toMatch(
      /^pod group default\/train: 0 of 2 members fit; .* preemption: found a placement for the pod group, preempting 2 victims$/,
    );
    // Nothing is placed while one victim is still there.
    const first = h.evictions[0]?.victim.key;
    h.evict(undefined, (e) => e.victim.key === first)
      .later(20_000)
      .drain();
    expect(h.keys('PodReserved')).toEqual([]);
    h.evict().later(20_000).drain();
    expect(h.keys('PodReserved').sort()).toEqual(['default/train-0', 'default/train-1']);
    h.confirmBinds();
    const placed = h.placements();
    expect([placed.get('default/train-0'), placed.get('default/train-1')].sort()).toEqual(
      victimNodes,
    );
    expect(h.broken).toEqual([]);
  });

  it('never evicts a pod of equal priority: the group waits, as before', () => {
    const h = fullCluster(2, { lowPriority: high });
    expect(h.victims()).toEqual([]);
    expect(h.keys('PodNominated')).toEqual([]);
    expect(h.messages.get('default/train-0')).toBe(
      'pod group default/train: 0 of 2 members fit; 0/3 nodes are available for default/train-0: 3 Insufficient cpu.',
    );
  });

  it('never evicts for a group that could not fit even with every lower-priority pod gone', () => {
    const h = fullCluster(4);
    expect(h.victims()).toEqual([]);
    expect(h.keys('PodNominated')).toEqual([]);
    expect(h.messages.get('default/train-3')).toBe(
      'pod group default/train: 0 of 4 members fit; 0/3 nodes are available for default/train-0: 3 Insufficient cpu. preemption: the group does not fit even with all 3 lower-priority victim(s) gone',
    );
  });

  it('does not preempt when its members say preemptionPolicy Never', () => {
    const h = gangCore().events(gangNode('n1'), gangGroup('train', 1));
    h.pods(gangPod('low-1', { node: 'n1', priority: low }));
    h.pods(gangPod('train-0', { group: 'train', priority: high, never: true })).drain();
    expect(h.victims()).toEqual([]);
    expect(h.messages.get('default/train-0')).toMatch(
      /preemption: not eligible due to preemptionPolicy=Never\.$/,
    );
  });

  it('does not preempt when gang preemption is off (a log recorded before it replays so)', () => {
    const config = { ...defaultConfig, gangs: { scheduleTimeoutMs: 60_000 } };
    const h = gangCore(config).events(gangNode('n1'), gangGroup('train', 1));
    h.pods(gangPod('low-1', { node: 'n1', priority: low }));
    h.pods(gangPod('train-0', { group: 'train', priority: high })).drain();
    expect(h.victims()).toEqual([]);
    expect(h.keys('PodNominated')).toEqual([]);
  });

  it('takes a lower-priority group whole, even when one of its nodes would do', () => {
    // n3 is taken by a pod the group may not evict.
    const h = oldGroupAnd(gangPod('vip', { node: 'n3', priority: 1_000 }));
    expect(h.victims()).toEqual(['default/old-0', 'default/old-1']);
    h.evict().later(20_000).drain();
    expect(h.keys('PodReserved').filter((k) => k.startsWith('default/train'))).toEqual([
      'default/train-0',
    ]);
    expect(h.broken).toEqual([]);
  });

  it('spares a whole group when one single lower-priority pod is enough', () => {
    const h = oldGroupAnd(gangPod('single', { node: 'n3', priority: low }));
    expect(h.victims()).toEqual(['default/single']);
  });

  it('evicts lower-priority pods before higher ones, and a group member only at its group priority', () => {
    const h = gangCore().events(gangNode('n1'), gangNode('n2'), gangGroup('train', 1));
    h.pods(
      gangPod('mid', { node: 'n1', priority: 50 }),
      gangPod('lowest', { node: 'n2', priority: 1 }),
    );
    h.pods(gangPod('train-0', { group: 'train', priority: high })).drain();
    expect(h.victims()).toEqual(['default/lowest']);
  });

  it('respects PodDisruptionBudgets: a pod whose eviction would break one is spared when another will do', () => {
    const h = gangCore().events(
      gangNode('n1'),
      gangNode('n2'),
      gangBudget('web', 0),
      gangGroup('train', 1),
    );
    // The budgeted pod has the lower priority: without the budget it would be the victim.
    h.pods(
      gangPod('web-0', { node: 'n1', priority: 1, app: 'web' }),
      gangPod('batch', { node: 'n2', priority: low }),
    );
    h.pods(gangPod('train-0', { group: 'train', priority: high })).drain();
    expect(h.victims()).toEqual(['default/batch']);
  });

  it('a refused eviction sends every member back to be planned again whole', () => {
    const h = fullCluster(2);
    expect(h.victims()).toHaveLength(2);
    h.evict((e) => (e.victim.key === 'default/low-2' ? '429 TooManyRequests: PDB' : undefined));
    for (const m of ['train-0', 'train-1'])
      expect(h.core.machineState(`${m}-uid`)).not.toBe('preempting');
    expect(
      [...h.messages.values()].some((m) =>
        m.startsWith('preemption failed: evicting default/low-2'),
      ),
    ).toBe(true);
    // Retried whole: the pod still there is chosen again, nothing is half placed.
    h.later(20_000).drain();
    expect(h.keys('PodReserved')).toEqual([]);
    expect(h.broken).toEqual([]);
  });
});
