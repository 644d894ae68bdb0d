// Effective pod requests as kube-scheduler computes them, by release: containers, sidecars, pod level, resize, overhead.
import { type KubeRelease, unrecordedKubeRelease } from '../model/kube-release.ts';
import { emptyRecord, isRecord, type JsonRecord } from './fields.ts';
import { nanosToMilli, nanosToUnits } from './quantity.ts';
import {
  type Amounts,
  addInto,
  aggregate,
  note,
  optionalRecord,
  type Problems,
  readList,
  readOptionalList,
  withDefaults,
} from './requests-amounts.ts';
import {
  chargeSince137,
  containerCharge,
  podLevelCharge,
  type ResizeRules,
  type ResizeStatus,
  readResizeStatus,
  resizeRules,
  type StatusedContainer,
} from './requests-resize.ts';
import { type NonZeroRequests, RESOURCE_FIELDS, zeroResources } from './resources.ts';
import type { Resources } from './types.ts';

/** A pod's requests for fit and for scoring, and the first reason they are unreliable. */
export interface PodRequests {
  /** Effective requests: max(app + sidecars, each init step), pod-level override, + overhead. */
  requests: Resources;
  /** CPU/memory with 100m / 200Mi for each container that requests neither (see below). */
  nonZeroRequests: NonZeroRequests;
  /** First problem found (the offending quantity counted as 0), or undefined. */
  invalid: string | undefined;
}

/** kube-scheduler's DefaultMilliCPURequest (100m), in nanos of a core. */
const DEFAULT_CPU_NANOS = 100_000_000n;
/** kube-scheduler's DefaultMemoryRequest (200Mi), in nanos of a byte. */
const DEFAULT_MEMORY_NANOS = 200n * 1024n * 1024n * 1_000_000_000n;

interface ContainerRequests extends StatusedContainer {
  /** Requests as the API server stores them (limits stand in for missing requests). */
  spec: Amounts;
  /** What 1.34–1.36 charge: `spec`, or the resize rule when a status is given. */
  effective: Amounts;
  /** Limits (the API server defaults pod-level hugepages limits from them). */
  limits: Amounts;
}

/**
 * One container. Like the API server's defaulting, a limit stands in for a request that is
 * not given (objects from the API server already have this applied). With a resize status,
 * app containers and sidecars are charged as containerCharge says.
 */
function readContainer(
  c: JsonRecord,
  path: string,
  init: boolean,
  resize: ResizeStatus,
  problems: Problems,
): ContainerRequests {
  const resources = optionalRecord(c.resources, `${path}.resources`, problems);
  const requests = readOptionalList(resources?.requests, `${path}.resources.requests`, problems);
  const limits = readOptionalList(resources?.limits, `${path}.resources.limits`, problems);
  const spec: Amounts = new Map(limits);
  // Requests second, so that they override the limits they share a name with.
  if (requests !== undefined) for (const [name, v] of requests) spec.set(name, v);
  const sidecar = init && c.restartPolicy === 'Always';
  const name = typeof c.name === 'string' ? c.name : undefined;
  const status = name === undefined ? undefined : resize.byName.get(name);
  const effective = containerCharge(spec, status, !init || sidecar, resize.infeasible);
  return { name, spec, effective, limits: limits ?? new Map(), sidecar };
}

function readContainers(
  list: unknown,
  path: string,
  init: boolean,
  resize: ResizeStatus,
  problems: Problems,
): ContainerRequests[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) {
    note(problems, `${path} is not a list`);
    return [];
  }
  const out: ContainerRequests[] = [];
  for (let i = 0; i < list.length; i++) {
    const c: unknown = list[i];
    if (isRecord(c)) out.push(readContainer(c, `${path}[${i}]`, init, resize, problems));
    else note(problems, `${path}[${i}] is not an object`);
  }
  return out;
}

/** Resources PodLevelResources lets `spec.resources` set: cpu, memory and hugepages-*. */
function podLevelSupported(name: string): boolean {
  return name === 'cpu' || name === 'memory' || name.startsWith('hugepages-');
}

/**
 * Pod-level requests (`spec.resources`) after the API server's defaulting (1.34, PodLevelResources
 * on): container hugepages limits become pod-level limits when none is given; then, only when
 * pod-level limits exist, a missing cpu/memory request takes the containers' aggregate
 * request, and any request still missing takes the pod-level limit. Returns only supported
 * resources; empty when the pod sets none (then containers alone are charged).
 */
