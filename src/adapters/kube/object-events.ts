// Event translation: API objects from a list or a watch become berth's upsert and delete InputEvents.
import { isObjectKind, objectKeyOf } from '../../cluster/cluster-objects.ts';
import type { InputEvent, ResourceKind } from '../../events/types.ts';
import type { NodeObject, PodObject } from '../../model/objects.ts';
import { trimNode, trimObject, trimPod } from '../trim.ts';

type Loose = Record<string, unknown>;

function asObject(value: unknown): Loose | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Loose)
    : undefined;
}

function metadataOf(obj: unknown): Loose | undefined {
  return asObject(asObject(obj)?.metadata);
}

/** The object's `metadata.resourceVersion`, if it has a non-empty one (bookmarks included). */
export function resourceVersionOf(obj: unknown): string | undefined {
  const rv = metadataOf(obj)?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

/**
 * The upsert of a `kind` object (NodeUpserted, PodUpserted or ObjectUpserted), trimmed to
 * what scheduling reads unless `trimmed` says it already is; undefined for an object without
 * `metadata.name` (the caller logs and skips it).
 */
export function upsertEvent(
  kind: ResourceKind,
  obj: unknown,
  trimmed = false,
): InputEvent | undefined {
  const name = metadataOf(obj)?.name;
  if (typeof name !== 'string' || name === '') return undefined;
  if (kind === 'Node')
    return { type: 'NodeUpserted', node: trimmed ? (obj as NodeObject) : trimNode(obj) };
  if (kind === 'Pod')
    return { type: 'PodUpserted', pod: trimmed ? (obj as PodObject) : trimPod(obj) };
  return { type: 'ObjectUpserted', kind, object: trimObject(kind, obj) };
}

/**
 * The delete of a `kind` object: NodeDeleted by name, ObjectDeleted by its key, PodDeleted
 * by uid and `namespace/name` (namespace `default` when absent); undefined for an object
 * without `metadata.name` (the caller logs and skips it).
 */
export function deletedEvent(kind: ResourceKind, obj: unknown): InputEvent | undefined {
  const meta = metadataOf(obj);
  const name = meta?.name;
  if (typeof name !== 'string' || name === '') return undefined;
  if (kind === 'Node') return { type: 'NodeDeleted', name };
  if (isObjectKind(kind))
    return { type: 'ObjectDeleted', kind, key: objectKeyOf(kind, obj) ?? name };
  const ns =
    typeof meta?.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
  const key = `${ns}/${name}`;
  // The uid says which pod went; without one (never from a real API server) the name is
  // the identity, as the reducer falls back to for uid-less pods.
  const uid = typeof meta?.uid === 'string' && meta.uid !== '' ? meta.uid : key;
  return { type: 'PodDeleted', uid, key };
}
