// PodTopologySpread PreScore/Score/NormalizeScore: ScheduleAnyway constraints, fewer matches score higher.
import { type SpreadConstraint, selectorIsEmpty } from '../../cluster/spread-constraints.ts';
import { type SpreadCounts, spreadCountsOf } from '../../cluster/spread-counts.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../../cluster/types.ts';
import { type CycleState, maxNodeScore } from '../../framework/types.ts';
import {
  countMatchingPods,
  hasAllTopologyKeys,
  labelHostname,
  matchesInclusionPolicies,
  name,
} from './common.ts';
import { constraintsFor, requiresAllTopologies, type SpreadArgs } from './defaults.ts';

/** The cycle-state key of the PreScore data (kube's "PreScore" + plugin name). */
export const preScoreStateKey = `PreScore${name}`;

/**
 * The raw score of a node left out of scoring (it lacks a topology key). Real raw scores
 * are ≥ 0; `normalize` turns this into 0, as kube does with its IgnoredNodes.
 */
export const ignoredScore = -1;

/** What PreScore leaves for Score, one entry per ScheduleAnyway constraint, aligned. */
export interface PreScoreState {
  readonly constraints: readonly SpreadConstraint[];
  /** Names of scored nodes missing some constraint's topology key (kube's IgnoredNodes). */
  readonly ignored: ReadonlySet<string>;
  /**
   * Per constraint: the domains of the scored nodes → matching pods over all eligible
   * nodes. Empty for the hostname key, whose count Score takes from the node itself.
   */
  readonly counts: readonly Map<string, number>[];
  /** Per constraint: kube's topologyNormalizingWeight of its number of domains. */
  readonly weights: readonly number[];
  /** Per constraint: the snapshot's kept matching-pod counts by node name, if it keeps them. */
  readonly hostCounts?: readonly (SpreadCounts | undefined)[];
  /** The live nodes the kept counts are for (a node object not among them is counted afresh). */
  readonly liveNodes?: ReadonlyMap<string, NodeInfo>;
}

/** kube's topologyNormalizingWeight: log(size + 2), so small topologies are not watered down. */
export function topologyNormalizingWeight(size: number): number {
  return Math.log(size + 2);
}

/** kube's scoreForCount: count × weight + (maxSkew − 1), which damps small skews. */
export function scoreForCount(count: number, maxSkew: number, weight: number): number {
  return count * weight + (maxSkew - 1);
}

/** Go's math.Round: half away from zero (Math.round rounds −2.5 to −2). */
function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/**
 * kube's PreScore: with `requireAll` (the pod's own constraints, or List defaulting) the
 * scored nodes missing a key are ignored; the others' domains, per constraint except the
 * hostname one, are counted over every node of the snapshot that has all keys and passes
 * the constraint's inclusion policies. Without it (system defaults), no node is ignored
 * and a node missing a key sits in the empty-valued domain of that key, as kube's map
 * lookup of a missing label gives "". Weights use the domain counts of the scored nodes
 * (for hostname: the scored nodes not ignored).
 */
export function computePreScoreState(
  pod: PodInfo,
  constraints: readonly SpreadConstraint[],
  snapshot: ClusterSnapshot,
  nodes: readonly NodeInfo[],
  requireAll = true,
): PreScoreState {
  const n = constraints.length;
  const ignored = new Set<string>();
  const counts: Map<string, number>[] = [];
  for (let i = 0; i < n; i++) counts.push(new Map());
  for (let j = 0; j < nodes.length; j++) {
    const node = nodes[j] as NodeInfo;
    if (requireAll && !hasAllTopologyKeys(node.labels, constraints)) {
      ignored.add(node.name);
      continue;
    }
    for (let i = 0; i < n; i++) {
      const c = constraints[i] as SpreadConstraint;
      if (c.topologyKey === labelHostname) continue;
      const m = counts[i] as Map<string, number>;
      const value = node.labels[c.topologyKey] ?? '';
      if (!m.has(value)) m.set(value, 0);
    }
  }
  const weights: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = constraints[i] as SpreadConstraint;
    const size =
      c.topologyKey === labelHostname
        ? nodes.length - ignored.size
        : (counts[i] as Map<string, number>).size;
    weights.push(topologyNormalizingWeight(size));
  }
  const hostCounts = addMatchingPods(pod, constraints, snapshot, counts, requireAll);
  return { constraints, ignored, counts, weights, hostCounts, liveNodes: snapshot.nodes };
}

/** A constraint whose selector is empty or Nothing: kube counts no pod for it. */
function countsNothing(c: SpreadConstraint): boolean {
  return c.selector.nothing || selectorIsEmpty(c.selector);
}

/**
 * Adds to each constraint's domains (those already in `counts`) the matching pods of the
 * live nodes that have all keys (with `requireAll`) and pass its inclusion policies. From
 * the snapshot's kept counts (only nodes holding matching pods are visited) when it keeps
 * them, else over every node. Returns the kept counts per constraint (undefined: none).
 */
function addMatchingPods(
  pod: PodInfo,
  constraints: readonly SpreadConstraint[],
  snapshot: ClusterSnapshot,
  counts: readonly Map<string, number>[],
  requireAll: boolean,
): (SpreadCounts | undefined)[] {
  const kept = constraints.map((c) => spreadCountsOf(snapshot, pod.namespace, c.selector));
  if (kept.every((k, i) => k !== undefined || countsNothing(constraints[i] as SpreadConstraint)))
    for (let i = 0; i < constraints.length; i++) {
      const perNode = kept[i]?.perNode;
      const c = constraints[i] as SpreadConstraint;
      const m = counts[i] as Map<string, number>;
      if (perNode === undefined || m.size === 0) continue;
      for (const [nodeName, num] of perNode) {
        const node = snapshot.nodes.get(nodeName);
        if (node === undefined) continue; // absent: not among the snapshot's nodes
        if (requireAll && !hasAllTopologyKeys(node.labels, constraints)) continue;
        const value = node.labels[c.topologyKey] ?? '';
        const current = m.get(value);
        if (current === undefined || !matchesInclusionPolicies(c, pod, node)) continue;
        m.set(value, current + num);
      }
    }
  else addMatchingPodsByWalk(pod, constraints, snapshot, counts, requireAll);
  return kept;
}

