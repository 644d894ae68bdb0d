// Explains one scheduling cycle of one pod from a trace of the real cycle: verdicts, scores, choice.
import type { ClusterSnapshot, NodeInfo } from '../cluster/types.ts';
import { scheduleOne } from './cycle.ts';
import { addScores, applyWalk, verdictsOf, visitedOf } from './explain-rows.ts';
import { CycleTrace } from './explain-trace.ts';
import type {
  ExplainInput,
  ExplainOutcome,
  NodeExplanation,
  PodExplanation,
  PreFilterExplanation,
  SamplingExplanation,
} from './explain-types.ts';
import { cursorStart, feasibleNodesToFind } from './pass-filters.ts';
import { seededRng } from './rng.ts';
import type { CycleResult } from './scheduling-context.ts';
import { filterWithNominatedPods } from './what-if.ts';

export type * from './explain-types.ts';

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

/** The intersection of the PreFilters' narrowings, and who narrowed, in PreFilter order. */
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
 * The walk as the cycle took it; when it took none (a PreFilter rejected the pod, the
 * nominated node passed, or no node was left), the walk it would have taken over the same
 * nodes from the same cursor, for the sampling line.
 */
function walkOf(
  trace: CycleTrace,
  input: ExplainInput,
  narrowed: ReadonlySet<string> | undefined,
): { candidates: readonly string[]; start: number; feasibleToFind: number } {
  if (trace.walk !== undefined) return trace.walk;
  const { snapshot, profile } = input;
  const candidates = candidateNames(snapshot, narrowed);
  const n = candidates.length;
  const feasibleToFind = feasibleNodesToFind(profile, n, input.percentageOfNodesToScore);
  return { candidates, start: n === 0 ? 0 : cursorStart(input.cursor) % n, feasibleToFind };
}

function candidateNames(snapshot: ClusterSnapshot, narrowed: ReadonlySet<string> | undefined) {
  const all = snapshot.nodeOrder.map((n) => n.name);
  return narrowed === undefined ? all : all.filter((n) => narrowed.has(n));
}

/**
 * Explains the cycle the scheduler would run for `pod` on `snapshot` with this cursor and
 * generator state. It runs the real `scheduleOne` with a `CycleTrace` recorder, and renders
 * what the cycle recorded: PreFilter answers, the sample its walk took and each node's
 * verdict, the scores, the totals and the choice. Candidate nodes the walk did not reach are
 * filtered afterwards with the same filters and the PreFilter state, for the table only. A
 * second `scheduleOne` without recorder (which may prove infeasibility instead of walking)
 * checks that the outcome agrees. Pure: reads the snapshot, writes nothing.
 */
export function explainPod(input: ExplainInput): PodExplanation {
  const { profile, snapshot, pod } = input;
  const trace = new CycleTrace();
  const run = (recorder?: CycleTrace) => {
    const cursor = { next: input.cursor };
    const rng = seededRng(input.rngState);
    const pct = input.percentageOfNodesToScore;
    const ctx = { profile, rng, cursor, percentageOfNodesToScore: pct, recorder };
    return { result: scheduleOne(pod, snapshot, ctx), cursor: cursor.next };
  };
  const { result, cursor: nextCursor } = run(trace);
  const reference = run().result;
  const preFilters: PreFilterExplanation[] = trace.preFilters.map(({ plugin, result: r }) => ({
    plugin,
    code: r.code,
    reasons: [...r.reasons],
    ...(r.nodeNames === undefined ? {} : { narrowedTo: [...r.nodeNames].sort() }),
  }));
  const narrowing = narrowingOf(preFilters);
  const walk = walkOf(trace, input, narrowing?.names);
  const active = trace.activeFilters;
  const skippedFilters = profile.filter.map((f) => active !== undefined && !active.includes(f));
  const scorers = trace.activeScorers;
  const skippedScores = profile.score.map((w) => scorers !== undefined && !scorers.includes(w));
  const visited = visitedOf(trace);
  const rows = nodeRows(input, trace, result, walk.candidates, skippedFilters);
  const kept = applyWalk(rows, trace, walk.feasibleToFind);
  if (kept.length > 1) addScores(kept, trace, profile);
  const chosenName = result.kind === 'Scheduled' ? result.node : undefined;
  for (const row of rows) row.chosen = row.node === chosenName;
  const sampling: SamplingExplanation = {
    percentageOfNodesToScore: input.percentageOfNodesToScore,
    allNodes: snapshot.nodeOrder.length,
    candidates: walk.candidates.length,
    feasibleToFind: walk.feasibleToFind,
    cursor: input.cursor,
    start: walk.start,
    startNode: visited[0]?.node ?? null,
    visited: visited.length,
    processed: trace.walkOutcome?.processed ?? visited.length,
    nextCursor,
  };
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
    sampling,
    nodes: rows,
    outcome: outcomeOf(result, kept.length > 1),
    check: {
      agrees: describeCycleResult(result) === describeCycleResult(reference),
      cycle: describeCycleResult(reference),
    },
  };
}

/**
 * One row per node: those the cycle filtered, in order; then the other candidates from the
 * walk's start, filtered here unless the cycle filtered no node or ended in an Error; then
 * the nodes a PreFilter narrowing left out.
 */
function nodeRows(
  input: ExplainInput,
  trace: CycleTrace,
  result: CycleResult,
  candidates: readonly string[],
  skipped: readonly boolean[],
): NodeExplanation[] {
  const { profile, snapshot, pod } = input;
  const thrower = result.kind === 'Error' ? result.plugin : undefined;
  const visited = visitedOf(trace);
  const rows: NodeExplanation[] = visited.map((v, i) => ({
    node: v.node,
    walk: i + 1,
    ...verdictsOf(profile, skipped, v.status, true, thrower),
    chosen: false,
  }));
  const seen = new Set(visited.map((v) => v.node));
  const filtered = visited.length > 0 && result.kind !== 'Error';
  const start =
    trace.walk?.start ??
    (candidates.length === 0 ? 0 : cursorStart(input.cursor) % candidates.length);
  for (let i = 0; i < candidates.length; i++) {
    const name = candidates[(start + i) % candidates.length] as string;
    if (seen.has(name)) continue;
    const node = snapshot.nodes.get(name) as NodeInfo;
    const state = new Map(trace.stateAtFilter);
    const status =
      filtered && trace.activeFilters !== undefined
        ? filterWithNominatedPods(
            trace.activeFilters,
            profile.preFilter,
            pod,
            node,
            state,
            snapshot,
          )
        : undefined;
    rows.push({
      node: name,
      walk: null,
      ...verdictsOf(profile, skipped, status, filtered),
      chosen: false,
    });
  }
  const inWalk = new Set(candidates);
  for (const node of snapshot.nodeOrder) {
    if (inWalk.has(node.name)) continue;
    rows.push({
      node: node.name,
      walk: null,
      ...verdictsOf(profile, skipped, undefined, false),
      fate: 'leftOut',
      chosen: false,
    });
  }
  return rows;
}
