// A CycleRecorder that keeps what one real scheduling cycle did, for `berth explain`.
import type { NodeInfo } from '../cluster/types.ts';
import type { CycleRecorder, WalkEnd, WalkPlan } from './cycle-recorder.ts';
import type {
  CycleState,
  FilterPlugin,
  PreFilterResult,
  Status,
  WeightedScorePlugin,
} from './types.ts';

/** One PreFilter call: the plugin and what it answered. */
export interface PreFilterCall {
  plugin: string;
  result: PreFilterResult;
}

/** A node the cycle filtered, and the verdict (undefined: a filter threw on it). */
export interface NodeVisit {
  node: string;
  status: Status | undefined;
}

/** One score plugin's numbers for the feasible nodes, raw and normalized. */
export interface ScoreCall {
  nodes: string[];
  raw: number[];
  normalized: number[];
}

/** How the walk ended, by node name. */
export interface WalkOutcome {
  feasible: string[];
  dropped: string | undefined;
  processed: number;
  nextCursor: number;
}

/** The weighted totals per feasible node and the node selectHost picked. */
export interface Selection {
  nodes: string[];
  totals: number[];
  selected: string;
  /** Nodes that share the highest total (more than one: the generator broke the tie). */
  ties: number;
}

/** Everything one cycle told its recorder, in call order (copies, never the cycle's arrays). */
export class CycleTrace implements CycleRecorder {
  readonly preFilters: PreFilterCall[] = [];
  /** The filters that ran for the pod (undefined: the cycle ended before choosing them). */
  activeFilters: readonly FilterPlugin[] | undefined;
  /** A copy of the cycle state as the PreFilters left it. */
  stateAtFilter: CycleState | undefined;
  /** The nominated node tried first, and its verdict. */
  nominated: NodeVisit | undefined;
  /** The sampled walk's plan: the names of the nodes it ranges over, start, sample size. */
  walk: { candidates: string[]; cursor: number; start: number; feasibleToFind: number } | undefined;
  /** The nodes the walk reached, in order, with their verdicts. */
  readonly visits: NodeVisit[] = [];
  walkOutcome: WalkOutcome | undefined;
  /** The score plugins that ran (undefined: no scoring: one feasible node or none). */
  activeScorers: readonly WeightedScorePlugin[] | undefined;
  /** Per score plugin that ran: its scores. */
  readonly scoreCalls = new Map<WeightedScorePlugin, ScoreCall>();
  selection: Selection | undefined;

  preFilter(plugin: string, result: PreFilterResult): void {
    this.preFilters.push({ plugin, result });
  }

  filters(active: readonly FilterPlugin[], state: CycleState): void {
    this.activeFilters = active;
    this.stateAtFilter = new Map(state);
  }

  nominatedNode(node: NodeInfo, status: Status): void {
    this.nominated = { node: node.name, status };
  }

  walkStart(plan: WalkPlan): void {
    const { cursor, start, feasibleToFind } = plan;
    this.walk = { candidates: plan.order.map((n) => n.name), cursor, start, feasibleToFind };
  }

  visit(node: NodeInfo): void {
    this.visits.push({ node: node.name, status: undefined });
  }

  verdict(_node: NodeInfo, status: Status): void {
    const last = this.visits[this.visits.length - 1];
    if (last !== undefined) last.status = status;
  }

  walkEnd(end: WalkEnd): void {
    this.walkOutcome = {
      feasible: end.feasible.map((n) => n.name),
      dropped: end.dropped?.name,
      processed: end.processed,
      nextCursor: end.nextCursor,
    };
  }

  scorers(active: readonly WeightedScorePlugin[]): void {
    this.activeScorers = [...active];
  }

  scores(
    plugin: WeightedScorePlugin,
    nodes: readonly NodeInfo[],
    raw: readonly number[],
    normalized: readonly number[],
  ): void {
    const names = nodes.map((n) => n.name);
    this.scoreCalls.set(plugin, { nodes: names, raw: [...raw], normalized: [...normalized] });
  }

  selected(nodes: readonly NodeInfo[], totals: readonly number[], index: number): void {
    let best = Number.NEGATIVE_INFINITY;
    for (const t of totals) if (t > best) best = t;
    this.selection = {
      nodes: nodes.map((n) => n.name),
      totals: [...totals],
      selected: nodes[index]?.name ?? '',
      ties: totals.filter((t) => t === best).length,
    };
  }
}
