// What the API server does to manifests before a scheduler sees them: validation, defaulting, admission.

import { parseQuantity } from '../../cluster/quantity.ts';
import type { NodeObject, PodObject } from '../../model/objects.ts';
import { isRecord } from '../../model/record.ts';
import {
  ManifestError,
  type ManifestKind,
  type ManifestObject,
  type Manifests,
  type PriorityClassObject,
} from './manifests.ts';
import { admitPriority, type PriorityClassTable, priorityClassTable } from './priority.ts';

/** Objects to admit, and where each came from (for messages). */
export interface AdmissionInput {
  nodes: readonly NodeObject[];
  pods: readonly PodObject[];
  priorityClasses?: readonly PriorityClassObject[];
  /** Namespaces, workloads and volume objects, stored as they are. */
  objects?: readonly ManifestObject[];
  /** Where object `index` of `kind` came from: "FILE: document 3", "the generated workload". */
  originOf(kind: ManifestKind, index: number): string;
}

/** The cluster a scheduler would see once the API server has stored the inputs. */
export interface AdmittedCluster {
  nodes: NodeObject[];
  pods: PodObject[];
  /** Namespaces, workloads and volume objects (a later one of the same kind and key wins). */
  objects: ManifestObject[];
}

/** The scheduler name the API server gives a pod that names none. */
export const defaultSchedulerName = 'default-scheduler';
/** DefaultTolerationSeconds admission's default (300 s). */
export const defaultTolerationSeconds = 300;

const notReadyToleration = Object.freeze({
  effect: 'NoExecute',
  key: 'node.kubernetes.io/not-ready',
  operator: 'Exists',
  tolerationSeconds: defaultTolerationSeconds,
});
const unreachableToleration = Object.freeze({
  effect: 'NoExecute',
  key: 'node.kubernetes.io/unreachable',
  operator: 'Exists',
  tolerationSeconds: defaultTolerationSeconds,
});

type Loose = Record<string, unknown>;

/** Reads a set of parsed manifests as admission input. */
export function manifestInput(m: Manifests): AdmissionInput {
  return { ...m, originOf: (kind, index) => m.origins[kind][index] ?? `${kind} ${index}` };
}

/**
 * An object read back from an API server (`kubectl get -o yaml`) carries a resourceVersion,
 * which the API server refuses on create: it has been admitted already, so it is not again.
 */
function alreadyStored(pod: PodObject): boolean {
  const rv = pod.metadata.resourceVersion;
  return typeof rv === 'string' && rv !== '';
}

/**
 * The API server's defaulting of container resources: each limit stands in for a request
 * the container does not make. A limit that does not parse is not copied, so the core
 * reports it where it was written.
 */
function defaultRequests(container: unknown): unknown {
  if (!isRecord(container) || !isRecord(container.resources)) return container;
  const { limits, requests } = container.resources;
  if (!isRecord(limits) || (requests !== undefined && requests !== null && !isRecord(requests)))
    return container;
  const defaulted: Loose = { ...(requests ?? {}) };
  let added = false;
  for (const [name, value] of Object.entries(limits)) {
    if (name in defaulted || !parseQuantity(value).ok) continue;
    defaulted[name] = value;
    added = true;
  }
  if (!added) return container;
  return { ...container, resources: { ...container.resources, requests: defaulted } };
}

function defaultContainerList(list: unknown): unknown {
  return Array.isArray(list) ? list.map(defaultRequests) : list;
}

/** DefaultTolerationSeconds: a toleration of empty key or effect also covers the taint. */
function tolerates(tolerations: readonly unknown[], key: string): boolean {
  return tolerations.some(
    (t) =>
      isRecord(t) &&
      (t.key === key || t.key === undefined || t.key === '') &&
      (t.effect === 'NoExecute' || t.effect === undefined || t.effect === ''),
  );
}

function defaultTolerations(tolerations: unknown): unknown {
  if (tolerations !== undefined && tolerations !== null && !Array.isArray(tolerations))
    return tolerations;
  const list: unknown[] = tolerations ?? [];
  const added: unknown[] = [];
  if (!tolerates(list, notReadyToleration.key)) added.push(notReadyToleration);
  if (!tolerates(list, unreachableToleration.key)) added.push(unreachableToleration);
  return added.length === 0 ? list : [...list, ...added];
}

