// kube 1.37.2 scheduler_perf's performance workloads with a threshold: sizes, templates, namespaces, churn.
import type { ManifestObject } from '../../src/adapters/sim/manifests.ts';
import type { NodeObject } from '../../src/model/objects.ts';
import {
  churnNode,
  nodeDefault,
  nodeWithName,
  type PodTemplate,
  podAffinity,
  podAntiAffinity,
  podDaemonset,
  podDefault,
  podHighPriorityLargeCpu,
  podLowPriority,
  podNodeAffinity,
  podPreemptor,
  podPreferred,
  podSpreading,
  podWithLabel,
  zoneKey,
} from './kube-templates.ts';

/** A `createPods` op: how many, from which template, into which namespace. */
export interface PodsOp {
  count: number;
  template: PodTemplate;
  /** scheduler_perf's: the op's `namespace`, else `namespace-<op index>`. */
  namespace: string;
}

/**
 * A `churn` op: every `intervalMs` it creates `pod` (and, in `recreate` mode, `node`), and
 * in `recreate` mode deletes what the previous tick created.
 */
export interface ChurnOp {
  mode: 'create' | 'recreate';
  intervalMs: number;
  pod: PodTemplate;
  node?: (name: string) => NodeObject;
  /** What kube's op also churns that berth's simulator cannot (said beside the figure). */
  missing?: string;
}

/** One workload: `<test case>/<workload>` of a performance-config.yaml, with its `threshold`. */
export interface Workload {
  name: string;
  /** Where it is defined, under test/integration/scheduler_perf/. */
  file: string;
  /** The workload's `threshold:` (pods/s). */
  threshold: number;
  nodes: number;
  /** The nodes, given their count (a function of the scale). */
  makeNodes: (count: number) => NodeObject[];
  init: PodsOp[];
  measure: PodsOp;
  churn?: ChurnOp;
  objects?: ManifestObject[];
}

const name = (i: number) => `scheduler-perf-${String(i).padStart(5, '0')}`;
/** `count` node-default nodes, labelled by `label(i)` (labelNodePrepareStrategy: round robin). */
const defaults =
  (label: (i: number) => Record<string, string> = () => ({})) =>
  (count: number) =>
    Array.from({ length: count }, (_, i) => nodeDefault(name(i), label(i)));
const zone1 = defaults(() => ({ [zoneKey]: 'zone1' }));
const moons = defaults((i) => ({ [zoneKey]: `moon-${(i % 3) + 1}` }));
const ops = (count: number, template: PodTemplate, namespace: string): PodsOp => ({
  count,
  template,
  namespace,
});

/** SchedulingPreferredPod(Anti)Affinity/5000Nodes_5000Pods: 5,000 init pods in sched-0, 5,000 measured in sched-1. */
function preferred(kind: 'podAffinity' | 'podAntiAffinity', threshold: number): Workload {
  const template = podPreferred(kind);
  const what = kind === 'podAffinity' ? 'PodAffinity' : 'PodAntiAffinity';
  return {
    name: `SchedulingPreferred${what}/5000Nodes_5000Pods`,
    file: 'affinity/performance-config.yaml',
    threshold,
    nodes: 5000,
    makeNodes: defaults(),
    init: [ops(5000, template, 'sched-0')],
    measure: ops(5000, template, 'sched-1'),
  };
}

/** (Preferred)TopologySpreading/5000Nodes_5000Pods: three zones, 5,000 default pods, then 5,000 spreading ones. */
function spreading(when: 'DoNotSchedule' | 'ScheduleAnyway', threshold: number): Workload {
  return {
    name: `${when === 'DoNotSchedule' ? '' : 'Preferred'}TopologySpreading/5000Nodes_5000Pods`,
    file: 'topology_spreading/performance-config.yaml',
    threshold,
    nodes: 5000,
    makeNodes: moons,
    init: [ops(5000, podDefault, 'namespace-1')],
    measure: ops(5000, podSpreading(when), 'namespace-2'),
  };
}

