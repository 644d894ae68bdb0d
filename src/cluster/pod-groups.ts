// PodGroups (scheduler-plugins' scheduling.x-k8s.io/v1alpha1) as berth's group model reads them, and pod membership.
import { isRecord, nonEmptyString } from './fields.ts';
import type { LabeledPod } from './labeled-pod.ts';
import { parseQuantityAt, toMilli, toUnits } from './quantity.ts';
import { RESOURCE_FIELDS, type Resources, zeroResources } from './resources.ts';
import { parseTimestampMs } from './timestamps.ts';

/** The label a pod joins a PodGroup of its namespace with (Kubeflow's operators set it). */
export const podGroupLabel = 'scheduling.x-k8s.io/pod-group';

/**
 * The PodGroup annotation naming the node label whose domains a group must fit in (one
 * rack, block, NVLink domain): every member lands on nodes with the same value of it.
 */
export const topologyKeyAnnotation = 'berth.dev/topology-key';

/** The API group and version berth reads PodGroups from. */
export const podGroupApiVersion = 'scheduling.x-k8s.io/v1alpha1';

/**
 * A PodGroup reduced to what gang scheduling reads. The core's group model (src/core/gangs)
 * is built from this, so another source of groups (the upstream Workload API, Volcano's
 * annotation) only needs to produce the same fields.
 */
export interface PodGroupInfo {
  /** `namespace/name`, its key in the object store and the group's id. */
  key: string;
  namespace: string;
  name: string;
  /** `spec.minMember`: how many members must be placed together (≥ 1; 1 when absent or invalid). */
  minMember: number;
  /** `spec.minResources`, parsed; undefined when absent. */
  minResources: Resources | undefined;
  /** `spec.scheduleTimeoutSeconds` in ms; undefined when absent (berth's default applies). */
  scheduleTimeoutMs: number | undefined;
  /**
   * The node label keys all members must share one value of (from `berth.dev/topology-key`);
   * empty when the group has no topology constraint.
   */
  topologyKeys: string[];
  /** Why the topology annotation is unusable (the group is then not placed), or undefined. */
  topologyProblem: string | undefined;
  /** `metadata.creationTimestamp` in epoch ms; 0 when absent. */
  creationMs: number;
  /** Why part of the spec was not usable (named field), or undefined. */
  invalid: string | undefined;
}

function readMinResources(v: unknown, problems: string[]): Resources | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) {
    problems.push('spec.minResources is not an object');
    return undefined;
  }
  const r = zeroResources();
  for (const name of Object.keys(v)) {
    const parsed = parseQuantityAt(v[name], `spec.minResources.${name}`);
    if (!parsed.ok) {
      problems.push(parsed.error);
      continue;
    }
    const target = RESOURCE_FIELDS.get(name);
    if (target === 'milliCPU') r.milliCPU = toMilli(parsed.q);
    else if (target !== undefined) r[target] = toUnits(parsed.q);
    else if (name !== 'pods') r.scalar[name] = toUnits(parsed.q);
  }
  return r;
}

/**
 * Parses a PodGroup. Never throws; rejects only an object without `metadata.name`. A
 * `minMember` that is not a positive integer counts as 1 (the CRD's minimum) and is named
 * in `invalid`; so is an unparsable `minResources` quantity (it then asks for nothing of
 * that resource) or a `scheduleTimeoutSeconds` that is not a positive integer (the default
 * applies).
 */
export function parsePodGroup(raw: unknown): { value: PodGroupInfo } | { rejected: string } {
  const meta = isRecord(raw) && isRecord(raw.metadata) ? raw.metadata : undefined;
  const name = meta === undefined ? undefined : nonEmptyString(meta.name);
  if (meta === undefined || name === undefined)
    return { rejected: 'PodGroup has no metadata.name' };
  const namespace = nonEmptyString(meta.namespace) ?? 'default';
  const spec = isRecord((raw as Record<string, unknown>).spec)
    ? ((raw as Record<string, unknown>).spec as Record<string, unknown>)
    : {};
  const problems: string[] = [];
  let minMember = 1;
  if (spec.minMember !== undefined) {
    if (
      typeof spec.minMember === 'number' &&
      Number.isSafeInteger(spec.minMember) &&
      spec.minMember >= 1
    )
      minMember = spec.minMember;
    else
      problems.push(`spec.minMember ${JSON.stringify(spec.minMember)} is not a positive integer`);
  }
  let scheduleTimeoutMs: number | undefined;
  const t = spec.scheduleTimeoutSeconds;
  if (t !== undefined && t !== null) {
    if (typeof t === 'number' && Number.isSafeInteger(t) && t > 0) scheduleTimeoutMs = t * 1000;
    else
      problems.push(`spec.scheduleTimeoutSeconds ${JSON.stringify(t)} is not a positive integer`);
  }
  const minResources = readMinResources(spec.minResources, problems);
  const topology = readTopologyKey(meta.annotations);
  return {
    value: {
      key: `${namespace}/${name}`,
      namespace,
      name,
      minMember,
      minResources,
      scheduleTimeoutMs,
      topologyKeys: topology.keys,
      topologyProblem: topology.problem,
      creationMs: parseTimestampMs(meta.creationTimestamp) ?? 0,
      invalid: problems.length === 0 ? undefined : problems.join('; '),
    },
  };
}

const labelKeyPattern =
  /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** True when `key` is a node label key (optional DNS-subdomain prefix, `/`, a name). */
export function isLabelKey(key: string): boolean {
  return key.length > 0 && key.length <= 317 && labelKeyPattern.test(key);
}

/**
 * The topology key of `annotations[topologyKeyAnnotation]`: one node label key, or none
 * when the annotation is absent; a value that is not a label key is a problem, named.
 */
function readTopologyKey(annotations: unknown): { keys: string[]; problem: string | undefined } {
  const raw = isRecord(annotations) ? annotations[topologyKeyAnnotation] : undefined;
  if (raw === undefined) return { keys: [], problem: undefined };
  const key = typeof raw === 'string' ? raw.trim() : '';
  if (isLabelKey(key)) return { keys: [key], problem: undefined };
  return {
    keys: [],
    problem: `annotation ${topologyKeyAnnotation} ${JSON.stringify(raw)} is not a node label key`,
  };
}

/** The id (`namespace/name`) of the PodGroup pod `pod` joins by label, or undefined. */
export function podGroupKeyOf(pod: LabeledPod): string | undefined {
  const name = pod.labels[podGroupLabel];
  return name === undefined || name === '' ? undefined : `${pod.namespace}/${name}`;
}
