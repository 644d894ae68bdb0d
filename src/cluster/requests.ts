// Effective pod requests as kube-scheduler 1.34 computes them: containers, sidecars, pod level, resize, overhead.
import { emptyRecord, isRecord, type JsonRecord } from './fields.ts';
import { nanosToMilli, nanosToUnits, parseQuantityAt } from './quantity.ts';
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

/** Resource name → exact amount in nanos. Sums stay exact; rounding happens once at the end. */
type Amounts = Map<string, bigint>;

interface ContainerRequests {
  /** Requests as the API server stores them (limits stand in for missing requests). */
  spec: Amounts;
  /** What the scheduler charges: `spec`, or the resize rule when a status is given. */
  effective: Amounts;
  /** Limits (the API server defaults pod-level hugepages limits from them). */
  limits: Amounts;
  /** A restartable init container (`restartPolicy: Always`): a sidecar. */
  sidecar: boolean;
}

/** Collects the first problem; later ones are dropped so the reason stays short. */
interface Problems {
  first: string | undefined;
}

function note(problems: Problems, reason: string): void {
  if (problems.first === undefined) problems.first = reason;
}

/** Reads an optional object field: undefined/null → undefined; another type → a problem. */
function optionalRecord(v: unknown, path: string, problems: Problems): JsonRecord | undefined {
  if (v === undefined || v === null) return undefined;
  if (isRecord(v)) return v;
  note(problems, `${path} is not an object`);
  return undefined;
}

/** Parses a resource list into `into` (skipping `pods`); bad quantities count as 0. */
function readList(list: JsonRecord, path: string, into: Amounts, problems: Problems): void {
  for (const name of Object.keys(list)) {
    if (name === 'pods') continue;
    const parsed = parseQuantityAt(list[name], `${path}.${name}`);
    if (parsed.ok) {
      into.set(name, parsed.q.nanos);
    } else {
      note(problems, parsed.error);
      into.set(name, 0n);
    }
  }
}

/** An optional resource list at `path`, parsed; undefined when absent or not an object. */
function readOptionalList(v: unknown, path: string, problems: Problems): Amounts | undefined {
  const list = optionalRecord(v, path, problems);
  if (list === undefined) return undefined;
  const amounts: Amounts = new Map();
  readList(list, path, amounts, problems);
  return amounts;
}

function maxInto(into: Amounts, from: Amounts): void {
  for (const [name, v] of from) {
    const cur = into.get(name);
    if (cur === undefined || v > cur) into.set(name, v);
  }
}

function addInto(into: Amounts, from: Amounts): void {
  for (const [name, v] of from) into.set(name, (into.get(name) ?? 0n) + v);
}

/** What in-place resize (InPlacePodVerticalScaling, on in 1.34) makes kube read from `status`. */
interface ResizeStatus {
  /** Container name → its status's requests and allocation, when `resources` is set. */
  byName: Map<string, { actuated: Amounts; allocated: Amounts }>;
  /** A `PodResizePending` condition with reason `Infeasible`: the spec is not charged. */
  infeasible: boolean;
}

function readStatusList(list: unknown, path: string, into: ResizeStatus, problems: Problems): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) {
    note(problems, `${path} is not a list`);
    return;
  }
  list.forEach((cs: unknown, i) => {
    if (!isRecord(cs) || typeof cs.name !== 'string' || !isRecord(cs.resources)) return;
    const at = `${path}[${i}]`;
    const actuated = readOptionalList(cs.resources.requests, `${at}.resources.requests`, problems);
    const allocated = readOptionalList(cs.allocatedResources, `${at}.allocatedResources`, problems);
    into.byName.set(cs.name, {
      actuated: actuated ?? new Map(),
      allocated: allocated ?? new Map(),
    });
  });
}

function readResizeStatus(status: unknown, problems: Problems): ResizeStatus {
  const out: ResizeStatus = { byName: new Map(), infeasible: false };
  if (!isRecord(status)) return out;
  readStatusList(status.containerStatuses, 'status.containerStatuses', out, problems);
  readStatusList(status.initContainerStatuses, 'status.initContainerStatuses', out, problems);
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const resize = conditions.find((c: unknown) => isRecord(c) && c.type === 'PodResizePending');
  out.infeasible = isRecord(resize) && resize.reason === 'Infeasible';
  return out;
}

