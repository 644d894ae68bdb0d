// The pod affinity index the charges keep: nodes holding pods with terms, and live pods' terms grouped with their pair counts.
import {
  type AffinityTerm,
  hasPodAffinityTerms,
  termKey,
  type WeightedAffinityTerm,
} from './pod-affinity.ts';
import { adjustPair, nodeMatchesCounted, podMatchCounted } from './pod-affinity-matches.ts';
import type {
  ClusterState,
  NodeInfo,
  PodAffinityIndex,
  PodAffinityIndexView,
  PodInfo,
  TermKind,
} from './types.ts';

export type { PodAffinityIndex, PodAffinityIndexView, TermGroup, TermKind } from './types.ts';

/** The term kinds, in a fixed order. */
export const termKinds: readonly TermKind[] = Object.freeze([
  'requiredAffinityTerms',
  'requiredAntiAffinityTerms',
  'preferredAffinityTerms',
  'preferredAntiAffinityTerms',
] as const);

function emptyIndex(generation: number): PodAffinityIndex {
  return {
    withAffinity: new Map(),
    withRequiredAntiAffinity: new Map(),
    groups: {
      requiredAffinityTerms: new Map(),
      requiredAntiAffinityTerms: new Map(),
      preferredAffinityTerms: new Map(),
      preferredAntiAffinityTerms: new Map(),
    },
    liveLabels: new Map(),
    generation,
  };
}

/** Counts (`sign` 1) or uncounts (−1) the terms of `info`, a pod on a live node with `labels`. */
function countTerms(
  index: PodAffinityIndex,
  info: PodInfo,
  labels: Record<string, string>,
  sign: 1 | -1,
): void {
  const terms = info.podAffinity;
  for (const kind of termKinds) {
    const list: readonly AffinityTerm[] = terms[kind];
    if (list.length === 0) continue;
    const groups = index.groups[kind];
    for (const t of list) {
      const key = termKey(t);
      let g = groups.get(key);
      if (g === undefined) {
        const weight = (t as Partial<WeightedAffinityTerm>).weight ?? 1;
        g = { term: t, weight, pairs: new Map(), members: 0 };
        groups.set(key, g);
      }
      g.members += sign;
      if (Object.hasOwn(labels, t.topologyKey))
        adjustPair(g.pairs, labels[t.topologyKey] as string, sign);
      if (g.members <= 0) groups.delete(key);
    }
  }
}

/** Counts or uncounts every pod of `node` under `labels` (a node going live, away, or relabelled). */
function countNode(
  index: PodAffinityIndex,
  node: NodeInfo,
  labels: Record<string, string>,
  sign: 1 | -1,
): void {
  for (const info of node.podsWithAffinity.values()) countTerms(index, info, labels, sign);
  nodeMatchesCounted(index, node, labels, sign);
}

/** Lists or unlists `node` (live or absent) by whether its affinity lists are empty. */
function syncListed(index: PodAffinityIndex, node: NodeInfo): void {
  if (node.podsWithAffinity.size > 0) index.withAffinity.set(node.name, node);
  else if (index.withAffinity.get(node.name) === node) index.withAffinity.delete(node.name);
  if (node.podsWithRequiredAntiAffinity.size > 0)
    index.withRequiredAntiAffinity.set(node.name, node);
  else if (index.withRequiredAntiAffinity.get(node.name) === node)
    index.withRequiredAntiAffinity.delete(node.name);
}

/** Builds the index of `state` from its nodes (live and absent) and their pods. */
export function buildPodAffinityIndex(state: ClusterState): PodAffinityIndex {
  const index = emptyIndex(state.generation);
  for (const node of state.nodes.values()) {
    syncListed(index, node);
    index.liveLabels.set(node.name, node.labels);
    for (const info of node.podsWithAffinity.values()) countTerms(index, info, node.labels, 1);
  }
  for (const node of state.absentNodes.values()) syncListed(index, node);
  return index;
}

/** The state's index, built from the nodes first if the state has none yet. */
export function podAffinityIndexOf(state: ClusterState): PodAffinityIndex {
  let index = state.podAffinityIndex;
  if (index === undefined) {
    index = buildPodAffinityIndex(state);
    state.podAffinityIndex = index;
  }
  return index;
}

/** The labels `node` is counted under when it is live and counted, else undefined. */
function countedLabels(
  index: PodAffinityIndex,
  state: ClusterState,
  node: NodeInfo,
): Record<string, string> | undefined {
  const labels = index.liveLabels.get(node.name);
  return labels !== undefined && state.nodes.get(node.name) === node ? labels : undefined;
}

/**
 * After the charges put `info` in `node.pods` (and its affinity lists): lists the node, and
 * counts the pod if the node is live. The index must have existed before the pod went in.
 */
export function notePodCharged(state: ClusterState, node: NodeInfo, info: PodInfo): void {
  const index = podAffinityIndexOf(state);
  if (hasPodAffinityTerms(info.podAffinity)) syncListed(index, node);
  const labels = countedLabels(index, state, node);
  if (labels === undefined) return;
  countTerms(index, info, labels, 1);
  podMatchCounted(index, info, labels, 1);
}

/** After the charges took `held` (the pod as charged) out of `node`: the reverse of `notePodCharged`. */
export function notePodReleased(state: ClusterState, node: NodeInfo, held: PodInfo): void {
  const index = podAffinityIndexOf(state);
  if (hasPodAffinityTerms(held.podAffinity)) syncListed(index, node);
  const labels = countedLabels(index, state, node);
  if (labels === undefined) return;
  countTerms(index, held, labels, -1);
  podMatchCounted(index, held, labels, -1);
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) if (!Object.hasOwn(b, k) || a[k] !== b[k]) return false;
  return true;
}

/**
 * After the reducer changed `node` (every change bumps its generation): a node that became
 * live has its pods counted; a live node whose labels changed has them counted again under
 * the new labels. Marks the index current. Builds the index if the state has none.
 */
export function noteNodeChanged(state: ClusterState, node: NodeInfo): void {
  const index = state.podAffinityIndex;
  if (index === undefined) {
    state.podAffinityIndex = buildPodAffinityIndex(state);
    return;
  }
  if (state.nodes.get(node.name) === node) {
    const seen = index.liveLabels.get(node.name);
    if (seen === undefined) {
      index.liveLabels.set(node.name, node.labels);
      countNode(index, node, node.labels, 1);
    } else if (seen !== node.labels) {
      if (!sameLabels(seen, node.labels)) {
        countNode(index, node, seen, -1);
        countNode(index, node, node.labels, 1);
      }
      index.liveLabels.set(node.name, node.labels);
    }
  }
  index.generation = state.generation;
}

/** After the reducer took `node` out of the live nodes: its pods stop counting. */
export function noteNodeGone(state: ClusterState, node: NodeInfo): void {
  const index = state.podAffinityIndex;
  if (index === undefined || state.nodes.get(node.name) === node) return;
  const seen = index.liveLabels.get(node.name);
  if (seen === undefined) return;
  countNode(index, node, seen, -1);
  index.liveLabels.delete(node.name);
}

/**
 * The snapshot's index when it is current (the reducer kept it up to the snapshot's
 * generation), else undefined: readers then walk the nodes.
 */
export function currentPodAffinityIndex(snapshot: {
  readonly podAffinityIndex?: PodAffinityIndexView;
}): PodAffinityIndexView | undefined {
  const index = snapshot.podAffinityIndex;
  if (index === undefined) return undefined;
  const generation = (snapshot as { readonly generation?: number }).generation;
  return index.generation === generation ? index : undefined;
}
