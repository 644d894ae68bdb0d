// Extended resources backed by DRA (kube's DRAExtendedResource): which DeviceClass serves a resource name, and the device requests a pod's containers make of it.
import { deviceClassResourcePrefix, type ExtendedContainer } from '../../cluster/pod-extended.ts';
import type {
  DeviceClassInfo,
  DeviceRequest,
  ExtendedRequestMapping,
} from '../../model/dra-types.ts';

export type { ExtendedRequestMapping };

/**
 * The cycle state key of the extended resources the pod requests that a DeviceClass backs:
 * NodeResourcesFit leaves them to DRA on nodes that do not list them (kube's Fit asks the
 * shared DRA manager). Set by DynamicResources' PreFilter only when extended resources are on.
 */
export const draBackedKey = 'DynamicResources/dra-backed-resources';

type Classes = ReadonlyMap<string, DeviceClassInfo>;

/** The last mapping built, and the class map it was built from. */
let last: { classes: Classes; byResource: Map<string, DeviceClassInfo> } | undefined;

/** a wins over b for an explicit name: the newer class, then the lower name (kube's cache). */
function newer(a: DeviceClassInfo, b: DeviceClassInfo): boolean {
  const at = a.creationMs ?? 0;
  const bt = b.creationMs ?? 0;
  return at !== bt ? at > bt : a.name < b.name;
}

/**
 * Every extended resource name a DeviceClass backs: its `extendedResourceName` (when two
 * classes give one, the newer wins, then the lower name) and its implicit
 * `deviceclass.resource.kubernetes.io/<name>`. Rebuilt only when the class map changes.
 */
function mappingOf(classes: Classes): Map<string, DeviceClassInfo> {
  if (last?.classes === classes) return last.byResource;
  const byResource = new Map<string, DeviceClassInfo>();
  for (const c of classes.values()) {
    const explicit = c.extendedResourceName;
    if (explicit === undefined || explicit === '') continue;
    const held = byResource.get(explicit);
    if (held === undefined || newer(c, held)) byResource.set(explicit, c);
  }
  // Implicit names cannot clash (validation keeps the prefix out of explicit names).
  for (const c of classes.values()) byResource.set(`${deviceClassResourcePrefix}${c.name}`, c);
  last = { classes, byResource };
  return byResource;
}

/** kube's DeviceClassResolver.GetDeviceClass: the class backing `resource`, if any. */
export function deviceClassFor(classes: Classes, resource: string): DeviceClassInfo | undefined {
  return mappingOf(classes).get(resource);
}

interface Built {
  request: DeviceRequest | undefined;
  mappings: ExtendedRequestMapping[];
}

/**
 * One container's request for `resource` of `className` (kube's
 * createResourceRequestAndMappings): first the requests in `reusable` (long-lived containers
 * after it) serve it, then a request `container-<i>-request-<j>` for what is left.
 */
function containerRequest(
  c: ExtendedContainer,
  resource: string,
  className: string,
  reusable: readonly (DeviceRequest | undefined)[],
): Built {
  const want = c.requests.find((r) => r.resource === resource);
  if (want === undefined) return { request: undefined, mappings: [] };
  const mappings: ExtendedRequestMapping[] = [];
  let sum = 0;
  for (const r of reusable) {
    if (r === undefined) continue;
    sum += r.exactly?.count ?? 0;
    mappings.push({ containerName: c.name, resourceName: resource, requestName: r.name });
    if (sum >= want.count) return { request: undefined, mappings };
  }
  const name = `container-${c.index}-request-${want.sortedIndex}`;
  const request: DeviceRequest = {
    name,
    exactly: { deviceClassName: className, allocationMode: 'ExactCount', count: want.count - sum },
  };
  mappings.push({ containerName: c.name, resourceName: resource, requestName: name });
  return { request, mappings };
}

/**
 * kube's createRequestsAndMappings: the special claim's device requests for the extended
 * resources `resources` (names served by DRA on the node), sorted by request name, and which
 * request serves each container's resource. Per resource (in name order): each long-lived
 * container (app or sidecar) gets its own request; the short-lived init containers reuse the
 * long-lived requests after them first and share the largest of their own requests.
 */
export function extendedRequestsAndMappings(
  containers: readonly ExtendedContainer[],
  resources: readonly string[],
  classes: Classes,
): { requests: DeviceRequest[]; mappings: ExtendedRequestMapping[] } {
  const requests: DeviceRequest[] = [];
  const mappings: ExtendedRequestMapping[] = [];
  const size = containers.reduce((n, c) => Math.max(n, c.index + 1), 0);
  for (const resource of [...resources].sort()) {
    const cls = deviceClassFor(classes, resource);
    if (cls === undefined) continue;
    const longLived: (DeviceRequest | undefined)[] = new Array(size).fill(undefined);
    const longMappings: ExtendedRequestMapping[] = [];
    for (const c of containers) {
      if (c.shortLived) continue;
      const built = containerRequest(c, resource, cls.name, []);
      longLived[c.index] = built.request;
      longMappings.push(...built.mappings);
    }
    let largest: DeviceRequest | undefined;
    const shortNames = new Set<string>();
    const shortMappings: ExtendedRequestMapping[] = [];
    for (const c of containers) {
      if (!c.shortLived) continue;
      const built = containerRequest(c, resource, cls.name, longLived.slice(c.index));
      if (built.request !== undefined) {
        shortNames.add(built.request.name);
        if (
          largest === undefined ||
          (largest.exactly?.count ?? 0) < (built.request.exactly?.count ?? 0)
        )
          largest = built.request;
      }
      shortMappings.push(...built.mappings);
    }
    if (largest !== undefined && shortNames.size > 1) {
      shortNames.delete(largest.name);
      for (const m of shortMappings)
        if (shortNames.has(m.requestName)) m.requestName = largest.name;
    }
    if (largest !== undefined) requests.push(largest);
    for (const r of longLived) if (r !== undefined) requests.push(r);
    mappings.push(...longMappings, ...shortMappings);
  }
  requests.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { requests, mappings };
}
