// Small builders for raw Pod and Node manifests (the shapes that enter the event log) in tests.
import type {
  ContainerObject,
  NodeObject,
  PodObject,
  RawResourceList,
  Taint,
} from '../../src/model/objects.ts';

/** Options for {@link podObject}; anything omitted is left out of the manifest. */
export interface PodOptions {
  namespace?: string;
  nodeName?: string;
  phase?: string;
  /** Requests of a single app container (ignored when `containers` is given). */
  requests?: RawResourceList;
  containers?: ContainerObject[];
  initContainers?: ContainerObject[];
  overhead?: RawResourceList;
  labels?: Record<string, string>;
  priority?: number;
  schedulerName?: string;
  deletionTimestamp?: string;
  creationTimestamp?: string;
}

/** A container with the given requests. */
export function container(requests: RawResourceList, restartPolicy?: string): ContainerObject {
  const c: ContainerObject = { name: 'c', resources: { requests } };
  if (restartPolicy !== undefined) c.restartPolicy = restartPolicy;
  return c;
}

/** A pod manifest named `name` (namespace "default" unless given). */
export function podObject(name: string, o: PodOptions = {}): PodObject {
  const pod: PodObject = {
    metadata: { name, namespace: o.namespace ?? 'default' },
    spec: { containers: o.containers ?? [container(o.requests ?? {})] },
  };
  if (o.labels !== undefined) pod.metadata.labels = o.labels;
  if (o.deletionTimestamp !== undefined) pod.metadata.deletionTimestamp = o.deletionTimestamp;
  if (o.creationTimestamp !== undefined) pod.metadata.creationTimestamp = o.creationTimestamp;
  if (o.nodeName !== undefined) pod.spec.nodeName = o.nodeName;
  if (o.initContainers !== undefined) pod.spec.initContainers = o.initContainers;
  if (o.overhead !== undefined) pod.spec.overhead = o.overhead;
  if (o.priority !== undefined) pod.spec.priority = o.priority;
  if (o.schedulerName !== undefined) pod.spec.schedulerName = o.schedulerName;
  if (o.phase !== undefined) pod.status = { phase: o.phase };
  return pod;
}

/** Options for {@link nodeObject}. */
export interface NodeOptions {
  /** `status.allocatable`; defaults to 4 cpu, 8Gi memory, 110 pods. */
  allocatable?: RawResourceList;
  labels?: Record<string, string>;
  taints?: Taint[];
  unschedulable?: boolean;
}

/** A node manifest named `name`. */
export function nodeObject(name: string, o: NodeOptions = {}): NodeObject {
  const node: NodeObject = {
    metadata: { name },
    status: { allocatable: o.allocatable ?? { cpu: '4', memory: '8Gi', pods: '110' } },
  };
  if (o.labels !== undefined) node.metadata.labels = o.labels;
  if (o.taints !== undefined || o.unschedulable !== undefined) {
    node.spec = {};
    if (o.taints !== undefined) node.spec.taints = o.taints;
    if (o.unschedulable !== undefined) node.spec.unschedulable = o.unschedulable;
  }
  return node;
}
