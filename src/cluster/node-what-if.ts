// What-if copies of a node: the same node with some pods added or taken off (nominated pods, preemption victims).
import { indexAffinityPod } from './charges.ts';
import { newNodeInfo, refreshHeadroom } from './node-info.ts';
import { addNonZero, addResources } from './resources.ts';
import type { NodeInfo, PodInfo } from './types.ts';

/**
 * Generations of what-if copies: negative and never reused, so a cache keyed by a node
 * object and its generation (e.g. the claim users of a node) never takes a copy's changed
 * pods, or a reused scratch copy of another node, for what it saw before.
 */
let lastWhatIfGeneration = 0;

function nextWhatIfGeneration(): number {
  lastWhatIfGeneration -= 1;
  return lastWhatIfGeneration;
}

/**
 * A copy of `node` that can be changed with `addPodToCopy` / `removePodFromCopy` without
 * touching the original (kube's NodeInfo.Snapshot()): its own pod maps and charge sums; the
 * object part (labels, taints, allocatable, images) is shared, read-only.
 */
export function copyNode(node: NodeInfo): NodeInfo {
  const copy = newNodeInfo({
    name: node.name,
    labels: node.labels,
    taints: node.taints,
    unschedulable: node.unschedulable,
    allocatable: node.allocatable,
    invalid: node.invalid,
    images: node.images,
  });
  copy.requested = {
    milliCPU: node.requested.milliCPU,
    memory: node.requested.memory,
    ephemeralStorage: node.requested.ephemeralStorage,
    scalar: { ...node.requested.scalar },
  };
  copy.nonZeroRequested = { ...node.nonZeroRequested };
  copy.pods = new Map(node.pods);
  copy.podsWithAffinity = new Map(node.podsWithAffinity);
  copy.podsWithRequiredAntiAffinity = new Map(node.podsWithRequiredAntiAffinity);
  copy.generation = nextWhatIfGeneration();
  refreshHeadroom(copy);
  return copy;
}

function refill<K, V>(into: Map<K, V>, from: ReadonlyMap<K, V>): void {
  into.clear();
  for (const [k, v] of from) into.set(k, v);
}

/**
 * `copyNode(node)`, reusing `scratch` (a copy made by `copyNode` that nobody holds any
 * more) instead of allocating: a cycle that filters thousands of nodes with nominated pods
 * makes one copy per node. Returns `scratch`, now a copy of `node`.
 */
export function copyNodeInto(scratch: NodeInfo, node: NodeInfo): NodeInfo {
  scratch.name = node.name;
  scratch.labels = node.labels;
  scratch.taints = node.taints;
  scratch.unschedulable = node.unschedulable;
  scratch.allocatable = node.allocatable;
  scratch.invalid = node.invalid;
  scratch.images = node.images;
  const r = scratch.requested;
  r.milliCPU = node.requested.milliCPU;
  r.memory = node.requested.memory;
  r.ephemeralStorage = node.requested.ephemeralStorage;
  r.scalar = { ...node.requested.scalar };
  scratch.nonZeroRequested.milliCPU = node.nonZeroRequested.milliCPU;
  scratch.nonZeroRequested.memory = node.nonZeroRequested.memory;
  refill(scratch.pods, node.pods);
  refill(scratch.podsWithAffinity, node.podsWithAffinity);
  refill(scratch.podsWithRequiredAntiAffinity, node.podsWithRequiredAntiAffinity);
  scratch.generation = nextWhatIfGeneration();
  refreshHeadroom(scratch);
  return scratch;
}

/** Charges `pod` to the copy (a no-op when it is there already). Only for copies from `copyNode`. */
export function addPodToCopy(copy: NodeInfo, pod: PodInfo): void {
  if (copy.pods.has(pod.uid)) return;
  copy.pods.set(pod.uid, pod);
  indexAffinityPod(copy, pod.uid, pod);
  addResources(copy.requested, pod.requests, 1);
  addNonZero(copy.nonZeroRequested, pod.nonZeroRequests, 1);
  copy.generation = nextWhatIfGeneration();
  refreshHeadroom(copy);
}

/** Takes `pod` off the copy (a no-op when it is not there). Only for copies from `copyNode`. */
export function removePodFromCopy(copy: NodeInfo, pod: PodInfo): void {
  if (!copy.pods.delete(pod.uid)) return;
  copy.podsWithAffinity.delete(pod.uid);
  copy.podsWithRequiredAntiAffinity.delete(pod.uid);
  addResources(copy.requested, pod.requests, -1);
  addNonZero(copy.nonZeroRequested, pod.nonZeroRequests, -1);
  copy.generation = nextWhatIfGeneration();
  refreshHeadroom(copy);
}
