// Gang preemption for a topology-constrained group: victims inside the one rack chosen with every victim gone, never spread, never in vain.
import { describe, expect, it } from 'vitest';
import { type GangCore, gangCore, gangGroup, gangPod } from '../../test/support/gang-core.ts';
import { coreMember, corePodGroup, labelledNode } from '../../test/support/gang-harness.ts';

const rack = 'topology.kubernetes.io/rack';
const high = 100;
const low = 10;
const vip = 1_000;

/** Node `name` of `cpu` in rack `r`. */
const rackNode = (name: string, r: string, cpu = '1') => labelledNode(name, cpu, { [rack]: r });

/** Racks a and b of two 1-cpu nodes each (a1, a2, b1, b2). */
const twoRacks = () =>
  gangCore().events(
    rackNode('a1', 'rack-a'),
    rackNode('a2', 'rack-a'),
    rackNode('b1', 'rack-b'),
    rackNode('b2', 'rack-b'),
  );

/** A pod of `priority` and `cpu` bound on `node`. */
const running = (name: string, node: string, priority: number, cpu = '1') =>
  gangPod(name, { node, priority, cpu });

/** Core PodGroup `train` (priority 100, one rack) of `size` members of `cpu` each, added to `h`. */
function train(h: GangCore, size: number, cpu = '1'): GangCore {
  h.events(
    corePodGroup('train', {
      schedulingPolicy: { gang: { minCount: size } },
      priority: high,
      schedulingConstraints: { topology: [{ key: rack }] },
    }),
  );
  for (let i = 0; i < size; i++)
    h.pods(coreMember(`train-${i}`, 'train', { priority: high, cpu, created: i }));
  return h.drain();
}

/** Where each member of `train` is bound or reserved, sorted by member. */
const trainNodes = (h: GangCore) =>
  [...h.placements()]
    .filter(([k]) => k.startsWith('default/train-'))
    .sort()
    .map(([, n]) => n);

const lastCondition = (h: GangCore) =>
  h.groups.filter((g) => g.initiallyScheduled !== undefined).at(-1)?.initiallyScheduled;

