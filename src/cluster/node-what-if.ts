// What-if copies of a node: the same node with some pods added or taken off (nominated pods, preemption victims).
import { indexAffinityPod } from './charges.ts';
import { newNodeInfo, refreshHeadroom } from './node-info.ts';
import { addResources } from './resources.ts';
import type { NodeInfo, PodInfo } from './types.ts';

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
  copy.generation = node.generation;
  refreshHeadroom(copy);
  return copy;
}

/** Charges `pod` to the copy (a no-op when it is there already). Only for copies from `copyNode`. */
export function addPodToCopy(copy: NodeInfo, pod: PodInfo): void {
  if (copy.pods.has(pod.uid)) return;
  copy.pods.set(pod.uid, pod);
  indexAffinityPod(copy, pod.uid, pod);
  addResources(copy.requested, pod.requests, 1);
  copy.nonZeroRequested.milliCPU += pod.nonZeroRequests.milliCPU;
  copy.nonZeroRequested.memory += pod.nonZeroRequests.memory;
  refreshHeadroom(copy);
}

/** Takes `pod` off the copy (a no-op when it is not there). Only for copies from `copyNode`. */
export function removePodFromCopy(copy: NodeInfo, pod: PodInfo): void {
  if (!copy.pods.delete(pod.uid)) return;
  copy.podsWithAffinity.delete(pod.uid);
  copy.podsWithRequiredAntiAffinity.delete(pod.uid);
  addResources(copy.requested, pod.requests, -1);
  copy.nonZeroRequested.milliCPU -= pod.nonZeroRequests.milliCPU;
  copy.nonZeroRequested.memory -= pod.nonZeroRequests.memory;
  refreshHeadroom(copy);
}
