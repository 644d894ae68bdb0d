// Object keys: a namespaced object (a pod, a claim, a budget) is `namespace/name`, defaulting to `default`.
import { isRecord } from './record.ts';

/** The namespace an object without one lives in (the API server defaults it the same way). */
export const defaultNamespace = 'default';

/**
 * The `namespace/name` key of a pod (or any namespaced object); an absent or empty
 * namespace is `default`, as the reducer keys pods.
 */
export function podKey(namespace: string | undefined, name: string): string {
  return `${namespace === undefined || namespace === '' ? defaultNamespace : namespace}/${name}`;
}

/** The object's `metadata.name` when it is a non-empty string, else undefined. Never throws. */
export function nameOfObject(obj: unknown): string | undefined {
  if (!isRecord(obj) || !isRecord(obj.metadata)) return undefined;
  const name = obj.metadata.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * The `namespace/name` key of a raw namespaced object (a Pod), or undefined when it has no
 * name; a namespace that is not a non-empty string is `default`. Never throws.
 */
export function podKeyOfObject(obj: unknown): string | undefined {
  const name = nameOfObject(obj);
  if (name === undefined) return undefined;
  const namespace = (obj as { metadata: { namespace?: unknown } }).metadata.namespace;
  return podKey(typeof namespace === 'string' ? namespace : undefined, name);
}