describe('gang preemption for a topology-constrained group', () => {
  it('evicts inside one rack only, where the group then fits, though one victim per rack would have spread it', () => {
    // Each rack has one free node and one taken by a low-priority pod: two members fit in
    // the cluster as it is, but not in one rack.
    const h = twoRacks();
    h.pods(running('low-a2', 'a2', low), running('low-b2', 'b2', low));
    train(h, 2);
    // With every victim gone both racks hold it equally: the first by its label value.
    expect(h.victims()).toEqual(['default/low-a2']);
    const nominated = h.decisions.flatMap((d) => (d.type === 'PodNominated' ? [d.node] : []));
    expect(nominated.sort()).toEqual(['a1', 'a2']);
    expect(lastCondition(h)).toEqual({
      status: 'False',
      reason: 'Unschedulable',
      message:
        'pod group is unschedulable, 0/2 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group preemption: found a placement for podgroup, preempting 1 victims',
      observedGeneration: 3,
    });
    h.evict().later(20_000).drain().confirmBinds();
    expect(trainNodes(h).sort()).toEqual(['a1', 'a2']);
    expect(lastCondition(h)?.status).toBe('True');
    expect(h.placements().get('default/low-b2')).toBe('b2');
    expect(h.broken).toEqual([]);
  });

  it('passes over the tightest rack when evicting there would not suffice, and takes another', () => {
    // rack-a: 6 cpu, 4 free with its low pod gone — the tightest by sum — but no node of it
    // then has 2 cpu for the second member (a vip holds 2 of a1's 3). rack-b: three full nodes.
    const h = gangCore().events(
      rackNode('a1', 'rack-a', '3'),
      rackNode('a2', 'rack-a', '3'),
      rackNode('b1', 'rack-b', '2'),
      rackNode('b2', 'rack-b', '2'),
      rackNode('b3', 'rack-b', '2'),
    );
    h.pods(
      running('vip-a1', 'a1', vip, '2'),
      running('low-a2', 'a2', low, '2'),
      running('low-b1', 'b1', low, '2'),
      running('low-b2', 'b2', 5, '2'),
      running('low-b3', 'b3', low, '2'),
    );
    train(h, 2, '2');
    // Two of rack-b's three, the lowest priority first; rack-a's low pod is spared.
    expect(h.victims()).toHaveLength(2);
    expect(h.victims()).toContain('default/low-b2');
    expect(h.victims()).not.toContain('default/low-a2');
    h.evict().later(20_000).drain().confirmBinds();
    expect(trainNodes(h).every((n) => n.startsWith('b'))).toBe(true);
    expect(h.broken).toEqual([]);
  });

  it('binds the group in the rack its victims left, though the eviction of a group taken whole made another rack as tight', () => {
    // Group `old` (priority 1, taken whole) has a member in each rack. With every victim gone
    // rack-b (4 cpu) is tighter than rack-a (5): rack-b is planned, which needs one of b1's
    // pods and `old` gone — and `old` going frees a slot in rack-a, which then holds the
    // group exactly as tightly as rack-b does.
    const h = gangCore().events(
      rackNode('a0', 'rack-a', '2'),
      rackNode('a1', 'rack-a', '2'),
      rackNode('a2', 'rack-a'),
      rackNode('b0', 'rack-b', '2'),
      rackNode('b1', 'rack-b', '2'),
      gangGroup('old', 2),
    );
    h.pods(
      gangPod('old-1', { group: 'old', node: 'a0', priority: 1 }),
      running('low-d', 'a0', 5),
      running('low-c', 'a1', 5),
      gangPod('old-0', { group: 'old', node: 'b0', priority: 1 }),
      running('low-a', 'b1', 5),
      running('low-b', 'b1', 5),
    );
    train(h, 3);
    const victims = h.victims();
    expect(victims.filter((v) => v.startsWith('default/old-'))).toEqual([
      'default/old-0',
      'default/old-1',
    ]);
    expect(victims.filter((v) => v.startsWith('default/low-'))).toHaveLength(1);
    h.evict().later(20_000).drain().confirmBinds();
    expect(trainNodes(h).every((n) => n.startsWith('b'))).toBe(true);
    expect(trainNodes(h)).toHaveLength(3);
    expect(h.broken).toEqual([]);
  });

  it('evicts nothing when no rack holds the group even with every lower-priority pod gone', () => {
    // Evicting both low pods would make room for two members, one in each rack.
    const h = twoRacks();
    h.pods(
      running('low-a1', 'a1', low),
      running('vip-a2', 'a2', vip),
      running('vip-b1', 'b1', vip),
      running('low-b2', 'b2', low),
    );
    train(h, 2);
    expect(h.victims()).toEqual([]);
    expect(h.keys('PodNominated')).toEqual([]);
    expect(h.messages.get('default/train-0')).toMatch(
      / preemption: the group does not fit even with all 2 lower-priority victim\(s\) gone$/,
    );
    // With the victims gone one member fits in either rack, not two: kube's words for that.
    expect(lastCondition(h)?.message).toBe(
      'pod group is unschedulable, 0/2 placements are available, first placement status: minCount (2) cannot be satisfied: 0 scheduled, 1 remaining, pod group preemption: pod group is unschedulable, 0/2 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining',
    );
    h.later(20_000).drain();
    expect(h.victims()).toEqual([]);
    expect(trainNodes(h)).toEqual([]);
  });

  it('says no victims in kube’s words when every pod is of the group’s priority or higher', () => {
    const h = gangCore().events(rackNode('a1', 'rack-a'), rackNode('a2', 'rack-a'));
    h.pods(running('vip-a1', 'a1', vip), running('vip-a2', 'a2', high));
    train(h, 2);
    expect(h.victims()).toEqual([]);
    expect(lastCondition(h)?.message).toBe(
      'pod group is unschedulable, 0/1 placements are available, first placement status: minCount (2) cannot be satisfied: 0 scheduled, 1 remaining, pod group preemption: No preemption victims found for incoming preemptor',
    );
  });
});
