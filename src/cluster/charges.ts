// Charging pods' requests to nodes, including nodes that are absent (deleted or not yet seen).
import { absentNodeInfo, refreshHeadroom } from './node-info.ts';
import { hasPodAffinityTerms } from './pod-affinity.ts';
import {
  noteNodeChanged,
  noteNodeGone,
  notePodCharged,
  notePodReleased,
  podAffinityIndexOf,
} from './pod-affinity-index.ts';
import { addNonZero, addResources } from './resources.ts';
import { noteSpreadCharge, noteSpreadGeneration } from './spread-counts.ts';
import type { Charge, ClusterState, NodeInfo, PodInfo } from './types.ts';

export { buildPodAffinityIndex } from './pod-affinity-index.ts';

/** No charge: the pod uses no node's resources. */
export const NO_CHARGE: Charge = Object.freeze({ kind: 'none' });

/**
 * Records pod `uid` (`info`, already in `node.pods`) in the node's pod affinity lists
 * (`podsWithAffinity`, `podsWithRequiredAntiAffinity`) when it has such terms.
 */
export function indexAffinityPod(node: NodeInfo, uid: string, info: PodInfo): void {
  const terms = info.podAffinity;
  if (!hasPodAffinityTerms(terms)) return;
  node.podsWithAffinity.set(uid, info);
  if (terms.requiredAntiAffinityTerms.length > 0) node.podsWithRequiredAntiAffinity.set(uid, info);
}

function addPodTo(node: NodeInfo, uid: string, info: PodInfo): void {
  node.pods.set(uid, info);
  indexAffinityPod(node, uid, info);
  addResources(node.requested, info.requests, 1);
  addNonZero(node.nonZeroRequested, info.nonZeroRequests, 1);
  refreshHeadroom(node);
}

/**
 * Marks a node as changed: gives it the state's next generation number, and brings the pod
 * affinity index up to date with it (a node gone live, or relabelled, is counted again).
 */
export function bumpGeneration(state: ClusterState, node: NodeInfo): void {
  state.generation += 1;
  node.generation = state.generation;
  noteSpreadGeneration(state, state.generation - 1);
  noteNodeChanged(state, node);
}

/** Charges pod `uid`'s requests (`info`) to the node named by `charge` (live or absent). No-op for none. */
export function applyCharge(state: ClusterState, uid: string, info: PodInfo, charge: Charge): void {
  if (charge.kind === 'none') return;
  let node = state.nodes.get(charge.node);
  if (node === undefined) {
    const ghosts = state.absentNodes;
    node = ghosts.get(charge.node);
    if (node === undefined) {
      node = absentNodeInfo(charge.node);
      ghosts.set(charge.node, node);
    }
  }
  if (node.pods.has(uid)) return; // already charged there: never count a pod twice
  podAffinityIndexOf(state); // built without the pod, which notePodCharged then counts
  addPodTo(node, uid, info);
  bumpGeneration(state, node);
  notePodCharged(state, node, info);
  noteSpreadCharge(state, node.name, info, 1);
}

/** Removes `info`'s requests from the node named by `charge`. No-op for none. */
export function releaseCharge(
  state: ClusterState,
  uid: string,
  info: PodInfo,
  charge: Charge,
): void {
  if (charge.kind === 'none') return;
  const ghosts = state.absentNodes;
  const live = state.nodes.get(charge.node);
  const node = live ?? ghosts.get(charge.node);
  const held = node?.pods.get(uid);
  if (node === undefined || held === undefined) return;
  podAffinityIndexOf(state); // built with the pod, which notePodReleased then uncounts
  node.pods.delete(uid);
  node.podsWithAffinity.delete(uid);
  node.podsWithRequiredAntiAffinity.delete(uid);
  notePodReleased(state, node, held);
  noteSpreadCharge(state, node.name, held, -1);
  addResources(node.requested, info.requests, -1);
  addNonZero(node.nonZeroRequested, info.nonZeroRequests, -1);
  refreshHeadroom(node);
  bumpGeneration(state, node);
  if (live === undefined && node.pods.size === 0) ghosts.delete(charge.node);
}

/** Keeps a deleted node's charges (if it has any) until it comes back or its pods go. */
export function keepAbsentNode(state: ClusterState, node: NodeInfo): void {
  noteNodeGone(state, node);
  if (node.pods.size === 0) return;
  state.absentNodes.set(node.name, node);
  bumpGeneration(state, node);
}

/** Takes back the charges held for an absent node, if any, when it (re)appears. */
export function takeAbsentNode(state: ClusterState, name: string): NodeInfo | undefined {
  const ghosts = state.absentNodes;
  const node = ghosts.get(name);
  if (node !== undefined) ghosts.delete(name);
  return node;
}

/** Absent nodes that still hold charges (read-only view, for invariant checks and tests). */
export function absentNodes(state: ClusterState): ReadonlyMap<string, NodeInfo> {
  return state.absentNodes;
}
