// In-place resize: what kube-scheduler charges a pod whose resize is pending or in progress, by release.
import { type KubeRelease, releaseAtLeast } from '../model/kube-release.ts';
import { isRecord } from './fields.ts';
import {
  type Aggregated,
  type Amounts,
  aggregate,
  maxInto,
  note,
  type Problems,
  readOptionalList,
  withDefaults,
} from './requests-amounts.ts';

/**
 * Which of kube's PodRequests rules (component-helpers/resource, UseStatusResources on since
 * InPlacePodVerticalScaling went beta in 1.33) a release follows.
 */
export interface ResizeRules {
  /**
   * 1.36+ (InPlacePodLevelResourcesVerticalScaling beta, on): pod-level requests are charged
   * with the pod's `status.resources.requests` and `status.allocatedResources`.
   */
  podLevelStatus: boolean;
  /**
   * 1.37+: max of the aggregates (spec, allocated, actuated, each summed over the containers)
   * instead of the aggregate of each container's max; every container's status counts,
   * init containers' and statuses without `resources` included.
   */
  maxOfAggregates: boolean;
}

/** The rules of `release`. */
export function resizeRules(release: KubeRelease): ResizeRules {
  return {
    podLevelStatus: releaseAtLeast(release, '1.36'),
    maxOfAggregates: releaseAtLeast(release, '1.37'),
  };
}

/** One container status: what the kubelet actuated and allocated. */
export interface ContainerStatusLists {
  /** `resources.requests`, when set (kube's Actuated). */
  actuated: Amounts | undefined;
  /** `allocatedResources`, when set. */
  allocated: Amounts | undefined;
  /** `resources` is set: 1.34–1.36 read a container's status only then. */
  hasResources: boolean;
}

/** What in-place resize makes kube read from `status`. */
export interface ResizeStatus {
  /** Container name → its status (init and app containers alike, by name). */
  byName: Map<string, ContainerStatusLists>;
  /** A `PodResizePending` condition with reason `Infeasible`: the spec is not charged. */
  infeasible: boolean;
  /** `status.resources` is set (pod-level; read from 1.36). */
  podHasResources: boolean;
  /** `status.resources.requests`, when set (pod-level). */
  podActuated: Amounts | undefined;
  /** `status.allocatedResources`, when set (pod-level). */
  podAllocated: Amounts | undefined;
}

function readStatusList(
  list: unknown,
  path: string,
  rules: ResizeRules,
  into: ResizeStatus,
  problems: Problems,
): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) {
    note(problems, `${path} is not a list`);
    return;
  }
  list.forEach((cs: unknown, i) => {
    if (!isRecord(cs) || typeof cs.name !== 'string') return;
    const hasResources = isRecord(cs.resources);
    // Before 1.37 a status without `resources` is not read at all (nor its problems).
    if (!hasResources && !rules.maxOfAggregates) return;
    const at = `${path}[${i}]`;
    const requests = hasResources ? (cs.resources as Record<string, unknown>).requests : undefined;
    const actuated = readOptionalList(requests, `${at}.resources.requests`, problems);
    const allocated = readOptionalList(cs.allocatedResources, `${at}.allocatedResources`, problems);
    into.byName.set(cs.name, { actuated, allocated, hasResources });
  });
}

/** Reads the resize fields of a pod's (untrusted) `status` that `rules` read. Never throws. */
export function readResizeStatus(
  status: unknown,
  rules: ResizeRules,
  problems: Problems,
): ResizeStatus {
  const out: ResizeStatus = {
    byName: new Map(),
    infeasible: false,
    podHasResources: false,
    podActuated: undefined,
    podAllocated: undefined,
  };
  if (!isRecord(status)) return out;
  readStatusList(status.containerStatuses, 'status.containerStatuses', rules, out, problems);
  readStatusList(
    status.initContainerStatuses,
    'status.initContainerStatuses',
    rules,
    out,
    problems,
  );
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const resize = conditions.find((c: unknown) => isRecord(c) && c.type === 'PodResizePending');
  out.infeasible = isRecord(resize) && resize.reason === 'Infeasible';
  if (rules.podLevelStatus) {
    out.podHasResources = isRecord(status.resources);
    const requests = out.podHasResources
      ? (status.resources as Record<string, unknown>).requests
      : undefined;
    out.podActuated = readOptionalList(requests, 'status.resources.requests', problems);
    out.podAllocated = readOptionalList(
      status.allocatedResources,
      'status.allocatedResources',
      problems,
    );
  }
  return out;
}