function readPodLevel(
  s: JsonRecord,
  app: ContainerRequests[],
  init: ContainerRequests[],
  problems: Problems,
): Amounts {
  const supported: Amounts = new Map();
  const res = optionalRecord(s.resources, 'spec.resources', problems);
  if (res === undefined) return supported;
  const rawRequests = optionalRecord(res.requests, 'spec.resources.requests', problems);
  const rawLimits = optionalRecord(res.limits, 'spec.resources.limits', problems);
  const requests: Amounts = new Map();
  if (rawRequests !== undefined)
    readList(rawRequests, 'spec.resources.requests', requests, problems);
  const limits: Amounts = new Map();
  if (rawLimits !== undefined) readList(rawLimits, 'spec.resources.limits', limits, problems);
  const requestKeys = rawRequests === undefined ? 0 : Object.keys(rawRequests).length;
  let limitKeys = rawLimits === undefined ? 0 : Object.keys(rawLimits).length;
  if (requestKeys + limitKeys > 0) {
    for (const [name, v] of aggregate(app, init, (c) => c.limits)) {
      if (!name.startsWith('hugepages-') || requests.has(name) || limits.has(name)) continue;
      limits.set(name, v);
      limitKeys++;
    }
  }
  if (limitKeys > 0) {
    for (const [name, v] of aggregate(app, init, (c) => c.spec)) {
      if ((name === 'cpu' || name === 'memory') && !requests.has(name)) requests.set(name, v);
    }
    for (const [name, v] of limits) {
      if (podLevelSupported(name) && !requests.has(name)) requests.set(name, v);
    }
  }
  for (const [name, v] of requests) if (podLevelSupported(name)) supported.set(name, v);
  return supported;
}

/** What a pod's requests are computed from, read once. */
interface PodParts {
  app: ContainerRequests[];
  init: ContainerRequests[];
  resize: ResizeStatus;
  rules: ResizeRules;
  /** The pod-level requests charged over the containers' (see podLevelCharge). */
  podLevel: Amounts;
  overhead: Amounts;
}

/**
 * kube's PodRequests: the containers' charge (by release, see ResizeRules; `defaults` fill
 * each container's missing cpu/memory for the non-zero variant), pod-level values over it,
 * then overhead.
 */
function podTotal(parts: PodParts, defaults: Amounts | undefined): Amounts {
  const { app, init, resize } = parts;
  const total = parts.rules.maxOfAggregates
    ? chargeSince137(app, init, resize, defaults)
    : aggregate(app, init, (c) =>
        defaults === undefined ? c.effective : withDefaults(c.effective, defaults),
      );
  for (const [name, v] of parts.podLevel) total.set(name, v);
  addInto(total, parts.overhead);
  return total;
}

function toResources(amounts: Amounts): Resources {
  const r = zeroResources();
  for (const [name, nanos] of amounts) {
    const field = RESOURCE_FIELDS.get(name);
    if (field === 'milliCPU') r.milliCPU = nanosToMilli(nanos);
    else if (field !== undefined) r[field] = nanosToUnits(nanos);
    else if (nanos !== 0n) r.scalar[name] = nanosToUnits(nanos);
  }
  return r;
}

/**
 * Computes a pod's effective requests from its (untrusted) `spec`, and optionally its `status`
 * (in-place resize), exactly as kube-scheduler `release` charges it (PodRequests in
 * k8s.io/component-helpers/resource with the release's default gates, after the API server's
 * defaulting; see ResizeRules): quantities are summed exactly and rounded up once (CPU to
 * millicores, everything else to whole units); `pods` entries are ignored. Non-zero requests
 * add 100m CPU / 200Mi memory to each container lacking them; with pod-level requests, only
 * for a resource the pod names nowhere. Never throws; a malformed field or quantity is
 * reported in `invalid` and counted as 0.
 */
export function computePodRequests(
  spec: unknown,
  status?: unknown,
  release: KubeRelease = unrecordedKubeRelease,
): PodRequests {
  const problems: Problems = { first: undefined };
  const s = isRecord(spec) ? spec : emptyRecord<unknown>();
  if (!isRecord(spec))
    note(problems, spec === undefined ? 'spec is missing' : 'spec is not an object');
  // Status problems rank after the spec's: read them aside, report them last.
  const statusProblems: Problems = { first: undefined };
  const rules = resizeRules(release);
  const resize = readResizeStatus(status, rules, statusProblems);
  const app = readContainers(s.containers, 'spec.containers', false, resize, problems);
  const init = readContainers(s.initContainers, 'spec.initContainers', true, resize, problems);
  const overhead = readOptionalList(s.overhead, 'spec.overhead', problems) ?? new Map();
  const specPodLevel = readPodLevel(s, app, init, problems);
  if (statusProblems.first !== undefined) note(problems, statusProblems.first);
  const podLevel = podLevelCharge(specPodLevel, resize, rules, podLevelSupported);
  const parts: PodParts = { app, init, resize, rules, podLevel, overhead };

  const total = podTotal(parts, undefined);
  // kube's getNonMissingContainerRequests: both defaults without pod-level requests; with
  // them, only for cpu/memory that the pod's requests do not name.
  const defaults: Amounts = new Map();
  if (specPodLevel.size === 0 || !total.has('cpu')) defaults.set('cpu', DEFAULT_CPU_NANOS);
  if (specPodLevel.size === 0 || !total.has('memory')) defaults.set('memory', DEFAULT_MEMORY_NANOS);
  const nonZero = defaults.size === 0 ? total : podTotal(parts, defaults);
  return {
    requests: toResources(total),
    nonZeroRequests: {
      milliCPU: nanosToMilli(nonZero.get('cpu') ?? 0n),
      memory: nanosToUnits(nonZero.get('memory') ?? 0n),
    },
    invalid: problems.first,
  };
}
