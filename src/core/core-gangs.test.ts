// Gang scheduling with Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1): membership, policy, the condition kube writes, the missing API.
import { describe, expect, it } from 'vitest';
import {
  coreMember,
  corePodGroup,
  given,
  member,
  node,
  podGroup,
} from '../../test/support/gang-harness.ts';
import { podObject } from '../../test/support/objects.ts';
import { defaultConfig } from './config.ts';

describe("gang scheduling with Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1)", () => {
  const gang = (minCount: number) => ({ gang: { minCount } });
  const key = 'default/train (scheduling.k8s.io)';

  it('places a gang whose minCount members fit, all together, and reports PodGroupInitiallyScheduled=True', () => {
    const h = given().events(
      node('n1', '2'),
      node('n2', '2'),
      corePodGroup('train', { schedulingPolicy: gang(4) }),
    );
    for (let i = 0; i < 3; i++) h.pods(coreMember(`w${i}`, 'train', { created: i }));
    h.drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/w0')).toBe(`pod group ${key} has 3 of 4 members`);
    expect(h.effects.groups.filter((g) => g.initiallyScheduled !== undefined)).toEqual([]);
    h.pods(coreMember('w3', 'train', { created: 3 })).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1', 'default/w2', 'default/w3']);
    expect(h.effects.groups.at(-1)).toMatchObject({
      key,
      initiallyScheduled: {
        status: 'True',
        reason: 'Scheduled',
        message: '',
        observedGeneration: 3,
      },
    });
    expect(h.broken).toEqual([]);
  });

  it('places none of a gang that does not fit whole, with kube’s condition, and all of it once a node arrives', () => {
    const h = given().events(
      node('n1'),
      node('n2'),
      node('n3'),
      corePodGroup('train', { schedulingPolicy: gang(4) }),
    );
    for (let i = 0; i < 4; i++) h.pods(coreMember(`w${i}`, 'train', { created: i }));
    h.drain();
    expect(h.reserved()).toEqual([]);
    // kube's words (workload-gang.e2e): the members that fitted carry the condition's message,
    // the one that did not its own.
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      'pod group is unschedulable, minCount (4) cannot be satisfied: 3 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor',
    );
    expect(h.effects.unschedulable.get('default/w3')).toBe(
      '0/3 nodes are available: 3 Insufficient cpu.',
    );
    expect(h.effects.groups.at(-1)?.initiallyScheduled).toEqual({
      status: 'False',
      reason: 'Unschedulable',
      message:
        'minCount (4) cannot be satisfied: 3 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor',
      observedGeneration: 3,
    });
    h.later(20_000).events(node('n4')).drain();
    expect(h.reserved()).toEqual(['default/w0', 'default/w1', 'default/w2', 'default/w3']);
    expect(h.effects.groups.at(-1)?.initiallyScheduled?.status).toBe('True');
  });

  it("gives every member berth's group message when gangs.kubeMemberMessages is off (a log from before it)", () => {
    const gangs = { ...defaultConfig.gangs, scheduleTimeoutMs: 60_000, kubeMemberMessages: false };
    const h = given({ ...defaultConfig, gangs }).events(
      node('n1'),
      corePodGroup('train', { schedulingPolicy: gang(2) }),
    );
    h.pods(coreMember('w0', 'train', { created: 0 }), coreMember('w1', 'train', { created: 1 }));
    h.drain();
    const berths = `pod group ${key}: 1 of 2 members fit; 0/1 nodes are available for default/w1: 1 Insufficient cpu.`;
    expect(h.effects.unschedulable.get('default/w0')).toBe(berths);
    expect(h.effects.unschedulable.get('default/w1')).toBe(berths);
  });

  it('says in the condition that lower-priority pods are preempted for the gang', () => {
    const h = given().events(
      node('n1'),
      node('n2'),
      corePodGroup('train', { schedulingPolicy: gang(2), priority: 1000 }),
    );
    const low = (name: string) => {
      const p = podObject(name, { schedulerName: 'berth', requests: { cpu: '1' }, priority: 0 });
      p.metadata.uid = `${name}-uid`;
      return p;
    };
    h.pods(low('low-0'), low('low-1')).drain();
    const urgent = (name: string, created: number) => {
      const p = coreMember(name, 'train', { created });
      p.spec.priority = 1000;
      return p;
    };
    h.pods(urgent('w0', 1), urgent('w1', 2)).drain();
    expect(h.effects.groups.at(-1)?.initiallyScheduled).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message:
        'minCount (2) cannot be satisfied: 0 scheduled, 1 remaining, pod group preemption: found a placement for podgroup, preempting 2 victims',
    });
  });

  it("says GangScheduling's reason of the trial without victims when even that does not fit, as kube", () => {
    // One node: a low pod there; even without it only 1 of the 2 members fits.
    const h = given().events(
      node('n1'),
      corePodGroup('train', { schedulingPolicy: gang(2), priority: 1000 }),
    );
    const low = podObject('low-0', { schedulerName: 'berth', requests: { cpu: '1' } });
    low.metadata.uid = 'low-0-uid';
    h.pods(low).drain();
    const urgent = (name: string, created: number) => {
      const p = coreMember(name, 'train', { created });
      p.spec.priority = 1000;
      return p;
    };
    h.pods(urgent('w0', 1), urgent('w1', 2)).drain();
    expect(h.effects.groups.at(-1)?.initiallyScheduled?.message).toBe(
      'minCount (2) cannot be satisfied: 0 scheduled, 1 remaining, deallocation and deletion of ResourceClaims completed, pod group preemption: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining',
    );
  });

  it("puts DynamicResources' PodGroupPostFilter reason before preemption's, as kube, only when the profile has it", () => {
    const never = (postFilters?: string[]) => {
      const config = postFilters === undefined ? defaultConfig : { ...defaultConfig, postFilters };
      const h = given(config).events(
        node('n1'),
        corePodGroup('train', { schedulingPolicy: gang(2) }),
      );
      const w = (name: string, created: number) => {
        const p = coreMember(name, 'train', { created });
        p.spec.preemptionPolicy = 'Never';
        return p;
      };
      h.pods(w('w0', 1), w('w1', 2)).drain();
      return h.effects.groups.at(-1)?.initiallyScheduled?.message;
    };
    const gangPart = 'minCount (2) cannot be satisfied: 1 scheduled, 0 remaining';
    const preemption = 'pod group preemption: not eligible due to preemptionPolicy=Never.';
    expect(never()).toBe(
      `${gangPart}, deallocation and deletion of ResourceClaims completed, ${preemption}`,
    );
    expect(never(['DefaultPreemption'])).toBe(`${gangPart}, ${preemption}`);
  });

  it('places the members of a basic PodGroup one by one, without a group constraint', () => {
    const h = given().events(
      node('n1', '1'),
      corePodGroup('train', { schedulingPolicy: { basic: {} } }),
    );
    h.pods(coreMember('w0', 'train', { created: 0 }), coreMember('w1', 'train', { created: 1 }));
    h.drain();
    expect(h.reserved()).toEqual(['default/w0']);
    expect(h.effects.unschedulable.get('default/w1')).toMatch(
      /^0\/1 nodes are available: 1 Insufficient cpu/,
    );
    expect(h.effects.groups.at(-1)?.initiallyScheduled?.status).toBe('True');
  });

  it('never sets a PodGroupInitiallyScheduled=True read from the PodGroup back to False', () => {
    const scheduled = { conditions: [{ type: 'PodGroupInitiallyScheduled', status: 'True' }] };
    const h = given().events(
      node('n1'),
      corePodGroup('train', { schedulingPolicy: gang(2) }, scheduled),
    );
    h.pods(coreMember('w0', 'train'), coreMember('w1', 'train')).drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.groups.filter((g) => g.initiallyScheduled !== undefined)).toEqual([]);
  });

  it('says when the PodGroup, or the scheduling.k8s.io/v1beta1 API, is missing', () => {
    const h = given().events(node('n1', '4'));
    h.pods(coreMember('w0', 'ghost')).drain();
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      'pod group default/ghost (scheduling.k8s.io): PodGroup default/ghost (scheduling.k8s.io/v1beta1) not found',
    );
    h.later(20_000).events({ type: 'ResyncStarted', kind: 'CorePodGroup' });
    h.events({
      type: 'ResyncDone',
      kind: 'CorePodGroup',
      unavailable: 'the API server does not serve scheduling.k8s.io/v1beta1 podgroups',
    });
    h.drain();
    expect(h.effects.unschedulable.get('default/w0')).toBe(
      'pod group default/ghost (scheduling.k8s.io): the PodGroup API (scheduling.k8s.io/v1beta1) is not served: the API server does not serve scheduling.k8s.io/v1beta1 podgroups',
    );
    h.later(20_000).events({ type: 'ResyncStarted', kind: 'CorePodGroup' });
    h.events(corePodGroup('ghost', { schedulingPolicy: gang(1) }), {
      type: 'ResyncDone',
      kind: 'CorePodGroup',
    }).drain();
    expect(h.reserved()).toEqual(['default/w0']);
  });

  it('keeps a scheduler-plugins PodGroup and a core PodGroup of one name apart', () => {
    const h = given().events(
      node('n1', '4'),
      podGroup('train', 2),
      corePodGroup('train', { schedulingPolicy: gang(2) }),
    );
    h.pods(member('x0', 'train'), coreMember('c0', 'train')).drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/x0')).toBe(
      'pod group default/train has 1 of 2 members',
    );
    expect(h.effects.unschedulable.get('default/c0')).toBe(`pod group ${key} has 1 of 2 members`);
  });

  it('refuses a pod that names both a scheduler-plugins PodGroup and a core PodGroup', () => {
    const h = given().events(
      node('n1', '4'),
      podGroup('train', 1),
      corePodGroup('train', { schedulingPolicy: gang(1) }),
    );
    const both = coreMember('both', 'train');
    both.metadata.labels = { 'scheduling.x-k8s.io/pod-group': 'train' };
    h.pods(both).drain();
    expect(h.reserved()).toEqual([]);
    expect(h.effects.unschedulable.get('default/both')).toContain(
      'pod names two pod groups: label scheduling.x-k8s.io/pod-group=train (scheduling.x-k8s.io/v1alpha1) and spec.schedulingGroup.podGroupName=train (scheduling.k8s.io/v1beta1)',
    );
  });
});