/**
 * kube 1.34–1.36's charge of one container (determineContainerReqs): with a status that has
 * `resources`, an app container or sidecar is charged max(spec, actuated, allocated), without
 * the spec when the resize is infeasible; otherwise (ordinary init containers included) its spec.
 */
export function containerCharge(
  spec: Amounts,
  status: ContainerStatusLists | undefined,
  readsStatus: boolean,
  infeasible: boolean,
): Amounts {
  if (!readsStatus || status === undefined || !status.hasResources) return spec;
  const effective: Amounts = infeasible ? new Map() : new Map(spec);
  if (status.actuated !== undefined) maxInto(effective, status.actuated);
  if (status.allocated !== undefined) maxInto(effective, status.allocated);
  return effective;
}

/** A container as kube 1.37's aggregates read it. */
export interface StatusedContainer extends Aggregated {
  name: string | undefined;
  spec: Amounts;
}

const none: Amounts = new Map();

/**
 * kube 1.37's AggregateContainerRequests with UseStatusResources: the per-resource max of
 * the spec aggregate, the actuated aggregate and the allocated aggregate (without the spec
 * when the resize is infeasible). With pod-level status lists (`status.allocatedResources`
 * and `status.resources.requests` both set) those stand for the last two. A container's
 * allocated list is its status's `allocatedResources`, its actuated one its
 * `resources.requests` or else its `allocatedResources`; without them, its spec (nothing when
 * infeasible). `defaults` (the non-zero requests) fill each container's lists, not the pod's.
 */
export function chargeSince137<C extends StatusedContainer>(
  app: readonly C[],
  init: readonly C[],
  resize: ResizeStatus,
  defaults: Amounts | undefined,
): Amounts {
  const fill = (a: Amounts) => (defaults === undefined ? a : withDefaults(a, defaults));
  const statusOf = (c: C) => (c.name === undefined ? undefined : resize.byName.get(c.name));
  const fallback = (c: C) => (resize.infeasible ? none : c.spec);
  let allocated: Amounts;
  let actuated: Amounts;
  if (resize.podAllocated !== undefined && resize.podActuated !== undefined) {
    allocated = resize.podAllocated;
    actuated = resize.podActuated;
  } else {
    allocated = aggregate(app, init, (c) => fill(statusOf(c)?.allocated ?? fallback(c)));
    actuated = aggregate(app, init, (c) => {
      const s = statusOf(c);
      return fill(s?.actuated ?? s?.allocated ?? fallback(c));
    });
  }
  const total: Amounts = resize.infeasible ? new Map() : aggregate(app, init, (c) => fill(c.spec));
  maxInto(total, actuated);
  maxInto(total, allocated);
  return total;
}

/**
 * The pod-level requests that override the containers' (`podLevel`: the spec's supported
 * ones, after defaulting), by release: the spec before 1.36 or without `status.resources`;
 * with it, 1.36 charges each spec resource max(spec, actuated, allocated) (without the spec
 * when infeasible, 0 when no list names it); 1.37 charges every resource of that max.
 */
export function podLevelCharge(
  podLevel: Amounts,
  resize: ResizeStatus,
  rules: ResizeRules,
  supported: (name: string) => boolean,
): Amounts {
  if (!rules.podLevelStatus || !resize.podHasResources || podLevel.size === 0) return podLevel;
  const effective: Amounts = resize.infeasible ? new Map() : new Map(podLevel);
  if (resize.podActuated !== undefined) maxInto(effective, resize.podActuated);
  if (resize.podAllocated !== undefined) maxInto(effective, resize.podAllocated);
  const out: Amounts = new Map();
  if (rules.maxOfAggregates) {
    for (const [name, v] of effective) if (supported(name)) out.set(name, v);
  } else {
    for (const name of podLevel.keys()) out.set(name, effective.get(name) ?? 0n);
  }
  return out;
}
