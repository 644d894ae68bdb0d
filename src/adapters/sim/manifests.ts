// Reads Kubernetes manifests (multi-document YAML, or JSON including v1 List) into nodes, pods, PriorityClasses and the other kinds the simulation serves.

import { parseAllDocuments } from 'yaml';
import { isObjectKind, type ObjectKind, objectKinds } from '../../cluster/cluster-objects.ts';
import { corePodGroupApiVersion } from '../../cluster/core-pod-groups.ts';
import { podGroupApiVersion } from '../../cluster/pod-groups.ts';
import type { NodeObject, PodObject } from '../../model/objects.ts';
import { isRecord } from '../../model/record.ts';

/** A `scheduling.k8s.io/v1` PriorityClass as read from a manifest (fields unchecked). */
export interface PriorityClassObject {
  metadata: { name: string; resourceVersion?: string };
  value?: unknown;
  globalDefault?: unknown;
  preemptionPolicy?: unknown;
}

/** The kinds `simulate` uses besides the watched object kinds. */
export type ManifestKind = 'Node' | 'Pod' | 'PriorityClass';

/**
 * The kinds only the simulated cluster reads: kube-controller-manager's inputs, not objects
 * the core watches (a ResourceClaimTemplate becomes a pod's ResourceClaim in the sim).
 */
export const simOnlyKinds = Object.freeze(['ResourceClaimTemplate'] as const);

/** A kind kept as a ManifestObject: one the core watches, or one only the sim reads. */
export type SimObjectKind = ObjectKind | (typeof simOnlyKinds)[number];

/** True when `v` names a kind only the simulated cluster reads. */
export function isSimOnlyKind(v: unknown): v is (typeof simOnlyKinds)[number] {
  return (simOnlyKinds as readonly unknown[]).includes(v);
}

/**
 * An object of a watched kind (Namespace, Service, ReplicaSet, PVC, DRA objects, …) or of a
 * sim-only kind (ResourceClaimTemplate) from a manifest.
 */
export interface ManifestObject {
  kind: SimObjectKind;
  object: Record<string, unknown>;
  /** Where it was found ("FILE: document 3"). */
  origin: string;
}

/**
 * Objects found in manifests, and where each came from. `origins` are index-aligned with
 * `nodes`, `pods` and `priorityClasses` ("FILE: document 3", "FILE: document 1 items[7]").
 */
export interface Manifests {
  nodes: NodeObject[];
  pods: PodObject[];
  priorityClasses: PriorityClassObject[];
  /** Namespaces, workloads, volume and DRA objects, ResourceClaimTemplates, in file order. */
  objects: ManifestObject[];
  origins: { Node: string[]; Pod: string[]; PriorityClass: string[] };
  /** Notes on documents of other kinds, which were skipped. */
  skipped: string[];
}

/** A manifest that cannot be used; the message names the file and document. */
export class ManifestError extends Error {
  override name = 'ManifestError';
}

/**
 * The deepest nesting a document may have. Kubernetes objects nest a few dozen levels;
 * much deeper input is refused here rather than overflow the stack later.
 */
export const maxManifestDepth = 1000;
/** YAML alias expansions allowed per document (the `yaml` package's guard, made explicit). */
const maxAliasCount = 100;

/** The nesting depth of a parsed value, measured without recursion; stops past `limit`. */
function depthExceeds(root: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  for (;;) {
    const top = stack.pop();
    if (top === undefined) return false;
    const [value, depth] = top;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > limit) return true;
    const children = Array.isArray(value) ? value : Object.values(value);
    for (const child of children)
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/Maximum call stack size exceeded/.test(message))
    return `nesting too deep (more than ${maxManifestDepth} levels)`;
  if (/Excessive alias count/.test(message))
    return `too many YAML alias expansions (more than ${maxAliasCount}; an alias bomb?)`;
  return (message.split('\n')[0] ?? '').replace(/:$/, '');
}

function checkDepth(value: unknown, where: string): unknown {
  if (depthExceeds(value, maxManifestDepth))
    throw new ManifestError(`${where}: nesting too deep (more than ${maxManifestDepth} levels)`);
  return value;
}

function parseDocuments(text: string, source: string): unknown[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not strict JSON: YAML is a superset, let it report the error precisely.
    }
    if (parsed !== undefined) return [checkDepth(parsed, `${source}: document 1`)];
  }
  let docs: ReturnType<typeof parseAllDocuments>;
  try {
    docs = parseAllDocuments(text);
  } catch (error) {
    throw new ManifestError(`${source}: invalid YAML: ${firstLine(error)}`);
  }
  const out: unknown[] = [];
  for (const [i, doc] of docs.entries()) {
    const where = `${source}: document ${i + 1}`;
    const error = doc.errors[0];
    if (error !== undefined) throw new ManifestError(`${where}: invalid YAML: ${firstLine(error)}`);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount });
    } catch (e) {
      throw new ManifestError(`${where}: ${firstLine(e)}`);
    }
    if (value !== null && value !== undefined) out.push(checkDepth(value, where));
  }
  return out;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return JSON.stringify(value)?.slice(0, 40) ?? String(value);
}

