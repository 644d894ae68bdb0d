// Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1, KEP-4671) as berth's group model reads them, and which group a pod joins.
import { type CorePodGroupFields, readCorePodGroupFields } from './core-pod-group-fields.ts';
import { isRecord, nonEmptyString } from './fields.ts';
import { noPodGroupClaims, type PodGroupClaims, parsePodGroupClaims } from './pod-group-claims.ts';
import { podGroupLabel } from './pod-groups.ts';
import { parseTimestampMs } from './timestamps.ts';

/** The API group and version berth reads the core PodGroups from (served with gate GenericWorkload). */
export const corePodGroupApiVersion = 'scheduling.k8s.io/v1beta1';

/**
 * What follows `namespace/name` in a core PodGroup's group id, telling it from a
 * scheduler-plugins PodGroup's (`namespace/name`) in the same namespace; it reads well in
 * the messages that name the group.
 */
const coreKeySuffix = ' (scheduling.k8s.io)';

/**
 * A core PodGroup reduced to what berth's gang scheduling reads. Everything the scheduler
 * needs is on the PodGroup itself (its controller copies the Workload's template into it),
 * so Workloads are not read.
 */
export interface CorePodGroupInfo extends CorePodGroupFields {
  /** `namespace/name`, its key in the object store. */
  key: string;
  /** `metadata.uid`, if known (an Event about a preemption for the group names it). */
  uid?: string;
  namespace: string;
  name: string;
  /** `spec.schedulingPolicy`: `gang` (all-or-nothing) or `basic` (no group constraint). */
  policy: 'basic' | 'gang';
  /** `spec.schedulingPolicy.gang.minCount` for a gang; 1 for `basic` or when invalid. */
  minCount: number;
  /** `metadata.creationTimestamp` in epoch ms; 0 when absent. */
  creationMs: number;
  /** `metadata.generation`, written as the condition's observedGeneration; 0 when absent. */
  generation: number;
  /** Whether `status.conditions` already holds PodGroupInitiallyScheduled=True (kube never regresses it). */
  initiallyScheduled: boolean;
  /** Why the spec cannot be honoured as written (named fields, `unusable`'s among them), or undefined. */
  invalid: string | undefined;
  /** `spec.resourceClaims` shared by the members (see pod-group-claims.ts); absent when none. */
  resourceClaims?: PodGroupClaims;
}

function readPolicy(
  spec: Record<string, unknown>,
  problems: string[],
): Pick<CorePodGroupInfo, 'policy' | 'minCount'> {
  const policy = spec.schedulingPolicy;
  if (!isRecord(policy)) {
    problems.push('spec.schedulingPolicy is missing');
    return { policy: 'basic', minCount: 1 };
  }
  const hasGang = isRecord(policy.gang);
  if (hasGang && isRecord(policy.basic)) {
    problems.push('spec.schedulingPolicy sets both basic and gang');
    return { policy: 'basic', minCount: 1 };
  }
  if (!hasGang) {
    if (!isRecord(policy.basic)) problems.push('spec.schedulingPolicy sets neither basic nor gang');
    return { policy: 'basic', minCount: 1 };
  }
  const min = (policy.gang as Record<string, unknown>).minCount;
  if (typeof min === 'number' && Number.isSafeInteger(min) && min >= 1)
    return { policy: 'gang', minCount: min };
  problems.push(
    `spec.schedulingPolicy.gang.minCount ${JSON.stringify(min)} is not a positive integer`,
  );
  return { policy: 'gang', minCount: 1 };
}

function initiallyScheduled(status: unknown): boolean {
  const conditions = isRecord(status) ? status.conditions : undefined;
  if (!Array.isArray(conditions)) return false;
  return conditions.some(
    (c) => isRecord(c) && c.type === 'PodGroupInitiallyScheduled' && c.status === 'True',
  );
}

/**
 * Parses a scheduling.k8s.io/v1beta1 PodGroup. Never throws; rejects only an object
 * without `metadata.name`. A missing or contradictory `schedulingPolicy` counts as
 * `basic` and a gang `minCount` that is not a positive integer as 1, each named in
 * `invalid`; bad topology, priority, preemptionPolicy or disruptionMode values are named
 * in `unusable` (and `invalid`), see `readCorePodGroupFields`.
 */
