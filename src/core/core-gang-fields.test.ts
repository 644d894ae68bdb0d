// Gang scheduling of core PodGroups by their own fields: schedulingConstraints.topology, priority, preemptionPolicy, disruptionMode.
import { describe, expect, it } from 'vitest';
import { gangCore, gangNode, gangPod } from '../../test/support/gang-core.ts';
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

describe('core PodGroup priority and preemptionPolicy', () => {
  const low = (name: string, on: string) => gangPod(name, { node: on, priority: 10 });

  it.each([
    {
      name: 'a member whose priority is not the PodGroup’s',
      spec: { priority: 100 },
      pods: [{ priority: 100 }, { priority: 50 }],
      message:
        "all pods in a single pod group should have the same priority as the pod group's priority, got 50 and 100",
    },
    {
      name: 'members whose priority is set while the PodGroup’s is not (0)',
      spec: {},
      pods: [{ priority: 100 }, { priority: 100 }],
      message:
        "all pods in a single pod group should have the same priority as the pod group's priority, got 100 and 0",
    },
    {
      name: 'members of two preemption policies (the PodGroup names none)',
      spec: { priority: 100 },
      pods: [{ priority: 100 }, { priority: 100, never: true }],
      message:
        'all pods in a single pod group should have the same preemption policy, got Never and PreemptLowerPriority',
    },
    {
      name: 'a member whose policy is not the PodGroup’s preemptionPolicy',
      spec: { priority: 100, preemptionPolicy: 'Never' },
      pods: [{ priority: 100, never: true }, { priority: 100 }],
      message:
        "all pods in a single pod group should have the same preemption policy as the pod group's preemption policy, got PreemptLowerPriority and Never",
    },
  ])('refuses $name with kube’s SchedulerError, placing none', ({ spec, pods, message }) => {
    const h = given().events(
      node('n1', '4'),
      corePodGroup('train', { schedulingPolicy: gang(2), ...spec }),
    );
    h.pods(...pods.map((o, i) => coreMember(`w${i}`, 'train', { ...o, created: i })));
    h.drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/w0')).toBe(`pod group ${key}: ${message}`);
    expect(h.effects.groups.at(-1)?.initiallyScheduled).toEqual({
      status: 'False',
      reason: 'SchedulerError',
      message,
      observedGeneration: 3,
    });
  });

  it('preempts at the PodGroup’s priority, and not at all when its preemptionPolicy is Never', () => {
    for (const policy of ['PreemptLowerPriority', 'Never'] as const) {
      const h = gangCore().events(
        gangNode('n1'),
        corePodGroup('train', {
          schedulingPolicy: gang(1),
          priority: 100,
          preemptionPolicy: policy,
        }),
      );
      h.pods(low('low-1', 'n1'));
      const never = policy === 'Never';
      h.pods(coreMember('w0', 'train', { priority: 100, never })).drain();
      expect(h.victims()).toEqual(never ? [] : ['default/low-1']);
      // The member that did not fit has its own reason, as kube writes it; the PodGroup's
      // condition says it is not eligible (core-gangs.test.ts).
      if (never) expect(h.messages.get('default/w0')).toMatch(/^0\/1 nodes are available: /);
    }
  });
});

describe('core PodGroup disruptionMode, when the group is a preemption victim', () => {
  /**
   * Three 1-cpu nodes, a priority-10 core group `old` of two placed on two of them; then a
   * priority-100 core group `train` of two arrives: the free node and one more are needed.
   */
  function oldGroup(disruptionMode: Record<string, unknown> | undefined) {
    const h = gangCore().events(
      gangNode('n1'),
      gangNode('n2'),
      gangNode('n3'),
      corePodGroup('old', {
        schedulingPolicy: gang(2),
        priority: 10,
        ...(disruptionMode === undefined ? {} : { disruptionMode }),
      }),
    );
    h.pods(
      coreMember('old-0', 'old', { priority: 10 }),
      coreMember('old-1', 'old', { priority: 10, created: 1 }),
    );
    h.drain().confirmBinds();
    h.events(corePodGroup('train', { schedulingPolicy: gang(2), priority: 100 }));
    h.pods(
      coreMember('train-0', 'train', { priority: 100 }),
      coreMember('train-1', 'train', { priority: 100, created: 1 }),
    );
    return h.drain();
  }

  it('takes a group whose disruptionMode is all whole, though one member would do', () => {
    const h = oldGroup({ all: {} });
    expect(h.victims().sort()).toEqual(['default/old-0', 'default/old-1']);
    expect(h.keys('PodNominated').sort()).toEqual(['default/train-0', 'default/train-1']);
  });

  it('names the preempting core PodGroup on every eviction (DisruptionTarget and Event say podgroup)', () => {
    const h = oldGroup({ all: {} });
    expect(h.evictions.map((e) => e.group)).toEqual([
      { uid: 'train-pg-uid', key: 'default/train' },
      { uid: 'train-pg-uid', key: 'default/train' },
    ]);
  });

  it.each([
    { name: 'single', mode: { single: {} } },
    { name: 'unset (the API’s default, single)', mode: undefined },
  ])('takes one member of a group whose disruptionMode is $name', ({ mode }) => {
    const h = oldGroup(mode);
    expect(h.victims()).toHaveLength(1);
    expect(h.keys('PodNominated').sort()).toEqual(['default/train-0', 'default/train-1']);
  });
});