/**
 * One container. Like the API server's defaulting, a limit stands in for a request that is
 * not given (objects from the API server already have this applied). With a resize status,
 * app containers and sidecars are charged max(spec, actuated, allocated), as kube does.
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
  const status = (!init || sidecar) && typeof c.name === 'string' && resize.byName.get(c.name);
  let effective = spec;
  if (status) {
    effective = resize.infeasible ? new Map() : new Map(spec);
    maxInto(effective, status.actuated);
    maxInto(effective, status.allocated);
  }
  return { spec, effective, limits: limits ?? new Map(), sidecar };
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

/**
 * kube's AggregateContainerRequests: app containers and sidecars are summed; init container i
 * needs its own amount plus the sidecars started before it; the pod needs the larger of the
 * two, per resource.
 */
function aggregate(
  app: ContainerRequests[],
  init: ContainerRequests[],
  pick: (c: ContainerRequests) => Amounts,
): Amounts {
  const result: Amounts = new Map();
  for (const c of app) addInto(result, pick(c));
  const sidecars: Amounts = new Map();
  const initMax: Amounts = new Map();
  for (const c of init) {
    const own = pick(c);
    if (c.sidecar) {
      addInto(result, own);
      addInto(sidecars, own);
      maxInto(initMax, sidecars);
    } else {
      const step = new Map(sidecars);
      addInto(step, own);
      maxInto(initMax, step);
    }
  }
  maxInto(result, initMax);
  return result;
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

/** kube's PodRequests: the container aggregate, pod-level values over it, then overhead. */
function podTotal(
  app: ContainerRequests[],
  init: ContainerRequests[],
  podLevel: Amounts,
  overhead: Amounts,
  pick: (c: ContainerRequests) => Amounts,
): Amounts {
  const total = aggregate(app, init, pick);
  for (const [name, v] of podLevel) total.set(name, v);
  addInto(total, overhead);
  return total;
}

/** kube's applyNonMissing: the defaults for resources a container does not name. */
function withDefaults(amounts: Amounts, defaults: Amounts): Amounts {
  const out = new Map(amounts);
  for (const [name, v] of defaults) if (!amounts.has(name)) out.set(name, v);
  return out;
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
 * (in-place resize), exactly as kube-scheduler 1.34's NodeResourcesFit does (PodRequests in
 * k8s.io/component-helpers/resource, after the API server's defaulting): quantities are
 * summed exactly and rounded up once (CPU to millicores, everything else to whole units);
 * `pods` entries are ignored. Non-zero requests add 100m CPU / 200Mi memory to each container
 * lacking them; with pod-level requests, only for a resource the pod names nowhere. Never
 * throws; a malformed field or quantity is reported in `invalid` and counted as 0.
 */
export function computePodRequests(spec: unknown, status?: unknown): PodRequests {
  const problems: Problems = { first: undefined };
  const s = isRecord(spec) ? spec : emptyRecord<unknown>();
  if (!isRecord(spec))
    note(problems, spec === undefined ? 'spec is missing' : 'spec is not an object');
  // Status problems rank after the spec's: read them aside, report them last.
  const statusProblems: Problems = { first: undefined };
  const resize = readResizeStatus(status, statusProblems);
  const app = readContainers(s.containers, 'spec.containers', false, resize, problems);
  const init = readContainers(s.initContainers, 'spec.initContainers', true, resize, problems);
  const overhead = readOptionalList(s.overhead, 'spec.overhead', problems) ?? new Map();
  const podLevel = readPodLevel(s, app, init, problems);
  if (statusProblems.first !== undefined) note(problems, statusProblems.first);

  const total = podTotal(app, init, podLevel, overhead, (c) => c.effective);
  // kube's getNonMissingContainerRequests: both defaults without pod-level requests; with
  // them, only for cpu/memory that neither the pod level nor any container names.
  const defaults: Amounts = new Map();
  if (podLevel.size === 0 || !total.has('cpu')) defaults.set('cpu', DEFAULT_CPU_NANOS);
  if (podLevel.size === 0 || !total.has('memory')) defaults.set('memory', DEFAULT_MEMORY_NANOS);
  const nonZero =
    defaults.size === 0
      ? total
      : podTotal(app, init, podLevel, overhead, (c) => withDefaults(c.effective, defaults));
  return {
    requests: toResources(total),
    nonZeroRequests: {
      milliCPU: nanosToMilli(nonZero.get('cpu') ?? 0n),
      memory: nanosToUnits(nonZero.get('memory') ?? 0n),
    },
    invalid: problems.first,
  };
}
