// Reads Kubernetes manifests (multi-document YAML, or JSON including v1 List) into nodes and pods.
import { parseAllDocuments } from 'yaml';
import type { NodeObject, PodObject } from '../../cluster/objects.ts';

/** Nodes and pods found in manifests, plus notes on documents that were skipped. */
export interface Manifests {
  nodes: NodeObject[];
  pods: PodObject[];
  skipped: string[];
}

/** A manifest that cannot be used; the message names the file and document. */
export class ManifestError extends Error {
  override name = 'ManifestError';
}

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseDocuments(text: string, source: string): unknown[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return [JSON.parse(text)];
    } catch {
      // Not strict JSON: YAML is a superset, let it report the error precisely.
    }
  }
  const docs = parseAllDocuments(text);
  const out: unknown[] = [];
  for (const [i, doc] of docs.entries()) {
    const error = doc.errors[0];
    if (error !== undefined) {
      throw new ManifestError(
        `${source}: document ${i + 1}: invalid YAML: ${error.message.split('\n')[0]?.replace(/:$/, '')}`,
      );
    }
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

function collect(value: unknown, where: string, into: Manifests): void {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) collect(item, `${where}[${i}]`, into);
    return;
  }
  if (!isObject(value))
    throw new ManifestError(
      `${where}: expected a Kubernetes object, got ${JSON.stringify(value)?.slice(0, 40)}`,
    );
  const kind = value.kind;
  if (typeof kind !== 'string') throw new ManifestError(`${where}: object has no "kind"`);
  if (kind === 'List' || kind.endsWith('List')) {
    if (!Array.isArray(value.items))
      throw new ManifestError(`${where}: ${kind} has no "items" array`);
    for (const [i, item] of value.items.entries()) collect(item, `${where} items[${i}]`, into);
    return;
  }
  if (kind !== 'Node' && kind !== 'Pod') {
    into.skipped.push(`${where}: ${kind} ignored (berth simulates Nodes and Pods)`);
    return;
  }
  const meta = value.metadata;
  if (!isObject(meta) || typeof meta.name !== 'string' || meta.name === '') {
    throw new ManifestError(`${where}: ${kind} has no metadata.name`);
  }
  if (value.spec !== undefined && !isObject(value.spec))
    throw new ManifestError(`${where}: ${kind} ${meta.name}: spec must be an object`);
  if (kind === 'Node') into.nodes.push(value as unknown as NodeObject);
  else into.pods.push({ ...value, spec: value.spec ?? {} } as unknown as PodObject);
}

/**
 * Parses manifest text from `source` (a file name, for messages). Nodes and Pods are
 * kept; Lists are flattened; other kinds are skipped with a note. Throws ManifestError
 * for invalid YAML/JSON or objects without kind or name.
 */
export function parseManifests(text: string, source: string): Manifests {
  const into: Manifests = { nodes: [], pods: [], skipped: [] };
  for (const [i, doc] of parseDocuments(text, source).entries()) {
    collect(doc, `${source}: document ${i + 1}`, into);
  }
  return into;
}
