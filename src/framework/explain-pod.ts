// Explains one scheduling cycle of one pod: every node's filter verdicts, scores, sampling, choice.
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import { type CycleResult, runFilterPlugins, scheduleOne } from './cycle.ts';
import { CycleTrace, type FilterCall, tracedProfile } from './explain-trace.ts';
import { seededRng } from './rng.ts';
import { numFeasibleNodesToFind } from './sampling.ts';
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

/** The outcome of a cycle, in one line (for the agreement check and for people). */
export function describeCycleResult(r: CycleResult): string {
  if (r.kind === 'Scheduled') return `Scheduled on ${r.node}`;
  if (r.kind === 'Unschedulable') return `Unschedulable: ${r.message}`;
  return `Error in ${r.plugin}: ${r.message}`;
}

function outcomeOf(r: CycleResult, scored: boolean): ExplainOutcome {
  if (r.kind === 'Scheduled')
    return {
      kind: 'Scheduled',
      node: r.node,
      feasible: r.feasible,
      evaluated: r.evaluated,
      scored,
    };
  if (r.kind === 'Unschedulable')
    return {
      kind: 'Unschedulable',
      message: r.message,
      reasons: Object.fromEntries(r.diagnosis.reasons),
    };
  return { kind: 'Error', plugin: r.plugin, message: r.message };
}

/** The nodes a walk ranges over: every node, or the narrowed ones, in snapshot order. */
function candidatesOf(
  snapshot: ClusterSnapshot,
  narrowed: ReadonlySet<string> | undefined,
): readonly NodeInfo[] {
  if (narrowed === undefined) return snapshot.nodeOrder;
  return snapshot.nodeOrder.filter((n) => narrowed.has(n.name));
}

function narrowingOf(
  preFilters: PreFilterExplanation[],
): { by: string[]; names: Set<string> } | undefined {
  let names: Set<string> | undefined;
  const by: string[] = [];
  for (const p of preFilters) {
    if (p.code !== 'Success' || p.narrowedTo === undefined) continue;
    by.push(p.plugin);
    names =
      names === undefined
        ? new Set(p.narrowedTo)
        : new Set(p.narrowedTo.filter((n) => names?.has(n)));
  }
  return names === undefined ? undefined : { by, names };
}

/**
 * Explains the cycle the scheduler would run for `pod` on `snapshot` with this cursor and
 * generator state. It runs the real `scheduleOne` with the profile's plugins wrapped to record
 * their answers (same calls, same order, same per-cycle state), so the explanation cannot
 * drift from the cycle; nodes the walk did not reach are filtered afterwards with the same
 * `runFilterPlugins` and the PreFilter state, for the table only. A second, untraced
 * `scheduleOne` (with the infeasibility proof) checks that the outcome agrees. Pure: reads
 * the snapshot, writes nothing; plugins that throw become an Error outcome.
 */
export function explainPod(input: ExplainInput): PodExplanation {
  const { profile, snapshot, pod } = input;
  const trace = new CycleTrace();
  const traced = tracedProfile(profile, trace);
  const cursor = { next: input.cursor };
  const result = scheduleOne(pod, snapshot, {
    profile: traced,
    rng: seededRng(input.rngState),
    cursor,
    percentageOfNodesToScore: input.percentageOfNodesToScore,
  });
  const reference = scheduleOne(pod, snapshot, {
    profile,
    rng: seededRng(input.rngState),
    cursor: { next: input.cursor },
    percentageOfNodesToScore: input.percentageOfNodesToScore,
  });

  const preFilters: PreFilterExplanation[] = trace.preFilters.map(({ plugin, result: r }) => ({
    plugin,
    code: r.code,
    reasons: [...r.reasons],
    ...(r.nodeNames === undefined ? {} : { narrowedTo: [...r.nodeNames].sort() }),
  }));
  const narrowing = narrowingOf(preFilters);
  const candidates = candidatesOf(snapshot, narrowing?.names);
  // What the cycle's own Skip calls answered (they may read the cycle state, so they are not
  // asked again); a plugin never asked counts as not skipped.
  const skippedFilters = profile.filter.map((_, i) => trace.filterSkips.get(i) === true);
  const skippedScores = profile.score.map((_, i) => trace.scoreSkips.get(i) === true);
  const feasibleToFind =
    profile.score.length === 0
      ? 1
      : numFeasibleNodesToFind(candidates.length, input.percentageOfNodesToScore);
  const next = Number.isInteger(input.cursor) && input.cursor > 0 ? input.cursor : 0;
  const start = candidates.length === 0 ? 0 : next % candidates.length;

  // The walk's verdicts; then the same filters on the nodes it did not reach.
  const visited = trace.visits.slice();
  const walkPosition = new Map(visited.map((name, i) => [name, i + 1]));
  const rest: NodeInfo[] = [];
  for (let i = 0; i < candidates.length; i++) {
    const node = candidates[(start + i) % candidates.length] as NodeInfo;
    if (!walkPosition.has(node.name)) rest.push(node);
  }
  const filtered = trace.stateAtFilter !== undefined && result.kind !== 'Error';
  if (filtered) {
    // The sentinel and the filters the cycle ran (index 0 is the sentinel).
    const active = traced.filter.filter((_, i) => i === 0 || skippedFilters[i - 1] !== true);
    for (const node of rest) runFilterPlugins(active, pod, node, new Map(trace.stateAtFilter));
  }
  const verdictsOf = (name: string, ran: boolean) =>
    verdicts(profile, skippedFilters, trace.filterCalls.get(name) ?? [], ran);
  const rows: NodeExplanation[] = [
    ...visited.map((name) => ({
      node: name,
      walk: walkPosition.get(name) ?? null,
      ...verdictsOf(name, true),
    })),
    ...rest.map((n) => ({ node: n.name, walk: null, ...verdictsOf(n.name, filtered) })),
  ].map((r) => ({ ...r, chosen: false }));
  const candidateNames = new Set(candidates.map((n) => n.name));
  for (const node of snapshot.nodeOrder) {
    if (candidateNames.has(node.name)) continue;
    rows.push({
      node: node.name,
      walk: null,
      ...verdictsOf(node.name, false),
      fate: 'leftOut',
      chosen: false,
    });
  }
  const kept = assignFates(rows, feasibleToFind);
  if (kept.length > 1) addScores(kept, trace, profile, skippedScores);
  const chosenName = result.kind === 'Scheduled' ? result.node : undefined;
  for (const row of rows) row.chosen = row.node === chosenName;
  const dropped = rows.some((r) => r.fate === 'dropped') ? 1 : 0;
  return {
    pod: { key: pod.key, uid: pod.uid },
    preFilters,
    narrowing: narrowing === undefined ? null : { by: narrowing.by, nodes: narrowing.names.size },
    filters: profile.filter.map((f, i) => ({
      plugin: f.name,
      skipped: skippedFilters[i] === true,
    })),
    scorePlugins: profile.score.map((w, i) => ({
      plugin: w.plugin.name,
      weight: w.weight,
      skipped: skippedScores[i] === true,
    })),
    sampling: {
      percentageOfNodesToScore: input.percentageOfNodesToScore,
      allNodes: snapshot.nodeOrder.length,
      candidates: candidates.length,
      feasibleToFind,
      cursor: input.cursor,
      start,
      startNode: visited[0] ?? null,
      visited: visited.length,
      processed: visited.length - dropped,
      nextCursor: cursor.next,
    },
    nodes: rows,
    outcome: outcomeOf(result, kept.length > 1),
    check: {
      agrees: describeCycleResult(result) === describeCycleResult(reference),
      cycle: describeCycleResult(reference),
    },
  };
}