function collect(value: unknown, where: string, into: Manifests): void {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) collect(item, `${where}[${i}]`, into);
    return;
  }
  if (!isRecord(value))
    throw new ManifestError(`${where}: expected a Kubernetes object, got ${describe(value)}`);
  const kind = value.kind;
  if (typeof kind !== 'string') throw new ManifestError(`${where}: object has no "kind"`);
  if (kind === 'List' || kind.endsWith('List')) {
    if (!Array.isArray(value.items))
      throw new ManifestError(`${where}: ${kind} has no "items" array`);
    for (const [i, item] of value.items.entries()) collect(item, `${where} items[${i}]`, into);
    return;
  }
  const used = kind === 'Node' || kind === 'Pod' || kind === 'PriorityClass';
  if (!used && !isObjectKind(kind) && !isSimOnlyKind(kind)) {
    // A core PodGroup is written `kind: PodGroup` (apiVersion scheduling.k8s.io/v1beta1).
    const kinds = objectKinds.filter((k) => k !== 'CorePodGroup');
    const kept = [...kinds, ...simOnlyKinds].join(', ');
    into.skipped.push(
      `${where}: ${kind} ignored (berth simulates Nodes, Pods, PriorityClasses, ${kept})`,
    );
    return;
  }
  // Kubernetes' own PodGroup is another kind inside berth; 'CorePodGroup' is no API kind.
  if (kind === 'CorePodGroup') {
    into.skipped.push(
      `${where}: CorePodGroup ignored (write kind PodGroup, apiVersion ${corePodGroupApiVersion})`,
    );
    return;
  }
  // Another project's PodGroup (Volcano's scheduling.volcano.sh) has other fields.
  if (
    kind === 'PodGroup' &&
    value.apiVersion !== undefined &&
    value.apiVersion !== podGroupApiVersion &&
    value.apiVersion !== corePodGroupApiVersion
  ) {
    into.skipped.push(
      `${where}: PodGroup of ${String(value.apiVersion)} ignored (berth reads ${podGroupApiVersion} and ${corePodGroupApiVersion} PodGroups)`,
    );
    return;
  }
  const meta = value.metadata;
  if (!isRecord(meta) || typeof meta.name !== 'string' || meta.name === '') {
    throw new ManifestError(`${where}: ${kind} has no metadata.name`);
  }
  if (kind === 'PodGroup' && value.apiVersion === corePodGroupApiVersion) {
    into.objects.push({ kind: 'CorePodGroup', object: value, origin: where });
    return;
  }
  if (isObjectKind(kind) || isSimOnlyKind(kind)) {
    into.objects.push({ kind, object: value, origin: where });
    return;
  }
  into.origins[kind].push(where);
  if (kind === 'PriorityClass') {
    into.priorityClasses.push(value as unknown as PriorityClassObject);
    return;
  }
  if (value.spec !== undefined && value.spec !== null && !isRecord(value.spec))
    throw new ManifestError(`${where}: ${kind} ${meta.name}: spec must be an object`);
  if (kind === 'Node') into.nodes.push(value as unknown as NodeObject);
  else into.pods.push({ ...value, spec: value.spec ?? {} } as unknown as PodObject);
}

/** No objects at all, with the same shape as `parseManifests` returns. */
export function emptyManifests(): Manifests {
  return {
    nodes: [],
    pods: [],
    priorityClasses: [],
    objects: [],
    origins: { Node: [], Pod: [], PriorityClass: [] },
    skipped: [],
  };
}

/**
 * Parses manifest text from `source` (a file name, for messages). Nodes, Pods and
 * PriorityClasses are kept with where each was found, the watched object kinds (DRA's
 * ResourceClaims, DeviceClasses, ResourceSlices, DeviceTaintRules among them) and
 * ResourceClaimTemplates (read by the sim only) with their origin; Lists are flattened;
 * other kinds are skipped with a note. Throws ManifestError, naming `source` and the document, for
 * invalid YAML/JSON, alias bombs, nesting deeper than `maxManifestDepth`, objects without
 * kind or name, and a source that holds no Node, Pod or PriorityClass at all.
 */
export function parseManifests(text: string, source: string): Manifests {
  const into = emptyManifests();
  const docs = parseDocuments(text, source);
  for (const [i, doc] of docs.entries()) collect(doc, `${source}: document ${i + 1}`, into);
  const used =
    into.nodes.length + into.pods.length + into.priorityClasses.length + into.objects.length;
  if (used + into.skipped.length === 0)
    throw new ManifestError(`${source}: no Kubernetes objects in the file`);
  if (used === 0)
    throw new ManifestError(
      `${source}: no Nodes, Pods or PriorityClasses in the file (${into.skipped.length} other object(s) skipped)`,
    );
  return into;
}
