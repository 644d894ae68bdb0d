// The pod affinity index the charges keep: nodes holding pods with terms, and live pods' terms grouped with their pair counts.
import {
  type AffinityTerm,
  hasPodAffinityTerms,
  type PodAffinityTerms,
  termKey,
  type WeightedAffinityTerm,
} from './pod-affinity.ts';
import { adjustPair, nodeMatchesCounted, podMatchCounted } from './pod-affinity-matches.ts';
import type { ClusterState, NodeInfo, PodInfo } from './types.ts';

/** The four term lists of a pod, by their field names in `PodAffinityTerms`. */
export type TermKind = keyof PodAffinityTerms;

/** The term kinds, in a fixed order. */
export const termKinds: readonly TermKind[] = Object.freeze([
  'requiredAffinityTerms',
  'requiredAntiAffinityTerms',
  'preferredAffinityTerms',
  'preferredAntiAffinityTerms',
] as const);

/**
 * Equal terms of one kind held by pods on live nodes (kube walks them pod by pod; berth
 * matches the incoming pod once per group), with their topology pairs counted.
 */
export interface TermGroup {
  /** One member's term; every member's term is equal to it field by field (and weight). */
  readonly term: AffinityTerm;
  /** 1 for a required term; the weight of a preferred one (part of the group's identity). */
  readonly weight: number;
  /** Value of the node label `term.topologyKey` → members on live nodes with that value. */
  readonly pairs: Map<string, number>;
  /** Members (one per pod and term) on live nodes, with or without the key; 0: the group goes. */
  members: number;
}

/**
 * What the charges keep about pod (anti-)affinity: the nodes holding pods with terms, by
 * node name (kube's HavePodsWithAffinity and HavePodsWithRequiredAntiAffinity lists;
 * entries may be absent nodes: readers check `nodes`), and the terms of the pods on live
 * nodes, grouped by kind and content. Rebuilt from nodes and pods by `buildPodAffinityIndex`.
 */
export interface PodAffinityIndex {
  /** Nodes with a non-empty `podsWithAffinity`. */
  readonly withAffinity: Map<string, NodeInfo>;
  /** Nodes with a non-empty `podsWithRequiredAntiAffinity`. */
  readonly withRequiredAntiAffinity: Map<string, NodeInfo>;
  /** By kind: `termKey` → the group of the equal terms of pods on live nodes. */
  readonly groups: Record<TermKind, Map<string, TermGroup>>;
  /** Each live node's labels as its pods were counted under them, by node name. */
  readonly liveLabels: Map<string, Record<string, string>>;
  /** The state's `generation` when the index was last brought up to date. */
  generation: number;
}

/** Read-only view of the index, as plugins see it in the snapshot. */
export interface PodAffinityIndexView {
  readonly withAffinity: ReadonlyMap<string, NodeInfo>;
  readonly withRequiredAntiAffinity: ReadonlyMap<string, NodeInfo>;
  readonly groups: Readonly<Record<TermKind, ReadonlyMap<string, Readonly<TermGroup>>>>;
  readonly liveLabels: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly generation: number;
}

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
