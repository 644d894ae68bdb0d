// The rows of an explanation (one per node) built from the trace of the real cycle.
import type { CycleTrace, NodeVisit } from './explain-trace.ts';
import type { FilterVerdict, NodeExplanation } from './explain-types.ts';
import type { Profile, Status } from './types.ts';

/** A row's verdicts, fate (before the walk's outcome is applied) and rejection. */
type Verdicts = Pick<NodeExplanation, 'fate' | 'filters' | 'rejection'>;

/**
 * A node's filter verdicts from its status, as kube runs a node's filters: in profile order,
 * stopping at the first that does not pass. `status` undefined: a filter threw on the node
 * (`thrower` names it); `ran` false: no filter ran on it. A node that passed gets fate
 * `notRun` here, for `applyWalk` to settle.
 */
export function verdictsOf(
  profile: Profile,
  skipped: readonly boolean[],
  status: Status | undefined,
  ran: boolean,
  thrower?: string,
): Verdicts {
  const failedAt =
    status === undefined
      ? profile.filter.findIndex((f) => f.name === thrower)
      : status.code === 'Success'
        ? -1
        : profile.filter.findIndex((f) => f.name === status.plugin);
  const stop = failedAt === -1 ? profile.filter.length : failedAt;
  const filters = profile.filter.map((_, i): FilterVerdict => {
    if (!ran) return 'notRun';
    if (skipped[i]) return 'skipped';
    if (i < stop) return 'pass';
    return i === failedAt && status !== undefined ? 'reject' : 'notRun';
  });
  if (!ran || status === undefined || status.code === 'Success') return { fate: 'notRun', filters };
  const plugin = status.plugin ?? profile.filter[failedAt]?.name ?? '';
  const rejection = { plugin, code: status.code, reasons: [...status.reasons] };
  return { fate: 'rejected', filters, rejection };
}

/** The rows of the nodes the cycle filtered: the walk's, or the nominated node's alone. */
export function visitedOf(trace: CycleTrace): NodeVisit[] {
  if (trace.walk !== undefined) return trace.visits;
  return trace.nominated === undefined ? [] : [trace.nominated];
}

/** What the cycle kept as feasible, and the node where its walk stopped, by name. */
function keptOf(
  trace: CycleTrace,
  rows: readonly NodeExplanation[],
  feasibleToFind: number,
): { kept: Set<string>; dropped: string | undefined } {
  const end = trace.walkOutcome;
  if (end !== undefined) return { kept: new Set(end.feasible), dropped: end.dropped };
  if (trace.walk === undefined) {
    const only = trace.nominated?.status?.code === 'Success' ? [trace.nominated.node] : [];
    return { kept: new Set(only), dropped: undefined };
  }
  // A filter's Error ended the walk: the nodes that passed before it, up to the sample.
  const passed = rows.filter(
    (r) => r.walk !== null && r.fate === 'notRun' && !r.filters.includes('notRun'),
  );
  return {
    kept: new Set(passed.slice(0, feasibleToFind).map((r) => r.node)),
    dropped: passed[feasibleToFind]?.node,
  };
}

/**
 * Sets the fates of the rows that passed their filters: kept by the cycle (`scored` when it
 * kept several, else `feasible`), `dropped` (where the walk stopped), or `notVisited` (not
 * reached; filtered for the explanation only). Returns the kept rows, in walk order.
 */
export function applyWalk(
  rows: NodeExplanation[],
  trace: CycleTrace,
  feasibleToFind: number,
): NodeExplanation[] {
  const { kept, dropped } = keptOf(trace, rows, feasibleToFind);
  const keptRows: NodeExplanation[] = [];
  for (const row of rows) {
    if (row.fate !== 'notRun' || row.filters.includes('notRun')) continue;
    if (row.walk === null) row.fate = 'notVisited';
    else if (kept.has(row.node)) keptRows.push(row);
    else if (row.node === dropped) row.fate = 'dropped';
  }
  for (const row of keptRows) row.fate = keptRows.length > 1 ? 'scored' : 'feasible';
  return keptRows;
}

/**
 * Fills in each scored row's raw, normalized and weighted scores (as the cycle's plugins
 * gave them) and its total (the cycle's own, when it got as far as selecting).
 */
export function addScores(rows: NodeExplanation[], trace: CycleTrace, profile: Profile): void {
  const scored = rows.filter((r) => r.fate === 'scored');
  if (scored.length === 0) return;
  // kube gives every node 1 when no score plugin runs for the pod.
  const base = trace.activeScorers?.length === 0 ? 1 : 0;
  for (const row of scored) {
    row.scores = profile.score.map(() => null);
    row.total = base;
  }
  const byName = new Map(scored.map((r) => [r.node, r]));
  for (const [plugin, call] of trace.scoreCalls) {
    const index = profile.score.indexOf(plugin);
    call.nodes.forEach((name, i) => {
      const row = byName.get(name);
      if (row === undefined || row.scores === undefined) return;
      const raw = call.raw[i] as number;
      const normalized = call.normalized[i] as number;
      const weighted = normalized * plugin.weight;
      row.scores[index] = { raw, normalized, weighted };
      row.total = (row.total as number) + weighted;
    });
  }
  const selection = trace.selection;
  if (selection === undefined) return;
  selection.nodes.forEach((name, i) => {
    const row = byName.get(name);
    if (row !== undefined) row.total = selection.totals[i] as number;
  });
}
