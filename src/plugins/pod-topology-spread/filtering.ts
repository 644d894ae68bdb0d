// PodTopologySpread PreFilter/Filter: DoNotSchedule constraints, kube's skew check per node.
import { type SpreadConstraint, selectorMatches } from '../../cluster/spread-constraints.ts';
import { spreadCountsOf } from '../../cluster/spread-counts.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../../cluster/types.ts';
import { type CycleState, type Status, status, success } from '../../framework/types.ts';
import { countMatchingPods, hasAllTopologyKeys, matchesInclusionPolicies, name } from './common.ts';
import { type CriticalPaths, newCriticalPaths, updateCriticalPaths } from './critical-paths.ts';
import { constraintsFor, type SpreadArgs } from './defaults.ts';

/** kube's ErrReasonConstraintsNotMatch (Unschedulable: preemption may lower a domain's count). */
export const ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints";

/** kube's ErrReasonNodeLabelNotMatch (UnschedulableAndUnresolvable: the node lacks a topology key). */
export const ErrReasonNodeLabelNotMatch = `${ErrReasonConstraintsNotMatch} (missing required label)`;

const skewRejected: Status = Object.freeze(
  status('Unschedulable', name, ErrReasonConstraintsNotMatch),
);
const labelMissing: Status = Object.freeze(
  status('UnschedulableAndUnresolvable', name, ErrReasonNodeLabelNotMatch),
);

/** The cycle-state key of the PreFilter data (kube's "PreFilter" + plugin name). */
export const preFilterStateKey = `PreFilter${name}`;

/**
 * What PreFilter leaves for Filter, one entry per DoNotSchedule constraint, aligned.
 * AddPod/RemovePod write `changes`, `criticalPaths` and `minMatch` (a clone copies those),
 * never `counts`, which clones share.
 */
export interface PreFilterState {
  readonly constraints: readonly SpreadConstraint[];
  /** Per constraint: each eligible domain (topology value) → its matching pods, as PreFilter counted. */
  readonly counts: readonly Map<string, number>[];
  /** Per constraint: the global minimum, 0 while fewer than minDomains domains are eligible. */
  readonly minMatch: number[];
  /** Per constraint: 1 when the incoming pod matches the selector itself (selfMatchNum). */
  readonly selfMatch: readonly number[];
  /** Per constraint: kube's critical paths, `[0]` holding the minimum over the domains. */
  readonly criticalPaths: CriticalPaths[];
  /** Per constraint: AddPod/RemovePod's changes to `counts`, by domain; absent before any. */
  changes?: Map<string, number>[];
}

/** The matching pods of constraint `i`'s domain `value`, with AddPod/RemovePod's changes. */
export function matchNum(s: PreFilterState, i: number, value: string): number {
  const n = (s.counts[i] as Map<string, number>).get(value) ?? 0;
  const changes = s.changes;
  return changes === undefined ? n : n + ((changes[i] as Map<string, number>).get(value) ?? 0);
}

/** kube's minMatchNum: the critical path's count, or 0 below minDomains eligible domains. */
export function globalMinimum(c: SpreadConstraint, domains: number, paths: CriticalPaths): number {
  // minDomains ≥ 1, so no eligible domain at all also gives 0.
  return domains < c.minDomains ? 0 : paths[0].num;
}

/**
 * kube's calPreFilterState over every node of the snapshot: a node counts only when it has
 * all the constraints' topology keys; then, per constraint whose inclusion policies it
 * passes, its domain is eligible and gains the node's matching pods. The minimum over a
 * constraint's domains is kube's critical path; with fewer eligible domains than
 * minDomains it is 0.
 */
