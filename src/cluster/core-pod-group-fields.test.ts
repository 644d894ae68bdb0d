// Tests reading a core PodGroup's topology, priority, preemptionPolicy and disruptionMode.
import { describe, expect, it } from 'vitest';
import { readCorePodGroupFields } from './core-pod-group-fields.ts';

const rack = 'topology.kubernetes.io/rack';
const unset = {
  topologyKeys: [],
  priority: 0,
  preemptionPolicy: undefined,
  disruptionMode: 'Single',
  unusable: undefined,
};

describe('readCorePodGroupFields', () => {
  it.each([
    {
      name: 'An empty spec is unconstrained, priority 0, disrupted member by member',
      spec: {},
      want: {},
    },
    {
      name: 'A topology constraint gives its node label key',
      spec: { schedulingConstraints: { topology: [{ key: rack }] } },
      want: { topologyKeys: [rack] },
    },
    {
      name: 'An empty topology list is no constraint',
      spec: { schedulingConstraints: { topology: [] } },
      want: {},
    },
    {
      name: 'Two topology constraints are refused (the API allows one)',
      spec: { schedulingConstraints: { topology: [{ key: rack }, { key: 'zone' }] } },
      want: {
        unusable: 'spec.schedulingConstraints.topology has 2 entries; at most 1 is allowed',
      },
    },
    {
      name: 'A topology key that is no label key is refused, naming it',
      spec: { schedulingConstraints: { topology: [{ key: 'no such/key/here' }] } },
      want: {
        unusable:
          'spec.schedulingConstraints.topology[0].key "no such/key/here" is not a node label key',
      },
    },
    {
      name: 'A topology that is not a list is refused',
      spec: { schedulingConstraints: { topology: { key: rack } } },
      want: { unusable: 'spec.schedulingConstraints.topology is not a list' },
    },
    {
      name: 'Priority, preemptionPolicy Never and disruptionMode all are read',
      spec: { priority: 1000, preemptionPolicy: 'Never', disruptionMode: { all: {} } },
      want: { priority: 1000, preemptionPolicy: 'Never', disruptionMode: 'All' },
    },
    {
      name: 'A priority above the API bound is refused',
      spec: { priority: 2_000_000_000 },
      want: { unusable: 'spec.priority 2000000000 is not an integer of at most 1000000000' },
    },
    {
      name: 'An unknown preemptionPolicy is refused',
      spec: { preemptionPolicy: 'Sometimes' },
      want: {
        unusable: 'spec.preemptionPolicy "Sometimes" is not one of Never, PreemptLowerPriority',
      },
    },
    {
      name: 'A disruptionMode setting both modes is refused',
      spec: { disruptionMode: { single: {}, all: {} } },
      want: { unusable: 'spec.disruptionMode sets both single and all' },
    },
    {
      name: 'Several problems are all named',
      spec: { priority: 'high', disruptionMode: {} },
      want: {
        unusable:
          'spec.priority "high" is not an integer of at most 1000000000; spec.disruptionMode sets neither single nor all',
      },
    },
  ])('$name', ({ spec, want }) => {
    expect(readCorePodGroupFields(spec)).toEqual({ ...unset, ...want });
  });
});
