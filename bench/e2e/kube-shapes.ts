// kube scheduler_perf's objects for the end-to-end bench: its base node (a static Node with status) and pod-default.yaml.
import type { Manifest } from '../../test/e2e/support/manifests.ts';

/** The name of static node `i`. */
export const staticNodeName = (i: number) => `node-${i}`;

/**
 * Node `i` as scheduler_perf's makeBaseNode (test/integration/scheduler_perf/util.go): no
 * labels but `kubernetes.io/hostname` and `labels`, capacity and allocatable 4 cpu, 32Gi, 110 pods,
 * phase Running, Ready. A plain object: nothing renews its lease or status (no kwok).
 */
export function staticNode(i: number, labels: Record<string, string> = {}): Manifest {
  const name = staticNodeName(i);
  const resources = { cpu: '4', memory: '32Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    spec: {},
    status: {
      capacity: resources,
      allocatable: { ...resources },
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

/** What varies between scheduler_perf's pod templates here. */
export interface KubePodOptions {
  /** Creates it already bound (an init pod). */
  nodeName?: string;
  /** templates/pod-with-pod-anti-affinity.yaml: label `color: green`, and no two such pods
   * (in `antiAffinityNamespaces`) on one `kubernetes.io/hostname`. */
  antiAffinityNamespaces?: string[];
  /** templates/pod-with-topology-spreading.yaml: label `color: blue`, spread over
   * `topology.kubernetes.io/zone` with maxSkew 5, DoNotSchedule. */
  spread?: boolean;
}

/** scheduler_perf's zones (labelNodePrepareStrategy of TopologySpreading), node `i`'s in turn. */
export const zoneOf = (i: number) => ({
  'topology.kubernetes.io/zone': ['moon-1', 'moon-2', 'moon-3'][i % 3] as string,
});

/**
 * A pod as scheduler_perf's templates/pod-default.yaml: one pause container with port 80,
 * requests and limits 100m / 500Mi; with `antiAffinityNamespaces`, as
 * pod-with-pod-anti-affinity.yaml. `schedulerName` null leaves it out (kube-scheduler's pod).
 */
export function kubeDefaultPod(
  name: string,
  namespace: string,
  schedulerName: string | null,
  opts: KubePodOptions = {},
): Manifest {
  const resources = { cpu: '100m', memory: '500Mi' };
  const pause = {
    name: 'pause',
    image: 'registry.k8s.io/pause:3.10.2',
    ports: [{ containerPort: 80 }],
    resources: { limits: resources, requests: { ...resources } },
  };
  const spec: Manifest = { containers: [pause] };
  const metadata: Manifest = { name, namespace };
  if (schedulerName !== null) spec.schedulerName = schedulerName;
  if (opts.nodeName !== undefined) spec.nodeName = opts.nodeName;
  const namespaces = opts.antiAffinityNamespaces;
  if (namespaces !== undefined) {
    metadata.labels = { color: 'green' };
    spec.affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: { color: 'green' } },
            topologyKey: 'kubernetes.io/hostname',
            namespaces,
          },
        ],
      },
    };
  }
  if (opts.spread === true) {
    metadata.labels = { color: 'blue' };
    spec.topologySpreadConstraints = [
      {
        maxSkew: 5,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { color: 'blue' } },
      },
    ];
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}
