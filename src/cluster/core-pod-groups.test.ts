// Tests reading Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1) and the group a pod joins.
import { describe, expect, it } from 'vitest';
import {
  coreGroupKey,
  corePodGroupKeyOfGroup,
  groupKeyOf,
  parseCorePodGroup,
  parseSchedulingGroup,
} from './core-pod-groups.ts';
import { podInfoFromObject } from './pod-info.ts';
import type { PodInfo } from './types.ts';

const meta = {
  name: 'train',
  namespace: 'ml',
  generation: 2,
  creationTimestamp: '2026-11-01T00:00:00Z',
};

describe('parseCorePodGroup', () => {
  it.each([
    {
      name: 'A gang policy gives its minCount',
      spec: { schedulingPolicy: { gang: { minCount: 4 } } },
      want: { policy: 'gang', minCount: 4, invalid: undefined },
    },
    {
      name: 'A basic policy is no group constraint: minCount 1',
      spec: { schedulingPolicy: { basic: {} } },
      want: { policy: 'basic', minCount: 1, invalid: undefined },
    },
    {
      name: 'A gang minCount of 0 counts as 1 and is named',
      spec: { schedulingPolicy: { gang: { minCount: 0 } } },
      want: {
        policy: 'gang',
        minCount: 1,
        invalid: 'spec.schedulingPolicy.gang.minCount 0 is not a positive integer',
      },
    },
    {
      name: 'A gang minCount that is a string counts as 1 and is named',
      spec: { schedulingPolicy: { gang: { minCount: '3' } } },
      want: {
        policy: 'gang',
        minCount: 1,
        invalid: 'spec.schedulingPolicy.gang.minCount "3" is not a positive integer',
      },
    },
    {
      name: 'No schedulingPolicy is basic, and named',
      spec: {},
      want: { policy: 'basic', minCount: 1, invalid: 'spec.schedulingPolicy is missing' },
    },
    {
      name: 'Both basic and gang is basic, and named',
      spec: { schedulingPolicy: { basic: {}, gang: { minCount: 2 } } },
      want: {
        policy: 'basic',
        minCount: 1,
        invalid: 'spec.schedulingPolicy sets both basic and gang',
      },
    },
    {
      name: 'A spec that is not an object is basic, and named',
      spec: 'junk',
      want: { policy: 'basic', minCount: 1, invalid: 'spec.schedulingPolicy is missing' },
    },
  ])('$name', ({ spec, want }) => {
    const parsed = parseCorePodGroup({ metadata: meta, spec });
    expect(parsed).toEqual({
      value: {
        key: 'ml/train',
        namespace: 'ml',
        name: 'train',
        creationMs: Date.UTC(2026, 10, 1),
        generation: 2,
        initiallyScheduled: false,
        topologyKeys: [],
        priority: 0,
        preemptionPolicy: undefined,
        disruptionMode: 'Single',
        unusable: undefined,
        ...want,
      },
    });
  });

  it('reads the placement fields, and names an unusable one in invalid too', () => {
    const read = (spec: unknown) => {
      const parsed = parseCorePodGroup({ metadata: meta, spec });
      return 'value' in parsed ? parsed.value : undefined;
    };
    const policy = { gang: { minCount: 2 } };
    const topology = { topology: [{ key: 'topology.kubernetes.io/rack' }] };
    expect(
      read({ schedulingPolicy: policy, schedulingConstraints: topology, priority: 7 }),
    ).toMatchObject({
      topologyKeys: ['topology.kubernetes.io/rack'],
      priority: 7,
      invalid: undefined,
    });
    expect(
      read({ schedulingPolicy: policy, disruptionMode: { single: {}, all: {} } }),
    ).toMatchObject({
      unusable: 'spec.disruptionMode sets both single and all',
      invalid: 'spec.disruptionMode sets both single and all',
    });
  });

  it('reads whether PodGroupInitiallyScheduled is already True', () => {
    const status = (s: string) => ({
      conditions: [
        { type: 'DisruptionTarget', status: 'True' },
        { type: 'PodGroupInitiallyScheduled', status: s },
      ],
    });
    const read = (raw: unknown) => {
      const parsed = parseCorePodGroup(raw);
      return 'value' in parsed ? parsed.value.initiallyScheduled : parsed.rejected;
    };
    expect(read({ metadata: meta, spec: {}, status: status('True') })).toBe(true);
    expect(read({ metadata: meta, spec: {}, status: status('False') })).toBe(false);
    expect(read({ metadata: meta, spec: {}, status: { conditions: 'junk' } })).toBe(false);
  });

  it('rejects an object without a name, and never throws on junk', () => {
    expect(parseCorePodGroup({ metadata: {} })).toEqual({
      rejected: 'PodGroup (scheduling.k8s.io/v1beta1) has no metadata.name',
    });
    for (const junk of [null, 7, 'x', [], { metadata: [] }, { metadata: { name: 'a' }, spec: [] }])
      expect(() => parseCorePodGroup(junk)).not.toThrow();
  });
});

