// Lists the cluster once (nodes, pods and the other watched kinds) as the input events a relist gives.
import { objectKinds, optionalObjectKinds } from '../../cluster/cluster-objects.ts';
import type { InputEvent, ResourceKind } from '../../events/types.ts';
import { trimNode, trimObject, trimPod } from '../trim.ts';
import { describeApiError } from './api-error.ts';
import type { KubeClients } from './config.ts';
import { nodeSource, objectSource, podSource } from './list-watch.ts';
import { isNotServed, type ListWatchSource, notServedMessage } from './watch-source.ts';

/** A list that failed: which kind, and why in one line. */
export class ListError extends Error {
  override name = 'ListError';
  constructor(
    readonly kind: ResourceKind,
    reason: string,
  ) {
    super(`cannot list ${kind} objects: ${reason}`);
  }
}

function hasName(obj: unknown): boolean {
  const name = (obj as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
  return typeof name === 'string' && name !== '';
}

/**
 * The relist events of one kind. An `optional` kind the API server does not serve (404)
 * gives an empty relist ending `unavailable`, as the reflector's does.
 */
export async function listKind(
  kind: ResourceKind,
  source: ListWatchSource,
  optional = false,
): Promise<InputEvent[]> {
  const items: unknown[] = [];
  try {
    await source.list({ fromCache: false }, (item) => items.push(item));
  } catch (error) {
    const f = describeApiError(error);
    if (optional && isNotServed(f))
      return [
        { type: 'ResyncStarted', kind },
        { type: 'ResyncDone', kind, unavailable: notServedMessage(kind, source.resource) },
      ];
    throw new ListError(kind, f.code === undefined ? f.message : `${f.message} (${f.code})`);
  }
  const events: InputEvent[] = [{ type: 'ResyncStarted', kind }];
  for (const obj of items) {
    // Nameless objects are skipped, as the reflector skips them.
    if (!hasName(obj)) continue;
    if (kind === 'Node') events.push({ type: 'NodeUpserted', node: trimNode(obj) });
    else if (kind === 'Pod') events.push({ type: 'PodUpserted', pod: trimPod(obj) });
    else events.push({ type: 'ObjectUpserted', kind, object: trimObject(kind, obj) });
  }
  events.push({ type: 'ResyncDone', kind });
  return events;
}

/**
 * Lists every node, pod and object of the kinds `berth run` watches, once, with GETs only
 * (no watch, no write), and returns them as the events the reflectors' first relists would
 * give: per kind, ResyncStarted, one upsert per object (trimmed as for the log), ResyncDone.
 * Objects come first, then nodes, then pods. An optional kind (a CRD) that is not served
 * lists as empty, its ResyncDone `unavailable`. Throws ListError naming the kind that failed.
 */
export async function listClusterOnce(clients: KubeClients): Promise<InputEvent[]> {
  const lists = await Promise.all([
    ...objectKinds.map((kind) =>
      listKind(kind, objectSource(clients, kind), optionalObjectKinds.has(kind)),
    ),
    listKind('Node', nodeSource(clients)),
    listKind('Pod', podSource(clients)),
  ]);
  return lists.flat();
}
