// Builds the scheduling view of a Pod (PodInfo) from an untrusted object, totally.
import { podKey } from '../model/keys.ts';
import { type KubeRelease, unrecordedKubeRelease } from '../model/kube-release.ts';
import type { Amount } from './amount.ts';
import { parseNodeAffinity, parseNodeSelector, parseTolerations } from './constraints.ts';
import { bothGroupsReason, parseSchedulingGroup } from './core-pod-groups.ts';
import { requiredNodeFeatures } from './declared-features.ts';
import { emptyRecord, isRecord, nonEmptyString, stringEntries } from './fields.ts';
import { parsePodImages, parsePodImageVolumes } from './images.ts';
import { parseControllerRef } from './owner-ref.ts';
import { parsePodAffinity } from './pod-affinity.ts';
import { parsePodResourceClaims } from './pod-claims.ts';
import { parseExtendedContainers } from './pod-extended.ts';
import { parseHostPorts, parseSchedulingGates } from './pod-fields.ts';
import { podGroupLabel } from './pod-groups.ts';
import { parsePodVolumes } from './pod-volumes.ts';
import { podRequestsOf } from './requests-cache.ts';
import { noSpreadConstraints, parseSpreadConstraints } from './spread-constraints.ts';
import { parseTimestampMs } from './timestamps.ts';
import type { PodInfo } from './types.ts';
import { unsupportedConstraint } from './unsupported.ts';

/** `{ resourceClaims }` when the pod has DRA claims, else nothing (no field on most pods). */
function claimsOf(spec: Record<string, unknown>, status: Record<string, unknown>) {
  const resourceClaims = parsePodResourceClaims(spec, status);
  return resourceClaims === undefined ? {} : { resourceClaims };
}

/** `{ extendedContainers }` when a container requests an extended resource, else nothing. */
function extendedOf(spec: Record<string, unknown>) {
  const extendedContainers = parseExtendedContainers(spec);
  return extendedContainers === undefined ? {} : { extendedContainers };
}

/** Scheduler name a pod gets when it names none (as the API server defaults it). */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
/** Preemption policy a pod gets when it names none. */
export const DEFAULT_PREEMPTION_POLICY = 'PreemptLowerPriority';

/** The condition type the scheduler sets on the victims it preempts. */
export const DISRUPTION_TARGET = 'DisruptionTarget';
/** The reason of that condition when the scheduler preempted the pod. */
export const PREEMPTION_BY_SCHEDULER = 'PreemptionByScheduler';

/**
 * kube's podTerminatingByPreemption, its condition half: the first `DisruptionTarget`
 * entry of `status.conditions` is `True` with reason `PreemptionByScheduler`. Never throws.
 */
export function preemptedBySchedulerCondition(conditions: unknown): boolean {
  if (!Array.isArray(conditions)) return false;
  for (const c of conditions) {
    if (isRecord(c) && c.type === DISRUPTION_TARGET)
      return c.status === 'True' && c.reason === PREEMPTION_BY_SCHEDULER;
  }
  return false;
}

const noScalarNames: readonly string[] = Object.freeze([]);

/**
 * The scalar resources `scalar` requests a non-zero amount of, in key order; a shared frozen
 * empty list when there are none (most pods), so that no list is made per pod.
 */
function requestedScalarNames(scalar: Readonly<Record<string, Amount>>): readonly string[] {
  let names: string[] | undefined;
  for (const k of Object.keys(scalar)) {
    if (scalar[k] === 0) continue;
    names ??= [];
    names.push(k);
  }
  return names ?? noScalarNames;
}

/**
 * Parses a Pod object, its requests charged as kube-scheduler `release` charges them. Never
 * throws. Rejects only a pod that cannot be identified (not an object, or no non-empty string
 * `metadata.name`); every other defect is defaulted or, when it would change where the pod
 * may run, reported in `invalid` naming the field.
 */
