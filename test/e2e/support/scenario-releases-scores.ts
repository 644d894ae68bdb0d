// Release scenarios about scores and filters: balanced allocation, image-volume locality, declared features, the taint message.
import { baseNode } from './scenario-features.ts';
import type { PodObj } from './scenario-model.ts';
import {
  atLeast,
  Gi,
  pausePod,
  type ReleaseScenario,
  resident,
  tainted,
} from './scenario-releases-model.ts';

/**
 * NodeResourcesBalancedAllocation scores the change in balance since 1.36 (#135573): 50 +
 * (50 + with − without)/2. ba-a (2 cpu, 8Gi; 1 cpu and 4Gi taken) is balanced and the pod
 * (500m, 1Gi) unbalances it; ba-b (500m and 6Gi taken) is unbalanced and the pod helps.
 * LeastAllocated gives both 31. Before: ba-a 93 + 31 = 124, ba-b 81 + 31 = 112. Since: ba-a
 * 71 + 31 = 102, ba-b 78 + 31 = 109. Every other score is the same on both nodes.
 */
export const balancedAllocation: ReleaseScenario = {
  name: 'balanced allocation',
  change: '1.36: NodeResourcesBalancedAllocation scores balance with and without the pod (#135573)',
  nodes: [baseNode('ba-a', 2000, 8 * Gi), baseNode('ba-b', 2000, 8 * Gi)],
  residents: [
    resident('ba-a-load', 'ba-a', '1000m', '4Gi'),
    resident('ba-b-load', 'ba-b', '500m', '6Gi'),
  ],
  pending: [pausePod('ba-pod', '500m', { memory: '1Gi' })],
  prepare: [],
  expect: (r) => ({
    'ba-pod': { feasible: ['ba-a', 'ba-b'], node: atLeast(r, '1.36') ? 'ba-b' : 'ba-a' },
  }),
};

/** A container rule that restarts every container of the pod: kube infers RestartAllContainersOnContainerExits. */
function restartsAll(pod: PodObj): PodObj {
  const c = pod.spec.containers[0] as PodObj['spec']['containers'][number] &
    Record<string, unknown>;
  c.restartPolicy = 'Never';
  c.restartPolicyRules = [
    { action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [42] } },
  ];
  return pod;
}

/**
 * NodeDeclaredFeatures (default profile since 1.36, beta #136042; GA 1.37 #139763): a pod
 * needing a feature fits only nodes whose status.declaredFeatures list it, else
 * UnschedulableAndUnresolvable "node(s) didn't match Pod's required features". The feature
 * inferred here is RestartAllContainersOnContainerExits (a container restart rule with
 * action RestartAllContainers; the API server accepts it since 1.36).
 */
export const declaredFeatures: ReleaseScenario = {
  name: 'declared features',
  change: '1.36: NodeDeclaredFeatures filter in the default profile (#136042, GA #139763)',
  nodes: [baseNode('df-feat', 2000, 4 * Gi), baseNode('df-plain', 4000, 8 * Gi)],
  residents: [],
  pending: [
    restartsAll(pausePod('df-needs-small', '500m')),
    restartsAll(pausePod('df-needs-big', '3000m')),
    pausePod('df-plain-pod', '500m'),
  ],
  prepare: [
    {
      kind: 'declareFeatures',
      node: 'df-feat',
      features: ['RestartAllContainersOnContainerExits'],
    },
  ],
  expect: (r) => {
    const both = ['df-feat', 'df-plain'];
    if (!atLeast(r, '1.36'))
      return {
        'df-needs-small': { feasible: both },
        'df-needs-big': { feasible: ['df-plain'], node: 'df-plain' },
        'df-plain-pod': { feasible: both },
      };
    return {
      'df-needs-small': { feasible: ['df-feat'], node: 'df-feat' },
      'df-needs-big': {
        feasible: [],
        filters:
          "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's required features.",
      },
      'df-plain-pod': { feasible: both },
    };
  },
};

/**
 * Untolerated taints: the message counts nodes without naming the taint (#134740 in 1.35,
 * #135023 in 1.34.x, so 1.34.10 already says it): the same in every release here.
 */
export const taintMessage: ReleaseScenario = {
  name: 'taint message',
  change: '1.35: untolerated-taint reasons carry no key/value (#134740; 1.34.x #135023)',
  nodes: [
    tainted(baseNode('tm-a', 4000, 8 * Gi), {
      key: 'dedicated',
      value: 'infra',
      effect: 'NoSchedule',
    }),
    tainted(baseNode('tm-b', 4000, 8 * Gi), {
      key: 'maintenance',
      value: 'true',
      effect: 'NoExecute',
    }),
    baseNode('tm-c', 1000, 2 * Gi),
  ],
  residents: [],
  pending: [
    pausePod('tm-pod', '2000m'),
    (() => {
      const p = pausePod('tm-tolerating', '2000m');
      p.spec.tolerations = [
        { key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' },
      ];
      return p;
    })(),
  ],
  prepare: [],
  expect: () => ({
    'tm-pod': {
      feasible: [],
      filters: '0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s).',
    },
    'tm-tolerating': { feasible: ['tm-a'], node: 'tm-a' },
  }),
};

/** A pod mounting an image volume (`volumes[].image`, GA in 1.36). */
function withImageVolume(pod: PodObj, reference: string): PodObj {
  (pod.spec as Record<string, unknown>).volumes = [
    { name: 'data', image: { reference, pullPolicy: 'IfNotPresent' } },
  ];
  return pod;
}

/**
 * ImageLocality counts image volumes since 1.36 (#130231; 1.37 counts each volume in the
 * pod's image total, #138951). iv-a holds the pod's 900Mi volume image, iv-b does not but
 * has more cpu. 1.35: LeastAllocated 86 vs 88, BalancedAllocation 87 vs 90, ImageLocality 0
 * on both: iv-b by 5. 1.37: 86 + 68 + 21 against 88 + 70 + 0: iv-a by 17.
 */
export const imageVolumeLocality: ReleaseScenario = {
  name: 'image volume locality',
  change: '1.36: ImageLocality scores image volumes (#130231, #138951)',
  nodes: [baseNode('iv-a', 4000, 8 * Gi), baseNode('iv-b', 5000, 8 * Gi)],
  residents: [],
  pending: [withImageVolume(pausePod('iv-pod', '1000m'), 'example.com/berth-data:v1')],
  prepare: [
    {
      kind: 'nodeImages',
      node: 'iv-a',
      images: [{ names: ['example.com/berth-data:v1'], sizeBytes: 900 * 1024 * 1024 }],
    },
  ],
  expect: (r) => ({
    'iv-pod': { feasible: ['iv-a', 'iv-b'], node: atLeast(r, '1.36') ? 'iv-a' : 'iv-b' },
  }),
};
