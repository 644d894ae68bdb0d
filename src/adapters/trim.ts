// Projects full Kubernetes objects onto the fields scheduling reads, before they enter the log.
import type { ContainerObject, NodeObject, PodObject } from '../cluster/objects.ts';

type Loose = Record<string, unknown>;

function obj(value: unknown): Loose | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Loose)
    : undefined;
}

function pick<T extends Loose>(source: Loose | undefined, keys: readonly string[]): T | undefined {
  if (source === undefined) return undefined;
  const out: Loose = {};
  for (const k of keys) if (source[k] !== undefined) out[k] = source[k];
  return out as T;
}

const metaKeys = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'labels',
  'creationTimestamp',
  'deletionTimestamp',
];

function trimContainers(value: unknown): ContainerObject[] | undefined {
  if (!Array.isArray(value)) return value === undefined ? undefined : (value as ContainerObject[]);
  return value.map((c) => {
    const container = obj(c);
    if (container === undefined) return c as ContainerObject;
    const resources = obj(container.resources);
    return {
      ...pick(container, ['name', 'restartPolicy']),
      ...(resources === undefined ? {} : { resources: pick(resources, ['requests']) }),
    } as ContainerObject;
  });
}

/**
 * Keeps only what the reducer reads from a Pod. Never throws; odd shapes pass through
 * as they are (the reducer turns them into explainable states).
 */
export function trimPod(raw: unknown): PodObject {
  const pod = obj(raw) ?? {};
  const spec = obj(pod.spec) ?? {};
  const status = obj(pod.status);
  const affinity = obj(spec.affinity);
  const trimmedSpec: Loose = {
    ...pick(spec, [
      'nodeName',
      'schedulerName',
      'priority',
      'priorityClassName',
      'preemptionPolicy',
      'nodeSelector',
      'tolerations',
      'overhead',
    ]),
  };
  if (affinity?.nodeAffinity !== undefined)
    trimmedSpec.affinity = { nodeAffinity: affinity.nodeAffinity };
  const containers = trimContainers(spec.containers);
  if (containers !== undefined) trimmedSpec.containers = containers;
  const initContainers = trimContainers(spec.initContainers);
  if (initContainers !== undefined) trimmedSpec.initContainers = initContainers;
  const trimmed: Loose = {
    metadata: pick(obj(pod.metadata), metaKeys) ?? pod.metadata,
    spec: trimmedSpec,
  };
  if (status?.phase !== undefined) trimmed.status = { phase: status.phase };
  return trimmed as unknown as PodObject;
}

/** Keeps only what the reducer reads from a Node. Never throws. */
export function trimNode(raw: unknown): NodeObject {
  const node = obj(raw) ?? {};
  const spec = obj(node.spec);
  const status = obj(node.status);
  const trimmed: Loose = { metadata: pick(obj(node.metadata), metaKeys) ?? node.metadata };
  const trimmedSpec = pick(spec, ['unschedulable', 'taints']);
  if (trimmedSpec !== undefined && Object.keys(trimmedSpec).length > 0) trimmed.spec = trimmedSpec;
  const trimmedStatus = pick(status, ['allocatable', 'capacity']);
  if (trimmedStatus !== undefined) trimmed.status = trimmedStatus;
  return trimmed as unknown as NodeObject;
}
