// The per-container extended-resource requests a pod makes, which DRA-backed extended resources turn into device requests.
import { isRecord } from './fields.ts';
import { parseQuantity } from './quantity.ts';

/** The DeviceClass implicit extended-resource prefix (resourceapi.ResourceDeviceClassPrefix). */
export const deviceClassResourcePrefix = 'deviceclass.resource.kubernetes.io/';

/**
 * kube's IsDRAExtendedResourceName: an extended resource name (a domain-prefixed name outside
 * `kubernetes.io/` and not `requests.`-prefixed), or an implicit DeviceClass name.
 */
export function isDraExtendedResourceName(name: string): boolean {
  if (name.startsWith(deviceClassResourcePrefix)) return true;
  return name.includes('/') && !name.includes('kubernetes.io/') && !name.startsWith('requests.');
}

/** One extended resource a container requests: whole units, and where kube's request name puts it. */
export interface ContainerExtendedRequest {
  /** The resource name (`example.com/gpu`). */
  resource: string;
  /** The requested amount in whole units (kube's AsInt64; fractional amounts are skipped). */
  count: number;
  /** The index of `resource` among the container's sorted request names (kube's `ridx`). */
  sortedIndex: number;
}

/** A container of the pod (init containers first, then app containers), as DRA maps it. */
export interface ExtendedContainer {
  name: string;
  /** Index in init containers followed by containers. */
  index: number;
  /** An init container that is not a sidecar (runs to completion before the others). */
  shortLived: boolean;
  requests: readonly ContainerExtendedRequest[];
}

function containerRequests(c: Record<string, unknown>): Record<string, unknown> {
  const resources = isRecord(c.resources) ? c.resources : {};
  const requests = isRecord(resources.requests) ? resources.requests : {};
  const limits = isRecord(resources.limits) ? resources.limits : {};
  // The API server defaults a missing request to its limit.
  const out: Record<string, unknown> = { ...requests };
  for (const [k, v] of Object.entries(limits)) if (!Object.hasOwn(out, k)) out[k] = v;
  return out;
}

function whole(raw: unknown): number | undefined {
  const p = parseQuantity(raw);
  if (!p.ok || p.q.nanos % 1_000_000_000n !== 0n) return undefined;
  const n = p.q.nanos / 1_000_000_000n;
  return n > 0n && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
}

/**
 * The containers that request a DRA-capable extended resource, with those requests; undefined
 * when none does (most pods). `spec` is the pod's spec, untrusted. Never throws.
 */
export function parseExtendedContainers(spec: unknown): ExtendedContainer[] | undefined {
  if (!isRecord(spec)) return undefined;
  const init = Array.isArray(spec.initContainers) ? spec.initContainers : [];
  const app = Array.isArray(spec.containers) ? spec.containers : [];
  let out: ExtendedContainer[] | undefined;
  [...init, ...app].forEach((c, index) => {
    if (!isRecord(c)) return;
    const all = containerRequests(c);
    const names = Object.keys(all).sort();
    const requests: ContainerExtendedRequest[] = [];
    names.forEach((resource, sortedIndex) => {
      if (!isDraExtendedResourceName(resource)) return;
      const count = whole(all[resource]);
      if (count !== undefined) requests.push({ resource, count, sortedIndex });
    });
    if (requests.length === 0) return;
    const shortLived = index < init.length && c.restartPolicy !== 'Always';
    out ??= [];
    out.push({ name: typeof c.name === 'string' ? c.name : '', index, shortLived, requests });
  });
  return out;
}
