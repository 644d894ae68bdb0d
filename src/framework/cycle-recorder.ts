// What a scheduling cycle tells an optional recorder about what it did (for `berth explain`).
import type { NodeInfo } from '../cluster/types.ts';
import type {
  CycleState,
  FilterPlugin,
  PreFilterResult,
  Status,
  WeightedScorePlugin,
} from './types.ts';

/** The walk a cycle is about to take over the nodes (kube's findNodesThatPassFilters). */
export interface WalkPlan {
  /** The nodes the walk ranges over: every node, or those a PreFilter narrowed to. */
  readonly order: readonly NodeInfo[];
  /** The cursor the cycle was given and the index into `order` the walk starts at. */
  readonly cursor: number;
  readonly start: number;
  /** Feasible nodes the walk looks for before it stops (kube's numFeasibleNodesToFind). */
  readonly feasibleToFind: number;
}

/** How the walk ended. */
export interface WalkEnd {
  /** The feasible nodes kept, in walk order. */
  readonly feasible: readonly NodeInfo[];
  /** A feasible node found after the sample was full: where the walk stopped, not kept. */
  readonly dropped: NodeInfo | undefined;
  /** Nodes processed (feasible kept + failed) and the cursor the next cycle starts from. */
  readonly processed: number;
  readonly nextCursor: number;
}

/**
 * Told, in order, what one cycle does. A cycle without a recorder makes none of these calls
 * (and allocates nothing for them). A recorder must not change what it is given: arrays
 * passed to it are the cycle's own and are reused after the call returns. With a recorder
 * the cycle walks the nodes even when the profile could prove the pod fits nowhere, so that
 * every node's verdict is seen (the outcome is the same by the proof's contract).
 */
export interface CycleRecorder {
  /** A PreFilter answered (in profile order; an Error or rejection ends them). */
  preFilter(plugin: string, result: PreFilterResult): void;
  /** The filters that run for the pod (their Skip did not hold), and the PreFilter state. */
  filters(active: readonly FilterPlugin[], state: CycleState): void;
  /** The node the pod is nominated to, tried first and alone, and its status. */
  nominatedNode(node: NodeInfo, status: Status): void;
  /** The sampled walk starts. */
  walkStart(plan: WalkPlan): void;
  /** The walk reaches `node` (its filters run next). */
  visit(node: NodeInfo): void;
  /** The filters' verdict on the node last visited (Success or the first rejection). */
  verdict(node: NodeInfo, status: Status): void;
  /** The walk is over. */
  walkEnd(end: WalkEnd): void;
  /** The score plugins that run for the pod (their PreScore Skip did not hold). */
  scorers(active: readonly WeightedScorePlugin[]): void;
  /** One plugin's scores over the feasible nodes, raw and after its normalize. */
  scores(
    plugin: WeightedScorePlugin,
    nodes: readonly NodeInfo[],
    raw: readonly number[],
    normalized: readonly number[],
  ): void;
  /** The weighted totals and the node selectHost picked among them (its index). */
  selected(nodes: readonly NodeInfo[], totals: readonly number[], index: number): void;
}
