// kube 1.37.2 scheduler_perf's node and pod templates (test/integration/scheduler_perf/templates), as berth objects.
import type { NodeObject, PodObject } from '../../src/model/objects.ts';

type Json = Record<string, unknown>;

/** What a pod template sets: labels and spec fields (containers included). */
export interface PodTemplate {
  labels?: Record<string, string>;
  spec: Json;
}

const host = 'kubernetes.io/hostname';
/** The zone label scheduler_perf's labelNodePrepareStrategy writes. */
export const zoneKey = 'topology.kubernetes.io/zone';

/**
 * A node from `node-default.yaml` (4 cpu, 32Gi, 110 pods; allocatable defaulted from
 * capacity as the API server does) with the hostname label scheduler_perf adds.
 */
export function nodeDefault(
  name: string,
  labels: Record<string, string> = {},
  pods = '110',
): NodeObject {
  const capacity = { cpu: '4', memory: '32Gi', pods };
  return {
    metadata: { name, labels: { [host]: name, ...labels } },
    status: {
      capacity,
      allocatable: capacity,
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  } as NodeObject;
}

/** `node-with-name.yaml`: `scheduler-perf-node`, 90,000 pods. */
export const nodeWithName = (): NodeObject => nodeDefault('scheduler-perf-node', {}, '90000');

/** `churn/node-default.yaml`: a node that holds no pods (capacity pods 0, nothing else). */
export function churnNode(name: string): NodeObject {
  return {
    metadata: { name, labels: { [host]: name } },
    status: {
      capacity: { pods: '0' },
      allocatable: { pods: '0' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  } as NodeObject;
}

/** One pause container asking for `cpu` and `memory`, as limits too unless `requestsOnly`. */
function pause(cpu: string, memory: string, requestsOnly = false): Json[] {
  const requests = { cpu, memory };
  return [
    {
      name: 'pause',
      image: 'registry.k8s.io/pause:3.10.2',
      ports: [{ containerPort: 80 }],
      resources: requestsOnly ? { requests } : { limits: requests, requests },
    },
  ];
}

const bare: Json[] = [{ name: 'pause', image: 'registry.k8s.io/pause:3.10.1' }];
const small = () => pause('100m', '500Mi');
const bothNamespaces = ['sched-1', 'sched-0'];

/** `pod-default.yaml`, and scheduler_perf's base pod (`MakePodSpec`), which is the same. */
export const podDefault: PodTemplate = { spec: { containers: small() } };

/** A small pod labelled `color`, with one required `kind` term toward `color` over `topologyKey`. */
function required(
  kind: 'podAffinity' | 'podAntiAffinity',
  color: string,
  topologyKey: string,
): PodTemplate {
  const term = {
    labelSelector: { matchLabels: { color } },
    topologyKey,
    namespaces: bothNamespaces,
  };
  return {
    labels: { color },
    spec: {
      containers: small(),
      affinity: { [kind]: { requiredDuringSchedulingIgnoredDuringExecution: [term] } },
    },
  };
}

/** `pod-with-pod-anti-affinity.yaml`: green pods repel green pods per host. */
export const podAntiAffinity = required('podAntiAffinity', 'green', host);

/** `pod-with-pod-affinity.yaml`: blue pods attract blue pods per zone. */
export const podAffinity = required('podAffinity', 'blue', zoneKey);

/** `pod-with-preferred-pod-affinity.yaml` (red) and `…-anti-affinity.yaml` (yellow), weight 1 per host. */
export function podPreferred(kind: 'podAffinity' | 'podAntiAffinity'): PodTemplate {
  const color = kind === 'podAffinity' ? 'red' : 'yellow';
  const term = {
    weight: 1,
    podAffinityTerm: {
      labelSelector: { matchLabels: { color } },
      topologyKey: host,
      namespaces: bothNamespaces,
    },
  };
  return {
    labels: { color },
    spec: {
      containers: small(),
      affinity: { [kind]: { preferredDuringSchedulingIgnoredDuringExecution: [term] } },
    },
  };
}

/** `pod-with-node-affinity.yaml`: zone In [zone1, zone2]. */
export const podNodeAffinity: PodTemplate = {
  spec: {
    containers: small(),
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: zoneKey, operator: 'In', values: ['zone1', 'zone2'] }] },
          ],
        },
      },
    },
  },
};

/** `pod-with-topology-spreading.yaml` (DoNotSchedule) or `…-preferred-…` (ScheduleAnyway): maxSkew 5 by zone. */
export function podSpreading(when: 'DoNotSchedule' | 'ScheduleAnyway'): PodTemplate {
  return {
    labels: { color: 'blue' },
    spec: {
      containers: small(),
      topologySpreadConstraints: [
        {
          maxSkew: 5,
          topologyKey: zoneKey,
          whenUnsatisfiable: when,
          labelSelector: { matchLabels: { color: 'blue' } },
        },
      ],
    },
  };
}

/** `pod-with-label.yaml`: `app: scheduler-perf`, no requests. */
export const podWithLabel: PodTemplate = {
  labels: { app: 'scheduler-perf' },
  spec: { containers: bare },
};

/** `daemonset-pod.yaml`: required node affinity on `metadata.name` = scheduler-perf-node, no requests. */
export const podDaemonset: PodTemplate = {
  spec: {
    containers: bare,
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchFields: [
                { key: 'metadata.name', operator: 'In', values: ['scheduler-perf-node'] },
              ],
            },
          ],
        },
      },
    },
  },
};

/** `pod-low-priority.yaml`: 900m/500Mi, priority 0, terminationGracePeriodSeconds 0. */
export const podLowPriority: PodTemplate = {
  spec: { containers: pause('900m', '500Mi'), terminationGracePeriodSeconds: 0 },
};

/** `default_preemption/templates/pod-high-priority.yaml`: 3970m/500Mi, priority 9999999, grace 0. */
export const podPreemptor: PodTemplate = {
  spec: {
    containers: pause('3970m', '500Mi'),
    priority: 9999999,
    terminationGracePeriodSeconds: 0,
  },
};

/** `pod-high-priority-large-cpu.yaml`: requests 9 cpu (no node has it), priority 10. */
export const podHighPriorityLargeCpu: PodTemplate = {
  spec: { containers: pause('9', '500Mi', true), priority: 10 },
};

const epoch = Date.UTC(2026, 0, 1);

/** A pod from `t`, named `name` in `namespace`, created `atMs` after the bench's epoch. */
export function podFrom(
  t: PodTemplate,
  name: string,
  namespace: string,
  atMs: number,
  schedulerName: string,
): PodObject {
  return {
    metadata: {
      name,
      namespace,
      uid: `${namespace}/${name}`,
      creationTimestamp: new Date(epoch + atMs).toISOString(),
      ...(t.labels === undefined ? {} : { labels: { ...t.labels } }),
    },
    spec: { schedulerName, ...structuredClone(t.spec) },
  } as PodObject;
}
