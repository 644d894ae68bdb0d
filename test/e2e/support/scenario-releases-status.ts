// Release scenarios about pods' status: nominations by another component, a gated nomination, in-place resize, the preemption message.
import { baseNode } from './scenario-features.ts';
import {
  atLeast,
  Gi,
  pausePod,
  pinnedTo,
  type ReleaseScenario,
  resident,
} from './scenario-releases-model.ts';

/**
 * A nomination another component made (status.nominatedNodeName, patched before any scheduler
 * sees the pod): kube tries that node first and takes it if it passes the filters, without
 * scoring (nf-pod would otherwise score far higher on nf-big); when it does not fit, every
 * node is tried; when none fits, preemption finds no candidate and the nomination is
 * cleared (#135007). The API server clears it on binding (ClearingNominatedNodeNameAfterBinding,
 * beta 1.35). Priorities keep each pod's fate independent: a nominated pod counts on its
 * node only against pods of no higher priority.
 */
export const nominatedElsewhere: ReleaseScenario = {
  name: 'nominated node set by another component',
  change: '1.35: nominatedNodeName cleared on failure (#135007) and on binding (#135103)',
  nodes: [baseNode('nf-big', 8000, 16 * Gi), baseNode('nf-small', 2000, 4 * Gi)],
  residents: [],
  pending: [
    pausePod('nf-pod', '500m', { memory: '512Mi', priorityClassName: 'diff-high' }),
    pausePod('nf-stale', '3000m', { priorityClassName: 'diff-mid' }),
    pausePod('nf-nowhere', '9000m', { priorityClassName: 'diff-low' }),
  ],
  prepare: [
    { kind: 'nominate', pod: 'nf-pod', node: 'nf-small' },
    { kind: 'nominate', pod: 'nf-stale', node: 'nf-small' },
    { kind: 'nominate', pod: 'nf-nowhere', node: 'nf-small' },
  ],
  expect: () => ({
    'nf-pod': { feasible: ['nf-big', 'nf-small'], node: 'nf-small', nominated: '' },
    'nf-stale': { feasible: ['nf-big'], node: 'nf-big', nominated: '' },
    'nf-nowhere': {
      feasible: [],
      filters: '0/2 nodes are available: 2 Insufficient cpu.',
      nominated: '',
    },
  }),
};

/**
 * A gated pod's nomination holds its room on the nominated node against pods of no higher
 * priority since 1.37 (#139057: the queue records every added pod's nomination, gated or
 * not); 1.35 and 1.36 put a gated pod aside before recording it.
 */
export const nominatedGated: ReleaseScenario = {
  name: 'nominated gated pod',
  change: "1.37: a gated pod's nomination holds its room (#139057)",
  nodes: [baseNode('ng-node', 2000, 4 * Gi)],
  residents: [],
  pending: [
    (() => {
      const p = pausePod('ng-gated', '1500m', { priorityClassName: 'diff-high' });
      (p.spec as Record<string, unknown>).schedulingGates = [{ name: 'example.com/hold' }];
      return p;
    })(),
    pausePod('ng-low', '1000m', { priorityClassName: 'diff-low' }),
  ],
  prepare: [{ kind: 'nominate', pod: 'ng-gated', node: 'ng-node' }],
  expect: (r) => ({
    'ng-gated': { feasible: [], nominated: 'ng-node' },
    'ng-low': atLeast(r, '1.37')
      ? { feasible: [], filters: '0/1 nodes are available: 1 Insufficient cpu.' }
      : { feasible: ['ng-node'], node: 'ng-node' },
  }),
};

/**
 * In-place resize: a resident mid-resize is charged max(spec, actuated, allocated). 1.35 and
 * 1.36 take the max per container and add (rz-moving: 1500m + 1500m = 3 cpu); 1.37 adds per
 * kind first and takes the max (max(2000m, 2000m) = 2 cpu: #140047, "overestimation … for
 * multi-container Pods"). An Infeasible resize is charged what runs (rz-stuck: 1 cpu of its
 * 3500m spec) in every release.
 */
export const inPlaceResize: ReleaseScenario = {
  name: 'in-place resize',
  change: '1.37: a multi-container resize is charged max of sums, not sum of maxes (#140047)',
  nodes: [baseNode('rz-a', 4000, 8 * Gi), baseNode('rz-b', 4000, 8 * Gi)],
  residents: [
    (() => {
      const p = resident('rz-moving', 'rz-a', '500m');
      p.spec.containers.push({
        name: 'd',
        image: 'registry.k8s.io/pause:3.10',
        resources: { requests: { cpu: '1500m' } },
      });
      return p;
    })(),
    resident('rz-stuck', 'rz-b', '1000m'),
  ],
  pending: [
    pinnedTo(pausePod('rz-pod-a', '1500m'), 'rz-a'),
    pinnedTo(pausePod('rz-pod-b', '2500m'), 'rz-b'),
  ],
  prepare: [
    {
      kind: 'resize',
      pod: 'rz-moving',
      requests: { c: { cpu: '1500m' }, d: { cpu: '500m' } },
      actuated: { c: { cpu: '500m' }, d: { cpu: '1500m' } },
      condition: { type: 'PodResizeInProgress' },
    },
    {
      kind: 'resize',
      pod: 'rz-stuck',
      requests: { c: { cpu: '3500m' } },
      actuated: { c: { cpu: '1000m' } },
      condition: { type: 'PodResizePending', reason: 'Infeasible' },
    },
  ],
  expect: (r) => ({
    'rz-pod-a': atLeast(r, '1.37')
      ? { feasible: ['rz-a'], node: 'rz-a' }
      : {
          feasible: [],
          filters:
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector.",
        },
    'rz-pod-b': { feasible: ['rz-b'], node: 'rz-b' },
  }),
};

/**
 * DefaultPreemption's PodScheduled message names the placement it found since 1.37
 * (#140180): "… preemption: found a potential placement for pod on node N, preempting K
 * victims"; before, a successful preemption added nothing to the filters' sentence.
 */
export const preemptionMessage: ReleaseScenario = {
  name: 'preemption message',
  change: '1.37: a successful preemption is described in the PodScheduled message (#140180)',
  nodes: [baseNode('pm-node', 2000, 4 * Gi)],
  residents: [
    pausePod('pm-victim', '1500m', { nodeName: 'pm-node', priorityClassName: 'diff-low' }),
  ],
  pending: [pausePod('pm-preemptor', '1500m', { priorityClassName: 'diff-high' })],
  prepare: [],
  expect: (r) => ({
    'pm-preemptor': {
      feasible: ['pm-node'],
      node: 'pm-node',
      firstMessage: atLeast(r, '1.37')
        ? '0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node pm-node, preempting 1 victims'
        : '0/1 nodes are available: 1 Insufficient cpu.',
    },
  }),
};