describe('parseSchedulingGroup', () => {
  it.each([
    ['no schedulingGroup', {}, undefined],
    ['a podGroupName', { schedulingGroup: { podGroupName: 'train' } }, 'train'],
    [
      'an empty podGroupName',
      { schedulingGroup: { podGroupName: '' } },
      { invalid: 'spec.schedulingGroup names no podGroupName' },
    ],
    [
      'a schedulingGroup that is a string',
      { schedulingGroup: 'train' },
      { invalid: 'spec.schedulingGroup is not an object' },
    ],
  ])('reads %s', (_name, spec, want) => {
    expect(parseSchedulingGroup(spec)).toEqual(want);
  });
});

describe('the group a pod joins', () => {
  const pod = (labels: Record<string, string>, schedulingGroup?: string) => ({
    namespace: 'ml',
    labels,
    ...(schedulingGroup === undefined ? {} : { schedulingGroup }),
  });
  const label = { 'scheduling.x-k8s.io/pod-group': 'bert' };

  it('is the scheduler-plugins PodGroup of its label, or the core PodGroup it names, apart by id', () => {
    expect(groupKeyOf(pod(label))).toBe('ml/bert');
    expect(groupKeyOf(pod({}, 'bert'))).toBe('ml/bert (scheduling.k8s.io)');
    expect(groupKeyOf(pod({}))).toBeUndefined();
    expect(corePodGroupKeyOfGroup(coreGroupKey('ml', 'bert'))).toBe('ml/bert');
    expect(corePodGroupKeyOfGroup('ml/bert')).toBeUndefined();
  });

  it('is none when the pod names both, and the pod is invalid saying why', () => {
    expect(groupKeyOf(pod(label, 'bert'))).toBeUndefined();
    const info = podInfoFromObject({
      metadata: { name: 'p', namespace: 'ml', labels: label },
      spec: { schedulingGroup: { podGroupName: 'llama' }, containers: [] },
    }) as PodInfo;
    expect(info.schedulingGroup).toBe('llama');
    expect(info.invalid).toBe(
      'pod names two pod groups: label scheduling.x-k8s.io/pod-group=bert (scheduling.x-k8s.io/v1alpha1) and spec.schedulingGroup.podGroupName=llama (scheduling.k8s.io/v1beta1); berth schedules a pod in one group only',
    );
  });

  it('makes a pod with an unusable schedulingGroup invalid, naming the field', () => {
    const info = podInfoFromObject({
      metadata: { name: 'p', namespace: 'ml' },
      spec: { schedulingGroup: { podGroupName: 5 }, containers: [] },
    }) as PodInfo;
    expect(info.schedulingGroup).toBeUndefined();
    expect(info.invalid).toBe('spec.schedulingGroup names no podGroupName');
  });
});