/** Every workload, in the order the bench runs them. */
export const workloads: Workload[] = [
  {
    name: 'SchedulingBasic/5000Nodes_10000Pods',
    file: 'misc/performance-config.yaml',
    threshold: 680,
    nodes: 5000,
    makeNodes: defaults(),
    init: [ops(1000, podDefault, 'namespace-1')],
    measure: ops(10000, podDefault, 'namespace-2'),
  },
  {
    name: 'SchedulingBasic/5000Nodes_50000Pods',
    file: 'misc/performance-config.yaml',
    threshold: 790,
    nodes: 5000,
    makeNodes: defaults(),
    init: [ops(5000, podDefault, 'namespace-1')],
    measure: ops(50000, podDefault, 'namespace-2'),
  },
  {
    name: 'SchedulingDaemonset/15000Nodes',
    file: 'misc/performance-config.yaml',
    threshold: 1100,
    nodes: 15001,
    // One scheduler-perf-node (90,000 pods), then the nodes NodeAffinity's PreFilter rules out.
    makeNodes: (count) => [nodeWithName(), ...defaults()(count - 1)],
    init: [],
    measure: ops(30000, podDaemonset, 'namespace-2'),
  },
  {
    name: 'SchedulingPodAntiAffinity/5000Nodes_2000Pods',
    file: 'affinity/performance-config.yaml',
    threshold: 180,
    nodes: 5000,
    makeNodes: defaults(),
    init: [ops(1000, podAntiAffinity, 'sched-0')],
    measure: ops(2000, podAntiAffinity, 'sched-1'),
  },
  {
    name: 'SchedulingPodAffinity/5000Nodes_5000Pods',
    file: 'affinity/performance-config.yaml',
    threshold: 70,
    nodes: 5000,
    makeNodes: zone1,
    init: [ops(5000, podAffinity, 'sched-0')],
    measure: ops(5000, podAffinity, 'sched-1'),
  },
  preferred('podAffinity', 160),
  preferred('podAntiAffinity', 190),
  {
    name: 'SchedulingNodeAffinity/5000Nodes_10000Pods',
    file: 'affinity/performance-config.yaml',
    threshold: 540,
    nodes: 5000,
    makeNodes: zone1,
    init: [ops(5000, podNodeAffinity, 'namespace-1')],
    measure: ops(10000, podNodeAffinity, 'namespace-2'),
  },
  spreading('DoNotSchedule', 460),
  spreading('ScheduleAnyway', 340),
  {
    name: 'DefaultTopologySpreading/5000Nodes_50000Pods',
    file: 'topology_spreading/performance-config.yaml',
    threshold: 160,
    nodes: 5000,
    makeNodes: moons,
    init: [ops(5000, podDefault, 'namespace-2')],
    measure: ops(50000, podWithLabel, 'service-ns'),
    // templates/service.yaml in service-ns: selects app=scheduler-perf (default spreading).
    objects: [
      {
        kind: 'Service',
        object: {
          kind: 'Service',
          metadata: { name: 'service-0', namespace: 'service-ns', uid: 'service-0' },
          spec: { selector: { app: 'scheduler-perf' } },
        },
        origin: 'templates/service.yaml',
      },
    ],
  },
  {
    name: 'PreemptionAsync/5000Nodes',
    file: 'default_preemption/performance-config.yaml',
    threshold: 570,
    nodes: 5000,
    makeNodes: defaults(),
    init: [ops(20000, podLowPriority, 'namespace-1')],
    measure: ops(5000, podDefault, 'namespace-3'),
    churn: { mode: 'create', intervalMs: 200, pod: podPreemptor },
  },
  {
    name: 'Unschedulable/5kNodes/20kInit/10kPods',
    file: 'default_preemption/performance-config.yaml',
    threshold: 600,
    nodes: 5000,
    makeNodes: defaults(),
    init: [ops(20000, podDefault, 'namespace-1')],
    measure: ops(10000, podDefault, 'namespace-3'),
    churn: { mode: 'create', intervalMs: 200, pod: podHighPriorityLargeCpu },
  },
  {
    name: 'SchedulingWithMixedChurn/5000Nodes_10000Pods',
    file: 'misc/performance-config.yaml',
    threshold: 710,
    nodes: 5000,
    makeNodes: defaults(),
    init: [],
    measure: ops(10000, podDefault, 'namespace-2'),
    churn: {
      mode: 'recreate',
      intervalMs: 1000,
      pod: podHighPriorityLargeCpu,
      node: churnNode,
      missing: 'the Service (churn/service-default.yaml): the simulator scripts no Service changes',
    },
  },
];
