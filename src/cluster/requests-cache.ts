// Pod requests memoised by the resource fields they come from: pods of one template share one computation.
import { type KubeRelease, unrecordedKubeRelease } from '../model/kube-release.ts';
import { isRecord } from './fields.ts';
import { computePodRequests, type PodRequests } from './requests.ts';

/** Distinct resource shapes kept; the cache is emptied when it would grow past this. */
const MAX_ENTRIES = 2048;

const cache = new Map<string, PodRequests>();

/** A resource list whose quantities are all strings (what the API server sends). */
function plainList(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isRecord(v)) return false;
  for (const key in v) if (typeof v[key] !== 'string') return false;
  return true;
}

/** `resources` of a container or pod: absent, or requests/limits (and claims) of string quantities. */
function plainResources(v: unknown): boolean {
  if (v === undefined) return true;
  if (!isRecord(v)) return false;
  return plainList(v.requests) && plainList(v.limits);
}

/** The key part of one container list, or undefined when it is not the plain shape. */
function containersKey(list: unknown, init: boolean): unknown[] | undefined {
  if (list === undefined) return [];
  if (!Array.isArray(list)) return undefined;
  const parts: unknown[] = [];
  for (const c of list) {
    if (!isRecord(c) || !plainResources(c.resources)) return undefined;
    const resources = c.resources === undefined ? null : c.resources;
    parts.push(init ? [c.restartPolicy === 'Always', resources] : resources);
  }
  return parts;
}

/** A status list entry that carries what in-place resize makes kube read (any release). */
function resizes(list: unknown): boolean {
  if (!Array.isArray(list)) return list !== undefined;
  return list.some(
    (cs) => !isRecord(cs) || cs.resources !== undefined || cs.allocatedResources !== undefined,
  );
}

function resizePending(conditions: unknown): boolean {
  if (!Array.isArray(conditions)) return false;
  return conditions.some((c) => isRecord(c) && c.type === 'PodResizePending');
}

/**
 * The cache key of `spec`/`status` for computePodRequests: every field it reads, as JSON. Only
 * the common shape is keyed (string quantities, records where records belong, no resize
 * status, container or pod level); anything else returns undefined and is computed afresh,
 * so an odd manifest never shares a result it should not. Without a resize status every
 * release charges the same, so the key does not name the release.
 */
export function requestsKey(spec: unknown, status: unknown): string | undefined {
  if (!isRecord(spec)) return undefined;
  if (status !== undefined) {
    if (!isRecord(status)) return undefined;
    if (resizes(status.containerStatuses) || resizes(status.initContainerStatuses))
      return undefined;
    if (resizePending(status.conditions)) return undefined;
    if (status.resources !== undefined || status.allocatedResources !== undefined) return undefined;
  }
  const app = containersKey(spec.containers, false);
  const init = containersKey(spec.initContainers, true);
  if (app === undefined || init === undefined) return undefined;
  if (!plainList(spec.overhead) || !plainResources(spec.resources)) return undefined;
  return JSON.stringify([app, init, spec.overhead ?? null, spec.resources ?? null]);
}

function freeze(r: PodRequests): PodRequests {
  Object.freeze(r.requests.scalar);
  Object.freeze(r.requests);
  Object.freeze(r.nonZeroRequests);
  return Object.freeze(r);
}

/**
 * computePodRequests as `release` charges, memoised by requestsKey: equal resource fields give
 * the same (frozen) result object. Pods of one ReplicaSet or Job differ only in names, so a
 * list of thousands computes a handful. Pure and deterministic: the cache changes cost, never
 * a result.
 */
export function podRequestsOf(
  spec: unknown,
  status: unknown,
  release: KubeRelease = unrecordedKubeRelease,
): PodRequests {
  const key = requestsKey(spec, status);
  if (key === undefined) return computePodRequests(spec, status, release);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  if (cache.size >= MAX_ENTRIES) cache.clear();
  const computed = freeze(computePodRequests(spec, status, release));
  cache.set(key, computed);
  return computed;
}