/** A node's filter verdicts from its recorded calls (`ran`: its filters were run at all). */
function verdicts(
  profile: Profile,
  skipped: readonly boolean[],
  calls: readonly FilterCall[],
  ran: boolean,
): Pick<NodeExplanation, 'fate' | 'filters' | 'rejection'> {
  const filters = profile.filter.map((_, i): FilterVerdict => {
    if (!ran) return 'notRun';
    if (skipped[i]) return 'skipped';
    const c = calls.find((call) => call.index === i);
    if (c === undefined) return 'notRun';
    return c.status.code === 'Success' ? 'pass' : 'reject';
  });
  const failed = calls.find((c) => c.status.code !== 'Success');
  if (failed === undefined) return { fate: 'notRun', filters };
  const rejection = {
    plugin: failed.status.plugin ?? profile.filter[failed.index]?.name ?? '',
    code: failed.status.code,
    reasons: [...failed.status.reasons],
  };
  return { fate: 'rejected', filters, rejection };
}

/**
 * Sets the fate of the walked and unvisited rows (left-out ones are set already) and returns
 * the rows the cycle kept as feasible, in walk order: the first `feasibleToFind` feasible
 * nodes of the walk; a feasible node found after them is where the walk stopped (`dropped`).
 */
function assignFates(rows: NodeExplanation[], feasibleToFind: number): NodeExplanation[] {
  const kept: NodeExplanation[] = [];
  for (const row of rows) {
    if (row.fate !== 'notRun' || row.filters.includes('notRun')) continue;
    if (row.walk === null) row.fate = 'notVisited';
    else if (kept.length < feasibleToFind) kept.push(row);
    else row.fate = 'dropped';
  }
  for (const row of kept) row.fate = kept.length > 1 ? 'scored' : 'feasible';
  return kept;
}

/** Fills in each scored node's raw, normalized and weighted scores and its total. */
function addScores(
  rows: NodeExplanation[],
  trace: CycleTrace,
  profile: Profile,
  skipped: readonly boolean[],
): void {
  const scored = rows.filter((r) => r.fate === 'scored');
  if (scored.length === 0) return;
  for (const row of scored) {
    row.scores = profile.score.map(() => null);
    // kube gives every node 1 when no score plugin runs for the pod.
    row.total = skipped.every((s) => s) ? 1 : 0;
  }
  const byName = new Map(scored.map((r) => [r.node, r]));
  for (const [index, call] of trace.scores) {
    const weight = profile.score[index]?.weight ?? 0;
    call.nodes.forEach((name, i) => {
      const row = byName.get(name);
      if (row === undefined || row.scores === undefined) return;
      const raw = call.raw[i] as number;
      const normalized = call.normalized[i] ?? raw;
      const weighted = normalized * weight;
      row.scores[index] = { raw, normalized, weighted };
      row.total = (row.total as number) + weighted;
    });
  }
}