/** Throws unless the pod has at least one container, as the API server's validation does. */
function validatePod(pod: PodObject, ref: string): void {
  const containers = pod.spec.containers;
  if (!Array.isArray(containers) || containers.length === 0)
    throw new ManifestError(`${ref} is invalid: spec.containers: Required value`);
}

/**
 * One pod as the API server would store it on create: namespace `default` when none is
 * given, validated, requests defaulted from limits per container, schedulerName
 * `default-scheduler` when none is given, priority and preemptionPolicy from its
 * PriorityClass (Priority admission), and the not-ready/unreachable NoExecute tolerations
 * for 300 s (DefaultTolerationSeconds). A pod read back from an API server (it has a
 * resourceVersion) is only validated.
 */
export function admitPod(pod: PodObject, origin: string, classes: PriorityClassTable): PodObject {
  const namespace = pod.metadata.namespace;
  const metadata =
    typeof namespace === 'string' && namespace !== ''
      ? pod.metadata
      : { ...pod.metadata, namespace: 'default' };
  const ref = `${origin}: Pod ${metadata.namespace}/${metadata.name}`;
  validatePod(pod, ref);
  if (alreadyStored(pod)) return metadata === pod.metadata ? pod : { ...pod, metadata };
  const spec: Loose = { ...pod.spec };
  spec.containers = defaultContainerList(spec.containers);
  if (spec.initContainers !== undefined)
    spec.initContainers = defaultContainerList(spec.initContainers);
  if (typeof spec.schedulerName !== 'string' || spec.schedulerName === '')
    spec.schedulerName = defaultSchedulerName;
  admitPriority(spec, classes, ref);
  spec.tolerations = defaultTolerations(spec.tolerations);
  return { ...pod, metadata, spec: spec as PodObject['spec'] };
}

/** Finds a second object of one name; the message names both places. */
class NameRegistry {
  private readonly seen = new Map<string, string>();
  constructor(private readonly what: string) {}

  add(name: string, origin: string): void {
    const first = this.seen.get(name);
    if (first !== undefined)
      throw new ManifestError(
        `${origin}: ${this.what} ${name} is defined twice (first at ${first}); names must be unique`,
      );
    this.seen.set(name, origin);
  }
}

/**
 * Admits `inputs` (files, the generated workload) as one cluster, as the API server would
 * on create: every name unique (Node by name, Pod by namespace/name, PriorityClass by
 * name), PriorityClasses validated (the built-in system-cluster-critical and
 * system-node-critical always exist), then each pod through `admitPod`. Throws
 * ManifestError naming the object and where it came from for anything the API server
 * would refuse.
 */
export function admit(inputs: readonly AdmissionInput[]): AdmittedCluster {
  const classEntries: { object: PriorityClassObject; origin: string }[] = [];
  for (const input of inputs)
    for (const [i, object] of (input.priorityClasses ?? []).entries())
      classEntries.push({ object, origin: input.originOf('PriorityClass', i) });
  const classes = priorityClassTable(classEntries);
  const nodeNames = new NameRegistry('Node');
  const nodes: NodeObject[] = [];
  for (const input of inputs)
    for (const [i, node] of input.nodes.entries()) {
      nodeNames.add(node.metadata.name, input.originOf('Node', i));
      nodes.push(node);
    }
  const podNames = new NameRegistry('Pod');
  const pods: PodObject[] = [];
  for (const input of inputs)
    for (const [i, pod] of input.pods.entries()) {
      const admitted = admitPod(pod, input.originOf('Pod', i), classes);
      podNames.add(
        `${admitted.metadata.namespace}/${admitted.metadata.name}`,
        input.originOf('Pod', i),
      );
      pods.push(admitted);
    }
  const objects: ManifestObject[] = [];
  for (const input of inputs) for (const o of input.objects ?? []) objects.push(o);
  return { nodes, pods, objects };
}