export function computePreFilterState(
  pod: PodInfo,
  constraints: readonly SpreadConstraint[],
  snapshot: ClusterSnapshot,
): PreFilterState {
  const n = constraints.length;
  const counts: Map<string, number>[] = [];
  for (let i = 0; i < n; i++) counts.push(new Map());
  // The snapshot's kept counts by node name (its nodes are live), else each node's pods.
  const kept = constraints.map((c) => spreadCountsOf(snapshot, pod.namespace, c.selector)?.perNode);
  const nodes = snapshot.nodeOrder;
  for (let j = 0; j < nodes.length; j++) {
    const node = nodes[j] as NodeInfo;
    if (!hasAllTopologyKeys(node.labels, constraints)) continue;
    for (let i = 0; i < n; i++) {
      const c = constraints[i] as SpreadConstraint;
      if (!matchesInclusionPolicies(c, pod, node)) continue;
      const value = node.labels[c.topologyKey] as string;
      const m = counts[i] as Map<string, number>;
      const perNode = kept[i];
      const num =
        perNode === undefined
          ? countMatchingPods(node, c, pod.namespace)
          : (perNode.get(node.name) ?? 0);
      m.set(value, (m.get(value) ?? 0) + num);
    }
  }
  const minMatch: number[] = [];
  const selfMatch: number[] = [];
  const criticalPaths: CriticalPaths[] = [];
  for (let i = 0; i < n; i++) {
    const c = constraints[i] as SpreadConstraint;
    const m = counts[i] as Map<string, number>;
    const paths = newCriticalPaths();
    for (const [value, num] of m) updateCriticalPaths(paths, value, num);
    criticalPaths.push(paths);
    minMatch.push(globalMinimum(c, m.size, paths));
    selfMatch.push(selectorMatches(c.selector, pod.labels) ? 1 : 0);
  }
  return { constraints, counts, minMatch, selfMatch, criticalPaths };
}

/**
 * kube's Filter for one node: for each DoNotSchedule constraint in order, a node without
 * its topology key is UnschedulableAndUnresolvable "(missing required label)"; otherwise
 * matching pods in the node's domain + selfMatch − global minimum must not exceed maxSkew,
 * else Unschedulable. The first failing constraint decides.
 */
export function filterNode(s: PreFilterState, node: NodeInfo): Status {
  const { constraints, minMatch, selfMatch } = s;
  for (let i = 0; i < constraints.length; i++) {
    const c = constraints[i] as SpreadConstraint;
    if (!Object.hasOwn(node.labels, c.topologyKey)) return labelMissing;
    const value = node.labels[c.topologyKey] as string;
    const skew = matchNum(s, i, value) + (selfMatch[i] as number) - (minMatch[i] as number);
    if (skew > c.maxSkew) return skewRejected;
  }
  return success;
}

/** The cycle-state key of the DoNotSchedule constraints PreFilter worked out. */
const hardConstraintsKey = `${preFilterStateKey}/constraints`;

/**
 * PreFilter: computes the state for the pod's DoNotSchedule constraints (its own, or the
 * default ones); never rejects. The constraints are kept for `preFilterSkip`.
 */
export function preFilter(
  pod: PodInfo,
  state: CycleState,
  snapshot: ClusterSnapshot,
  args: SpreadArgs,
): Status {
  const hard = constraintsFor(pod, snapshot, args, 'hard');
  state.set(hardConstraintsKey, hard);
  if (hard.length === 0) return success; // kube's Skip: Filter is left out (preFilterSkip)
  state.set(preFilterStateKey, computePreFilterState(pod, hard, snapshot));
  return success;
}

/**
 * kube's PreFilter Skip: no DoNotSchedule constraint, so every node passes. Reads what
 * PreFilter found; without it (PreFilter not run) the pod's own constraints decide.
 */
export function preFilterSkip(pod: PodInfo, state: CycleState): boolean {
  const hard = state.get(hardConstraintsKey) as readonly SpreadConstraint[] | undefined;
  return (hard ?? pod.spreadConstraints.hard).length === 0;
}

/** Filter: the skew check against the PreFilter state; Error when PreFilter did not run. */
export function filter(pod: PodInfo, node: NodeInfo, state: CycleState): Status {
  const s = state.get(preFilterStateKey) as PreFilterState | undefined;
  if (s === undefined) {
    if (preFilterSkip(pod, state)) return success;
    return status('Error', name, `reading "${preFilterStateKey}" from cycle state: not found`);
  }
  return filterNode(s, node);
}
