// The RxJS edge of the runtime: merges every input source into the scheduler's single log.

import {
  filter,
  type MonoTypeOperatorFunction,
  merge,
  type Observable,
  type Subscription,
} from 'rxjs';
import { isObjectKind, objectKeyOf } from '../cluster/cluster-objects.ts';
import type { InputEvent, ResourceKind } from '../events/types.ts';
import { podKey } from '../model/keys.ts';

type Loose = Record<string, unknown>;

function identityOf(object: unknown, kind: ResourceKind): string | undefined {
  if (isObjectKind(kind)) return objectKeyOf(kind, object);
  const meta = (object as { metadata?: Loose } | undefined)?.metadata;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const name = typeof meta.name === 'string' ? meta.name : undefined;
  if (kind === 'Node') return name;
  if (typeof meta.uid === 'string' && meta.uid !== '') return meta.uid;
  return name === undefined ? undefined : podKey(String(meta.namespace ?? 'default'), name);
}

/** Structural equality of two JSON values (objects compared key by key, arrays in order). */
function sameJson(a: unknown, b: unknown, skipKey?: string): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Loose;
  const y = b as Loose;
  let n = 0;
  for (const k in x) {
    if (k === skipKey || x[k] === undefined) continue;
    n++;
    if (!sameJson(x[k], y[k])) return false;
  }
  for (const k in y) if (k !== skipKey && y[k] !== undefined) n--;
  return n === 0;
}

/** Equal in everything but `metadata.resourceVersion`, which every write changes. */
function sameObject(a: unknown, b: unknown): boolean {
  const x = a as Loose;
  const y = b as Loose;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null)
    return sameJson(a, b);
  if (!sameJson(x.metadata, y.metadata, 'resourceVersion')) return false;
  return sameJson(x, y, 'metadata');
}

/**
 * Drops upserts identical (in everything the trim kept, resourceVersion aside) to the
 * last one seen for the same object: status churn and berth's own condition patches
 * never reach the log, so they never requeue a parked pod. Relist items always pass
 * (a relist must see every object); objects a relist did not see are forgotten.
 */
export function dropUnchangedUpserts(): MonoTypeOperatorFunction<InputEvent> {
  // The last object seen per identity (the trimmed object the log holds anyway).
  const last = new Map<ResourceKind, Map<string, unknown>>();
  const lastOf = (kind: ResourceKind): Map<string, unknown> => {
    let seen = last.get(kind);
    if (seen === undefined) {
      seen = new Map();
      last.set(kind, seen);
    }
    return seen;
  };
  const relisting: Partial<Record<ResourceKind, Set<string>>> = {};
  const upsert = (kind: ResourceKind, object: unknown): boolean => {
    const id = identityOf(object, kind);
    if (id === undefined) return true;
    const seen = relisting[kind];
    if (seen !== undefined) {
      seen.add(id);
      lastOf(kind).set(id, object);
      return true;
    }
    const previous = lastOf(kind).get(id);
    if (previous !== undefined && sameObject(previous, object)) return false;
    lastOf(kind).set(id, object);
    return true;
  };
  return filter((event: InputEvent) => {
    switch (event.type) {
      case 'NodeUpserted':
        return upsert('Node', event.node);
      case 'PodUpserted':
        return upsert('Pod', event.pod);
      case 'ObjectUpserted':
        return upsert(event.kind, event.object);
      case 'NodeDeleted':
        lastOf('Node').delete(event.name);
        return true;
      case 'PodDeleted':
        lastOf('Pod').delete(event.uid);
        return true;
      case 'ObjectDeleted':
        lastOf(event.kind).delete(event.key);
        return true;
      case 'ResyncStarted':
        relisting[event.kind] = new Set();
        return true;
      case 'ResyncDone': {
        const seen = relisting[event.kind];
        delete relisting[event.kind];
        if (seen !== undefined)
          for (const id of lastOf(event.kind).keys())
            if (!seen.has(id)) lastOf(event.kind).delete(id);
        return true;
      }
      default:
        return true;
    }
  });
}

/**
 * Merges every source (watches, effect results, timer firings) into one ordered stream,
 * drops unchanged upserts, and hands each event to `ingest` in arrival order: the one
 * door into the log. The returned subscription disconnects all sources.
 */
export function connectSources(
  sources: Observable<InputEvent>[],
  ingest: (event: InputEvent) => void,
): Subscription {
  return merge(...sources)
    .pipe(dropUnchangedUpserts())
    .subscribe({ next: ingest });
}
