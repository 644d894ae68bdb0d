// Builds the scheduling view of a Node (NodeInfo) from an untrusted object, totally.
import { amountToFloat, subAmounts } from './amount.ts';
import { parseTaints } from './constraints.ts';
import { NO_FEATURES, parseDeclaredFeatures } from './declared-features.ts';
import { emptyRecord, isRecord, nonEmptyString, stringEntries } from './fields.ts';
import { NO_IMAGES, parseNodeImages } from './images.ts';
import { parseQuantityAt, toMilli, toUnits } from './quantity.ts';
import { RESOURCE_FIELDS, zeroResources } from './resources.ts';
import type { Allocatable, NodeInfo } from './types.ts';

/** Allocatable resources with nothing in them. */
export function zeroAllocatable(): Allocatable {
  return { ...zeroResources(), pods: 0 };
}

/**
 * Reads `status.allocatable`, falling back to `status.capacity` only when allocatable is
 * absent (the API server's own defaulting). A missing `pods` entry means 0 pods fit, as in
 * kube-scheduler (NodeInfo.Allocatable.AllowedPodNumber stays 0 and NodeResourcesFit then
 * reports "Too many pods"). An unparsable or negative quantity counts as 0 and is reported.
 */
function readAllocatable(status: Record<string, unknown>): {
  allocatable: Allocatable;
  invalid: string | undefined;
} {
  const allocatable = zeroAllocatable();
  let invalid: string | undefined;
  let field = 'status.allocatable';
  let list: unknown = status.allocatable;
  if (list === undefined || list === null) {
    field = 'status.capacity';
    list = status.capacity;
  }
  if (list === undefined || list === null) return { allocatable, invalid };
  if (!isRecord(list)) return { allocatable, invalid: `${field} is not an object` };
  for (const name of Object.keys(list)) {
    const parsed = parseQuantityAt(list[name], `${field}.${name}`);
    if (!parsed.ok) {
      invalid ??= parsed.error;
      continue;
    }
    const target = RESOURCE_FIELDS.get(name);
    if (target === 'milliCPU') allocatable.milliCPU = toMilli(parsed.q);
    else if (target !== undefined) allocatable[target] = toUnits(parsed.q);
    // A pod count is only ever compared with the pods on the node: its float is exact enough.
    else if (name === 'pods') allocatable.pods = amountToFloat(toUnits(parsed.q));
    else allocatable.scalar[name] = toUnits(parsed.q);
  }
  return { allocatable, invalid };
}

/**
 * Parses a Node object into a NodeInfo with nothing charged (zero requested, no pods,
 * generation 0). Never throws; rejects only a node without a non-empty string
 * `metadata.name`. A malformed taint or allocatable sets `invalid`, naming the field.
 */
export function nodeInfoFromObject(obj: unknown): NodeInfo | { rejected: string } {
  if (!isRecord(obj)) return { rejected: 'node is not an object' };
  const meta = isRecord(obj.metadata) ? obj.metadata : emptyRecord<unknown>();
  const name = nonEmptyString(meta.name);
  if (name === undefined) return { rejected: 'node has no metadata.name' };
  const spec = isRecord(obj.spec) ? obj.spec : emptyRecord<unknown>();
  const status = isRecord(obj.status) ? obj.status : emptyRecord<unknown>();
  const { allocatable, invalid: allocInvalid } = readAllocatable(status);
  const taints = parseTaints(spec.taints, 'spec.taints');
  return newNodeInfo({
    name,
    labels: stringEntries(meta.labels),
    taints: taints.ok ? taints.value : [],
    unschedulable: spec.unschedulable === true,
    allocatable,
    invalid: taints.ok ? allocInvalid : taints.error,
    images: parseNodeImages(status.images),
    declaredFeatures: parseDeclaredFeatures(status.declaredFeatures),
  });
}

/**
 * The object part of a node: what its manifest says, before anything is charged. `images`
 * and `declaredFeatures` may be left out (none).
 */
export type NodeObjectPart = Pick<
  NodeInfo,
  'name' | 'labels' | 'taints' | 'unschedulable' | 'allocatable' | 'invalid'
> & {
  images?: ReadonlyMap<string, number> | undefined;
  declaredFeatures?: readonly string[] | undefined;
};

/**
 * The one NodeInfo constructor: the object part, nothing charged, generation 0, and the
 * inline hot fields computed from it. Parsers, absent nodes and test builders all use it.
 */
export function newNodeInfo(part: NodeObjectPart): NodeInfo {
  // Every field spelled out, never `...part`: V8 turns objects built by spreading and then
  // extending into slow dictionary-mode objects after a few of them (measured: from the
  // 10th node on), and the cycle reads these fields on every node it visits.
  const node: NodeInfo = {
    name: part.name,
    labels: part.labels,
    taints: part.taints,
    unschedulable: part.unschedulable,
    allocatable: part.allocatable,
    invalid: part.invalid,
    images: part.images ?? NO_IMAGES,
    declaredFeatures: part.declaredFeatures ?? NO_FEATURES,
    requested: zeroResources(),
    nonZeroRequested: { milliCPU: 0, memory: 0 },
    pods: new Map(),
    podsWithAffinity: new Map(),
    podsWithRequiredAntiAffinity: new Map(),
    generation: 0,
    freeMilliCPU: 0,
    freeMemory: 0,
    freeEphemeralStorage: 0,
    freePods: 0,
    allocMilliCPU: 0,
    allocMemory: 0,
    nonZeroMilliCPU: 0,
    nonZeroMemory: 0,
  };
  refreshHeadroom(node);
  return node;
}

/** A stand-in for a node the cluster does not (or no longer) have, to hold pods charged to it. */
export function absentNodeInfo(name: string): NodeInfo {
  return newNodeInfo({
    name,
    labels: emptyRecord(),
    taints: [],
    unschedulable: true,
    allocatable: zeroAllocatable(),
    invalid: 'node not found',
  });
}

/**
 * Replaces the object part of `existing` (labels, taints, unschedulable, allocatable, invalid,
 * images, declared features) with that of `parsed`, keeping its charges (requested, pods). Mutates and returns
 * `existing`; the caller bumps `generation` and keeps the indexes.
 */
export function updateNodeObject(existing: NodeInfo, parsed: NodeInfo): NodeInfo {
  existing.labels = parsed.labels;
  existing.taints = parsed.taints;
  existing.unschedulable = parsed.unschedulable;
  existing.allocatable = parsed.allocatable;
  refreshHeadroom(existing);
  existing.invalid = parsed.invalid;
  existing.images = parsed.images;
  existing.declaredFeatures = parsed.declaredFeatures;
  return existing;
}

/** Recomputes a node's inline hot fields (headroom and scorer inputs) from their sources, exactly. */
export function refreshHeadroom(node: NodeInfo): void {
  const a = node.allocatable;
  const r = node.requested;
  node.freeMilliCPU = subAmounts(a.milliCPU, r.milliCPU);
  node.freeMemory = subAmounts(a.memory, r.memory);
  node.freeEphemeralStorage = subAmounts(a.ephemeralStorage, r.ephemeralStorage);
  node.freePods = a.pods - node.pods.size;
  node.allocMilliCPU = a.milliCPU;
  node.allocMemory = a.memory;
  node.nonZeroMilliCPU = node.nonZeroRequested.milliCPU;
  node.nonZeroMemory = node.nonZeroRequested.memory;
}
