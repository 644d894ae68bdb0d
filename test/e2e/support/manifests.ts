// Builders for the objects e2e tests create: kwok Nodes with explicit capacity, Pods, Namespaces.
import { stringify } from 'yaml';

/** A Kubernetes object as plain data. */
export type Manifest = Record<string, unknown>;

/** A node taint. */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** What a kwok node offers. */
export interface NodeOptions {
  cpu: string;
  memory: string;
  pods?: number;
  labels?: Record<string, string>;
  taints?: Taint[];
}

/**
 * A Node for kwok (annotation kwok.x-k8s.io/node: fake, label type: kwok) with capacity and
 * allocatable set explicitly (kwok's defaults are huge) and no kwok taint.
 */
export function kwokNode(name: string, opts: NodeOptions): Manifest {
  const resources = { cpu: opts.cpu, memory: opts.memory, pods: String(opts.pods ?? 110) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { 'kwok.x-k8s.io/node': 'fake' },
      labels: {
        type: 'kwok',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        ...opts.labels,
      },
    },
    ...(opts.taints === undefined ? {} : { spec: { taints: opts.taints } }),
    status: { capacity: resources, allocatable: { ...resources } },
  };
}

/** What a test pod asks for. */
export interface PodOptions {
  cpu?: string;
  memory?: string;
  /** `berth` unless given; `null` leaves it out (the default scheduler's pod). */
  schedulerName?: string | null;
  nodeSelector?: Record<string, string>;
  affinity?: Manifest;
  tolerations?: Manifest[];
  labels?: Record<string, string>;
  /** Names of `spec.schedulingGates`. */
  schedulingGates?: string[];
}

/** A bare Pod with one container requesting `cpu`/`memory` (100m / 64Mi by default). */
export function pod(name: string, namespace: string, opts: PodOptions = {}): Manifest {
  const schedulerName = opts.schedulerName === undefined ? 'berth' : opts.schedulerName;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app: 'berth-e2e', ...opts.labels } },
    spec: {
      ...(schedulerName === null ? {} : { schedulerName }),
      ...(opts.nodeSelector === undefined ? {} : { nodeSelector: opts.nodeSelector }),
      ...(opts.affinity === undefined ? {} : { affinity: opts.affinity }),
      ...(opts.tolerations === undefined ? {} : { tolerations: opts.tolerations }),
      ...(opts.schedulingGates === undefined
        ? {}
        : { schedulingGates: opts.schedulingGates.map((name) => ({ name })) }),
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name: 'c',
          image: 'registry.k8s.io/pause:3.10',
          resources: {
            requests: { cpu: opts.cpu ?? '100m', memory: opts.memory ?? '64Mi' },
          },
        },
      ],
    },
  };
}

/** `count` pods named `${prefix}-0 … ${prefix}-(count−1)` with the same options. */
export function pods(prefix: string, namespace: string, count: number, opts: PodOptions = {}) {
  return Array.from({ length: count }, (_, i) => pod(`${prefix}-${i}`, namespace, opts));
}

/** A Namespace. */
export function namespace(name: string): Manifest {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** Multi-document YAML of `objects`, as kubectl and `berth simulate --cluster` read it. */
export function toYaml(objects: Manifest[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

/** A DeviceClass named after `driver`, selecting every device of that driver. */
export function deviceClass(driver: string): Manifest {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: driver },
    spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
  };
}
