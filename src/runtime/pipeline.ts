// The RxJS edge of the runtime: merges every input source into the scheduler's single log.
import {
  filter,
  type MonoTypeOperatorFunction,
  merge,
  type Observable,
  type Subscription,
} from 'rxjs';
import type { InputEvent, ResourceKind } from '../events/types.ts';

type Loose = Record<string, unknown>;

function identityOf(object: unknown, kind: ResourceKind): string | undefined {
  const meta = (object as { metadata?: Loose } | undefined)?.metadata;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const name = typeof meta.name === 'string' ? meta.name : undefined;
  if (kind === 'Node') return name;
  if (typeof meta.uid === 'string' && meta.uid !== '') return meta.uid;
  return name === undefined ? undefined : `${String(meta.namespace ?? 'default')}/${name}`;
}

/**
 * The object's text without `metadata.resourceVersion`, which every write changes. (A
 * shallow copy rather than a replacer function: stringify is several times faster without.)
 */
function contentOf(object: unknown): string {
  const meta = (object as { metadata?: unknown } | undefined)?.metadata;
  if (typeof meta !== 'object' || meta === null || !('resourceVersion' in meta))
    return JSON.stringify(object);
  return JSON.stringify({
    ...(object as object),
    metadata: { ...meta, resourceVersion: undefined },
  });
}

/**
 * Drops upserts identical (in everything the trim kept, resourceVersion aside) to the
 * last one seen for the same object: status churn and berth's own condition patches
 * never reach the log, so they never requeue a parked pod. Relist items always pass
 * (a relist must see every object); objects a relist did not see are forgotten.
 */
export function dropUnchangedUpserts(): MonoTypeOperatorFunction<InputEvent> {
  const last: Record<ResourceKind, Map<string, string>> = { Node: new Map(), Pod: new Map() };
  const relisting: Partial<Record<ResourceKind, Set<string>>> = {};
  const upsert = (kind: ResourceKind, object: unknown): boolean => {
    const id = identityOf(object, kind);
    if (id === undefined) return true;
    const content = contentOf(object);
    const seen = relisting[kind];
    if (seen !== undefined) {
      seen.add(id);
      last[kind].set(id, content);
      return true;
    }
    if (last[kind].get(id) === content) return false;
    last[kind].set(id, content);
    return true;
  };
  return filter((event: InputEvent) => {
    switch (event.type) {
      case 'NodeUpserted':
        return upsert('Node', event.node);
      case 'PodUpserted':
        return upsert('Pod', event.pod);
      case 'NodeDeleted':
        last.Node.delete(event.name);
        return true;
      case 'PodDeleted':
        last.Pod.delete(event.uid);
        return true;
      case 'ResyncStarted':
        relisting[event.kind] = new Set();
        return true;
      case 'ResyncDone': {
        const seen = relisting[event.kind];
        delete relisting[event.kind];
        if (seen !== undefined)
          for (const id of last[event.kind].keys()) if (!seen.has(id)) last[event.kind].delete(id);
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