export function parseCorePodGroup(
  raw: unknown,
): { value: CorePodGroupInfo } | { rejected: string } {
  const meta = isRecord(raw) && isRecord(raw.metadata) ? raw.metadata : undefined;
  const name = meta === undefined ? undefined : nonEmptyString(meta.name);
  if (meta === undefined || name === undefined)
    return { rejected: 'PodGroup (scheduling.k8s.io/v1beta1) has no metadata.name' };
  const namespace = nonEmptyString(meta.namespace) ?? 'default';
  const obj = raw as Record<string, unknown>;
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const problems: string[] = [];
  const policy = readPolicy(spec, problems);
  const fields = readCorePodGroupFields(spec);
  if (fields.unusable !== undefined) problems.push(fields.unusable);
  const resourceClaims = parsePodGroupClaims(spec, obj.status, meta.uid);
  problems.push(...resourceClaims.problems);
  const generation = meta.generation;
  return {
    value: {
      key: `${namespace}/${name}`,
      ...(typeof meta.uid === 'string' && meta.uid !== '' ? { uid: meta.uid } : {}),
      namespace,
      name,
      ...policy,
      ...fields,
      creationMs: parseTimestampMs(meta.creationTimestamp) ?? 0,
      generation:
        typeof generation === 'number' && Number.isSafeInteger(generation) ? generation : 0,
      initiallyScheduled: initiallyScheduled(obj.status),
      invalid: problems.length === 0 ? undefined : problems.join('; '),
      ...(resourceClaims === noPodGroupClaims ? {} : { resourceClaims }),
    },
  };
}

/**
 * The PodGroup a pod names in `spec.schedulingGroup.podGroupName`: the name, undefined when
 * the pod names none, or `{ invalid }` when the field is there but unusable.
 */
export function parseSchedulingGroup(spec: unknown): string | undefined | { invalid: string } {
  const group = isRecord(spec) ? spec.schedulingGroup : undefined;
  if (group === undefined || group === null) return undefined;
  if (!isRecord(group)) return { invalid: 'spec.schedulingGroup is not an object' };
  const name = group.podGroupName;
  if (typeof name === 'string' && name !== '') return name;
  return { invalid: 'spec.schedulingGroup names no podGroupName' };
}

/** The reason a pod naming groups of both APIs is refused. */
export function bothGroupsReason(label: string, schedulingGroup: string): string {
  return `pod names two pod groups: label ${podGroupLabel}=${label} (scheduling.x-k8s.io/v1alpha1) and spec.schedulingGroup.podGroupName=${schedulingGroup} (${corePodGroupApiVersion}); berth schedules a pod in one group only`;
}

/** The group id of core PodGroup `namespace/name` (apart from scheduler-plugins' ids). */
export function coreGroupKey(namespace: string, name: string): string {
  return `${namespace}/${name}${coreKeySuffix}`;
}

/** The core PodGroup's `namespace/name` a group id names, or undefined for a scheduler-plugins id. */
export function corePodGroupKeyOfGroup(groupKey: string): string | undefined {
  return groupKey.endsWith(coreKeySuffix)
    ? groupKey.slice(0, groupKey.length - coreKeySuffix.length)
    : undefined;
}

/** What group membership reads of a pod (a PodInfo is one). */
export interface GroupedPod {
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `spec.schedulingGroup.podGroupName`, if the pod names one. */
  readonly schedulingGroup?: string | undefined;
}

/**
 * The id of the group pod `pod` joins: its core PodGroup's (`spec.schedulingGroup`) or its
 * scheduler-plugins PodGroup's (label); undefined when it names none, or both (such a pod
 * is refused as invalid, see `bothGroupsReason`).
 */
export function groupKeyOf(pod: GroupedPod): string | undefined {
  const label = pod.labels[podGroupLabel];
  const core = pod.schedulingGroup;
  if (core !== undefined)
    return label === undefined || label === '' ? coreGroupKey(pod.namespace, core) : undefined;
  return label === undefined || label === '' ? undefined : `${pod.namespace}/${label}`;
}
