// Effective pod requests as kube-scheduler computes them: containers, init/sidecar rule, overhead.
import { emptyRecord, isRecord, type JsonRecord } from './fields.ts';
import { nanosToMilli, nanosToUnits, parseQuantityAt } from './quantity.ts';
import { RESOURCE_FIELDS, zeroResources } from './resources.ts';
import type { Resources } from './types.ts';

/** A pod's requests for fit and for scoring, and the first reason they are unreliable. */
export interface PodRequests {
  /** Effective requests: max(app + sidecars, each init step) + overhead, rounded up once. */
  requests: Resources;
  /** The same with 100m CPU / 200Mi memory for each container that does not request them. */
  nonZeroRequests: { milliCPU: number; memory: number };
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
  amounts: Amounts;
  /** Whether cpu / memory appear in the (defaulted) requests, even as 0. */
  hasCpu: boolean;
  hasMemory: boolean;
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

/**
 * One container's requests. Like the API server's defaulting, a limit stands in for a
 * request that is not given (objects from the API server already have this applied).
 */
function readContainer(
  c: JsonRecord,
  path: string,
  init: boolean,
  problems: Problems,
): ContainerRequests {
  const amounts: Amounts = new Map();
  const resources = optionalRecord(c.resources, `${path}.resources`, problems);
  const requests = optionalRecord(resources?.requests, `${path}.resources.requests`, problems);
  const limits = optionalRecord(resources?.limits, `${path}.resources.limits`, problems);
  if (limits !== undefined) readList(limits, `${path}.resources.limits`, amounts, problems);
  // Requests read second so that they override the limits they share a name with.
  if (requests !== undefined) readList(requests, `${path}.resources.requests`, amounts, problems);
  const has = (name: string) =>
    (requests !== undefined && Object.hasOwn(requests, name)) ||
    (limits !== undefined && Object.hasOwn(limits, name));
  return {
    amounts,
    hasCpu: has('cpu'),
    hasMemory: has('memory'),
    sidecar: init && c.restartPolicy === 'Always',
  };
}

function readContainers(
  list: unknown,
  path: string,
  init: boolean,
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
    if (isRecord(c)) out.push(readContainer(c, `${path}[${i}]`, init, problems));
    else note(problems, `${path}[${i}] is not an object`);
  }
  return out;
}

function addInto(into: Amounts, from: Amounts): void {
  for (const [name, v] of from) into.set(name, (into.get(name) ?? 0n) + v);
}

function maxInto(into: Amounts, from: Amounts): void {
  for (const [name, v] of from) {
    const cur = into.get(name);
    if (cur === undefined || v > cur) into.set(name, v);
  }
}

/**
 * kube's AggregateContainerRequests plus overhead: app containers and sidecars are summed;
 * init container i needs its own request plus the sidecars started before it; the pod needs
 * the larger of the two, per resource; overhead comes on top.
 */
function aggregate(
  app: ContainerRequests[],
  init: ContainerRequests[],
  overhead: Amounts,
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
  addInto(result, overhead);
  return result;
}

/** CPU and memory with kube-scheduler's defaults for a container that does not request them. */
function nonZeroAmounts(c: ContainerRequests): Amounts {
  return new Map([
    ['cpu', c.hasCpu ? (c.amounts.get('cpu') ?? 0n) : DEFAULT_CPU_NANOS],
    ['memory', c.hasMemory ? (c.amounts.get('memory') ?? 0n) : DEFAULT_MEMORY_NANOS],
  ]);
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
 * Computes a pod's effective requests from its (untrusted) `spec`, exactly as kube-scheduler's
 * NodeResourcesFit does: quantities are summed exactly and rounded up once (CPU to millicores,
 * everything else to whole units). `pods` entries in container requests are ignored. Never
 * throws; a malformed field or quantity is reported in `invalid` and counted as 0.
 */
export function computePodRequests(spec: unknown): PodRequests {
  const problems: Problems = { first: undefined };
  const s = isRecord(spec) ? spec : emptyRecord<unknown>();
  if (!isRecord(spec))
    note(problems, spec === undefined ? 'spec is missing' : 'spec is not an object');
  const app = readContainers(s.containers, 'spec.containers', false, problems);
  const init = readContainers(s.initContainers, 'spec.initContainers', true, problems);
  const overhead: Amounts = new Map();
  const overheadList = optionalRecord(s.overhead, 'spec.overhead', problems);
  if (overheadList !== undefined) readList(overheadList, 'spec.overhead', overhead, problems);

  const requests = toResources(aggregate(app, init, overhead, (c) => c.amounts));
  const nonZero = aggregate(app, init, overhead, nonZeroAmounts);
  return {
    requests,
    nonZeroRequests: {
      milliCPU: nanosToMilli(nonZero.get('cpu') ?? 0n),
      memory: nanosToUnits(nonZero.get('memory') ?? 0n),
    },
    invalid: problems.first,
  };
}