/** `addMatchingPods` over every node of the snapshot, counting each node's pods. */
function addMatchingPodsByWalk(
  pod: PodInfo,
  constraints: readonly SpreadConstraint[],
  snapshot: ClusterSnapshot,
  counts: readonly Map<string, number>[],
  requireAll: boolean,
): void {
  const n = constraints.length;
  const all = snapshot.nodeOrder;
  for (let j = 0; j < all.length; j++) {
    const node = all[j] as NodeInfo;
    // A node without pods adds nothing to any count (domains come from the scored nodes).
    if (node.pods.size === 0) continue;
    if (requireAll && !hasAllTopologyKeys(node.labels, constraints)) continue;
    for (let i = 0; i < n; i++) {
      const c = constraints[i] as SpreadConstraint;
      const m = counts[i] as Map<string, number>;
      const value = node.labels[c.topologyKey] ?? '';
      const current = m.get(value);
      // Only the scored nodes' domains are counted (never the hostname key's: empty map).
      if (current === undefined || !matchesInclusionPolicies(c, pod, node)) continue;
      m.set(value, current + countMatchingPods(node, c, pod.namespace));
    }
  }
}

/** The matching pods on `node` itself for constraint `i`: kept counts when they are for it. */
function hostCount(s: PreScoreState, i: number, pod: PodInfo, node: NodeInfo): number {
  const kept = s.hostCounts?.[i];
  if (kept?.kept === true && s.liveNodes?.get(node.name) === node)
    return kept.perNode.get(node.name) ?? 0;
  return countMatchingPods(node, s.constraints[i] as SpreadConstraint, pod.namespace);
}

/**
 * kube's Score: `ignoredScore` for an ignored node; otherwise, summed over the
 * constraints, scoreForCount of the matching pods in the node's domain (for the hostname
 * key: on the node itself), rounded as Go's math.Round.
 */
export function scoreNode(s: PreScoreState, pod: PodInfo, node: NodeInfo): number {
  if (s.ignored.has(node.name)) return ignoredScore;
  const { constraints, counts, weights } = s;
  let score = 0;
  for (let i = 0; i < constraints.length; i++) {
    const c = constraints[i] as SpreadConstraint;
    if (!Object.hasOwn(node.labels, c.topologyKey)) continue;
    const count =
      c.topologyKey === labelHostname
        ? hostCount(s, i, pod, node)
        : ((counts[i] as Map<string, number>).get(node.labels[c.topologyKey] as string) ?? 0);
    score += scoreForCount(count, c.maxSkew, weights[i] as number);
  }
  return goRound(score);
}

/**
 * kube's NormalizeScore: over the nodes not ignored, min and max raw scores; each becomes
 * 100 × (max + min − score) / max in integer division (all 100 when max is 0); ignored
 * nodes get 0.
 */
export function normalizeScores(scores: number[]): void {
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i] as number;
    if (s === ignoredScore) continue;
    if (s < min) min = s;
    if (s > max) max = s;
  }
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i] as number;
    if (s === ignoredScore) scores[i] = 0;
    else if (max === 0) scores[i] = maxNodeScore;
    else scores[i] = Math.trunc((maxNodeScore * (max + min - s)) / max);
  }
}

function preScoreState(state: CycleState): PreScoreState {
  const s = state.get(preScoreStateKey) as PreScoreState | undefined;
  if (s === undefined) throw new Error(`reading "${preScoreStateKey}" from cycle state: not found`);
  return s;
}

/** The cycle-state key of the ScheduleAnyway constraints PreScore's Skip check worked out. */
const softConstraintsKey = `${preScoreStateKey}/constraints`;

/**
 * kube's PreScore Skip: true when the pod has no ScheduleAnyway constraint, its own or a
 * default one; the constraints are kept in `state` for `preScore`.
 */
export function preScoreSkip(
  pod: PodInfo,
  state: CycleState,
  snapshot: ClusterSnapshot,
  args: SpreadArgs,
): boolean {
  const soft = constraintsFor(pod, snapshot, args, 'soft');
  state.set(softConstraintsKey, soft);
  return soft.length === 0;
}

/** PreScore: the state for the pod's ScheduleAnyway constraints (Skip covers none). */
export function preScore(
  pod: PodInfo,
  state: CycleState,
  snapshot: ClusterSnapshot,
  nodes: readonly NodeInfo[],
  args: SpreadArgs,
): void {
  const soft =
    (state.get(softConstraintsKey) as readonly SpreadConstraint[] | undefined) ??
    constraintsFor(pod, snapshot, args, 'soft');
  const requireAll = requiresAllTopologies(pod, args);
  state.set(preScoreStateKey, computePreScoreState(pod, soft, snapshot, nodes, requireAll));
}

/** Score: the raw score of `node` from the PreScore state. */
export function score(pod: PodInfo, node: NodeInfo, state: CycleState): number {
  return scoreNode(preScoreState(state), pod, node);
}

/** NormalizeScore, in place. */
export function normalize(_pod: PodInfo, scores: number[], state: CycleState): void {
  preScoreState(state);
  normalizeScores(scores);
}