export function podInfoFromObject(
  obj: unknown,
  release: KubeRelease = unrecordedKubeRelease,
): PodInfo | { rejected: string } {
  if (!isRecord(obj)) return { rejected: 'pod is not an object' };
  const meta = isRecord(obj.metadata) ? obj.metadata : emptyRecord<unknown>();
  const name = nonEmptyString(meta.name);
  if (name === undefined) return { rejected: 'pod has no metadata.name' };
  const namespace = nonEmptyString(meta.namespace) ?? 'default';
  const spec = isRecord(obj.spec) ? obj.spec : emptyRecord<unknown>();
  const status = isRecord(obj.status) ? obj.status : emptyRecord<unknown>();

  const reqs = podRequestsOf(obj.spec, obj.status, release);
  let invalid = reqs.invalid;
  const selector = parseNodeSelector(spec.nodeSelector, 'spec.nodeSelector');
  if (!selector.ok) invalid ??= selector.error;
  const affinity = parseNodeAffinity(spec.affinity, 'spec.affinity');
  if (!affinity.ok) invalid ??= affinity.error;
  const labels = stringEntries(meta.labels);
  const spread = parseSpreadConstraints(spec.topologySpreadConstraints, labels);
  if (!spread.ok) invalid ??= spread.error;
  const podAffinity = parsePodAffinity(spec.affinity, namespace, labels);
  invalid ??= podAffinity.error;
  const group = parseSchedulingGroup(spec);
  const schedulingGroup = typeof group === 'string' ? group : undefined;
  if (typeof group === 'object') invalid ??= group.invalid;
  const groupLabel = labels[podGroupLabel];
  if (schedulingGroup !== undefined && groupLabel !== undefined && groupLabel !== '')
    invalid ??= bothGroupsReason(groupLabel, schedulingGroup);

  const creationMs = parseTimestampMs(meta.creationTimestamp) ?? 0;
  const deletion = meta.deletionTimestamp;
  const key = podKey(namespace, name);
  return {
    uid: nonEmptyString(meta.uid) ?? key,
    key,
    namespace,
    name,
    labels,
    schedulerName: nonEmptyString(spec.schedulerName) ?? DEFAULT_SCHEDULER_NAME,
    priority:
      typeof spec.priority === 'number' && Number.isFinite(spec.priority) ? spec.priority : 0,
    preemptionPolicy: nonEmptyString(spec.preemptionPolicy) ?? DEFAULT_PREEMPTION_POLICY,
    creationMs,
    generation:
      typeof meta.generation === 'number' && Number.isSafeInteger(meta.generation)
        ? meta.generation
        : 0,
    nodeName: nonEmptyString(spec.nodeName),
    phase: nonEmptyString(status.phase) ?? 'Pending',
    terminating: deletion !== undefined && deletion !== null && deletion !== '',
    startMs: parseTimestampMs(status.startTime),
    preemptedByScheduler: preemptedBySchedulerCondition(status.conditions),
    requests: reqs.requests,
    scalarRequestNames: requestedScalarNames(reqs.requests.scalar),
    nonZeroRequests: reqs.nonZeroRequests,
    invalid,
    nodeSelector: selector.ok ? selector.value : emptyRecord(),
    requiredNodeAffinity: affinity.ok ? affinity.value.required : undefined,
    preferredNodeAffinity: affinity.ok ? affinity.value.preferred : [],
    tolerations: parseTolerations(spec.tolerations),
    schedulingGates: parseSchedulingGates(spec.schedulingGates),
    ...(schedulingGroup === undefined ? {} : { schedulingGroup }),
    ...claimsOf(spec, status),
    nominatedNodeName: nonEmptyString(status.nominatedNodeName),
    statusNominatedNodeName: nonEmptyString(status.nominatedNodeName),
    hostPorts: parseHostPorts(spec),
    spreadConstraints: spread.ok ? spread.value : noSpreadConstraints,
    podAffinity: podAffinity.value,
    images: parsePodImages(spec),
    imageVolumes: parsePodImageVolumes(spec),
    volumes: parsePodVolumes(spec),
    requiredNodeFeatures: requiredNodeFeatures(obj.spec),
    controllerRef: parseControllerRef(meta.ownerReferences),
    unsupported: unsupportedConstraint(obj.spec),
    ...extendedOf(spec),
  };
}
