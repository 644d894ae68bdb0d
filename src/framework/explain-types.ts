// The shape of `berth explain`'s account of one scheduling cycle (what explainPod returns).
import type { ClusterSnapshot, PodInfo } from '../cluster/types.ts';
import type { Code, Profile } from './types.ts';

/** What a cycle is explained from: the same inputs the scheduler's cycle reads. */
export interface ExplainInput {
  profile: Profile;
  snapshot: ClusterSnapshot;
  pod: PodInfo;
  /** 0 = adaptive (kube's default); 1–100 = that percentage. */
  percentageOfNodesToScore: number;
  /** Where the cycle's walk starts (kube's nextStartNodeIndex, the core's cursor). */
  cursor: number;
  /** The seeded generator's state (a uint32) that the cycle's tie-break draws from. */
  rngState: number;
}

/** A filter's verdict on one node: kube runs a node's filters in order and stops at the first rejection. */
export type FilterVerdict = 'pass' | 'reject' | 'notRun' | 'skipped';

/**
 * What the cycle did with a node: `scored` (feasible, in the scored set), `feasible` (the only
 * feasible node: chosen unscored), `rejected` (a filter said no), `dropped` (feasible, found
 * after the sample was full: the walk stopped there), `notVisited` (the walk stopped before
 * it; its verdicts are computed for this explanation only), `leftOut` (a PreFilter narrowing
 * excluded it), `notRun` (no node was filtered: a PreFilter rejected the pod, or an error).
 */
export type NodeFate =
  | 'scored'
  | 'feasible'
  | 'rejected'
  | 'dropped'
  | 'notVisited'
  | 'leftOut'
  | 'notRun';

/** One score plugin's numbers for one node. */
export interface NodeScore {
  raw: number;
  normalized: number;
  weighted: number;
}

/** One row of the explanation: a node. */
export interface NodeExplanation {
  node: string;
  /** Position (1-based) in the cycle's walk; null when the walk did not reach it. */
  walk: number | null;
  fate: NodeFate;
  /** One verdict per profile filter, in profile order. */
  filters: FilterVerdict[];
  /** The rejecting filter's status, when one rejected the node. */
  rejection?: { plugin: string; code: Code; reasons: string[] };
  /** One entry per profile score plugin (null: skipped for this pod), for scored nodes. */
  scores?: (NodeScore | null)[];
  /** The weighted sum the cycle compared, for scored nodes. */
  total?: number;
  chosen: boolean;
}

/** One PreFilter's answer. */
export interface PreFilterExplanation {
  plugin: string;
  code: Code;
  reasons: string[];
  /** The nodes it narrowed the cycle to (kube's PreFilterResult.NodeNames), sorted. */
  narrowedTo?: string[];
}

/** How the cycle sampled the nodes (percentageOfNodesToScore and the rotating start). */
export interface SamplingExplanation {
  percentageOfNodesToScore: number;
  /** All nodes in the snapshot. */
  allNodes: number;
  /** The nodes the walk ranges over: all, or those a PreFilter narrowed to. */
  candidates: number;
  /** Feasible nodes the walk looks for before it stops (kube's numFeasibleNodesToFind). */
  feasibleToFind: number;
  /** The cursor the cycle started with, the index it started at, and that node. */
  cursor: number;
  start: number;
  startNode: string | null;
  /** Nodes the walk reached (the dropped one included) and processed (kube's count). */
  visited: number;
  processed: number;
  /** The cursor after the cycle. */
  nextCursor: number;
}

/** The outcome of the explained cycle. */
export type ExplainOutcome =
  | { kind: 'Scheduled'; node: string; feasible: number; evaluated: number; scored: boolean }
  | { kind: 'Unschedulable'; message: string; reasons: Record<string, number> }
  | { kind: 'Error'; plugin: string; message: string };

/** The whole explanation of one cycle. */
export interface PodExplanation {
  pod: { key: string; uid: string };
  preFilters: PreFilterExplanation[];
  /** The intersection of the narrowings, when a PreFilter narrowed. */
  narrowing: { by: string[]; nodes: number } | null;
  filters: { plugin: string; skipped: boolean }[];
  scorePlugins: { plugin: string; weight: number; skipped: boolean }[];
  sampling: SamplingExplanation;
  /** Every node: the walk's order from its start, then the nodes the walk left out. */
  nodes: NodeExplanation[];
  outcome: ExplainOutcome;
  /**
   * The scheduler's own cycle (untraced profile, same cursor and generator) gave the same
   * outcome. False would be a bug in explain; `cycle` says what the real cycle decided.
   */
  check: { agrees: boolean; cycle: string };
}
