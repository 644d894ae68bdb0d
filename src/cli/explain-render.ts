// `berth explain`'s output: the document it prints as JSON, and the same as tables for people.
import type { FilterVerdict, NodeExplanation, PodExplanation } from '../framework/explain-pod.ts';

/** Where in a pod's history the explained cycle sits. */
export type ExplainAsOf =
  /** A recorded decision: the state is the one after seq `seq - 1`, at logical time `time`. */
  | { kind: 'decision'; seq: number; time: number; decision: string }
  /** After the last event of a (simulated) run: the cycle the pod would get next. */
  | { kind: 'end'; seq: number; time: number }
  /** The live cluster as listed just now. */
  | { kind: 'now' };

/** The recorded decision set against the recomputed one. */
export interface RecordedCheck {
  seq: number;
  decision: string;
  recomputed: string;
  agrees: boolean;
  /**
   * Set when the decision came from a pod group's gang step (which tries every missing
   * member together): the group and the seq the step starts at. The explanation is then
   * the member's own cycle, alone, against that step's snapshot, and is not compared.
   */
  gangStep?: { group: string; seq: number };
}

/** What `berth explain` prints: `--json` gives exactly this object. */
export interface ExplainDocument {
  /** `namespace/name`. */
  pod: string;
  uid: string;
  mode: 'simulated' | 'log' | 'live';
  /** The manifests, the log, or the API server. */
  source: string;
  asOf: ExplainAsOf;
  /** Log and simulated modes, for a recorded decision; null otherwise. */
  recorded: RecordedCheck | null;
  /** Things the reader must know (a hypothetical cycle, another scheduler's pod, gates). */
  notes: string[];
  explanation: PodExplanation;
}

const mark: Record<FilterVerdict, string> = { pass: '✓', reject: '✗', notRun: '·', skipped: '-' };

/** Left-aligned columns separated by two spaces, without trailing blanks. */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
    });
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** What the cycle did with one node, in words (its rejection, or how it was scored). */
export function fateText(row: NodeExplanation): string {
  const r = row.rejection;
  switch (row.fate) {
    case 'rejected':
      return `${r?.plugin}: ${r?.reasons.join(', ')}${r?.code === 'UnschedulableAndUnresolvable' ? ' (unresolvable)' : ''}`;
    case 'scored':
      return row.chosen ? 'feasible, scored, CHOSEN' : 'feasible, scored';
    case 'feasible':
      return row.chosen ? 'feasible (the only one), CHOSEN' : 'feasible';
    case 'dropped':
      return 'feasible, not scored: the sample was full, the walk stopped here';
    case 'notVisited':
      return 'feasible, not visited: the walk stopped before it';
    case 'leftOut':
      return 'left out by the PreFilter narrowing';
    case 'notRun':
      return 'filters not run';
  }
}

function header(doc: ExplainDocument): string[] {
  const e = doc.explanation;
  const lines = [`berth explain ${doc.pod} (uid ${doc.uid}) — ${doc.mode}: ${doc.source}`];
  const a = doc.asOf;
  if (a.kind === 'decision') {
    const stateSeq = (doc.recorded?.gangStep?.seq ?? a.seq) - 1;
    lines.push(`As of:    decision #${a.seq}, on the state after seq ${stateSeq} (t=${a.time}ms)`);
  } else if (a.kind === 'end')
    lines.push(`As of:    the end of the run (after seq ${a.seq}, t=${a.time}ms): its next cycle`);
  else lines.push('As of:    now (the cluster as listed); nothing is written to it');
  lines.push(`Result:   ${a.kind === 'decision' ? '' : 'if a cycle ran now: '}${resultText(e)}`);
  const r = doc.recorded;
  if (r?.gangStep !== undefined)
    lines.push(
      `Recorded: #${r.seq} ${r.decision}: decided by the gang step of pod group ${r.gangStep.group} (from seq ${r.gangStep.seq}), which tries its members together; below, this member's own cycle, alone, against that step's snapshot`,
    );
  else if (r !== null)
    lines.push(
      r.agrees
        ? `Recorded: #${r.seq} ${r.decision}: the recomputed cycle agrees`
        : `Recorded: #${r.seq} ${r.decision}: MISMATCH, the recomputed cycle says ${r.recomputed}`,
    );
  for (const note of doc.notes) lines.push(`Note:     ${note}`);
  if (!e.check.agrees)
    lines.push(
      `WARNING:  the scheduler's own cycle says "${e.check.cycle}": this explanation is wrong (a bug in berth explain)`,
    );
  return lines;
}

/** The explained cycle's outcome, in words. */
export function resultText(e: PodExplanation): string {
  const o = e.outcome;
  if (o.kind === 'Unschedulable') return `unschedulable: ${o.message}`;
  if (o.kind === 'Error') return `error in ${o.plugin}: ${o.message}`;
  if (!o.scored) return `scheduled on ${o.node}, the only feasible node (not scored, as kube)`;
  const chosen = e.nodes.find((n) => n.chosen);
  const ties = e.nodes.filter((n) => n.fate === 'scored' && n.total === chosen?.total).length;
  const of = `highest total ${chosen?.total} of ${o.feasible} scored nodes`;
  return ties > 1
    ? `scheduled on ${o.node}: ${of}, tied with ${ties - 1} other(s), the tie broken by the seeded generator`
    : `scheduled on ${o.node}: ${of}`;
}

function preFilterLines(e: PodExplanation): string[] {
  if (e.preFilters.length === 0) return ['PreFilter: none ran (no nodes, or none in the profile)'];
  const rows = e.preFilters.map((p) => {
    let text = p.code === 'Success' ? 'Success' : `${p.code}: ${p.reasons.join(', ')}`;
    if (p.narrowedTo !== undefined) {
      const shown = p.narrowedTo.slice(0, 10).join(', ');
      const more = p.narrowedTo.length > 10 ? `, … (${p.narrowedTo.length - 10} more)` : '';
      text += `, narrowed to ${p.narrowedTo.length} node(s): ${shown}${more}`;
    }
    return [`  ${p.plugin}`, text];
  });
  const lines = ['PreFilter', ...table(rows)];
  if (e.narrowing !== null)
    lines.push(
      `  The walk covers the ${e.narrowing.nodes} node(s) ${e.narrowing.by.join(' and ')} left; the others count as "didn't satisfy plugin(s) [${e.narrowing.by.join(' ')}]".`,
    );
  return lines;
}

function samplingLines(e: PodExplanation): string[] {
  const s = e.sampling;
  if (s.allNodes === 0) return ['Sampling: the cluster has no nodes'];
  const pct =
    s.percentageOfNodesToScore === 0 ? '0 (adaptive)' : String(s.percentageOfNodesToScore);
  const over =
    s.candidates === s.allNodes ? `${s.allNodes} nodes` : `${s.candidates} of ${s.allNodes} nodes`;
  if (s.visited === 0) return [`Sampling: ${over}; no node was filtered`];
  return [
    `Sampling: ${over}; percentageOfNodesToScore ${pct}: look for ${s.feasibleToFind} feasible node(s)`,
    `          the walk started at index ${s.start} (cursor ${s.cursor}) on ${s.startNode}, ` +
      `reached ${s.visited}, processed ${s.processed}; next cursor ${s.nextCursor}`,
  ];
}

function filterLines(e: PodExplanation): string[] {
  const legend = e.filters
    .map((f, i) => `F${i + 1} ${f.plugin}${f.skipped ? ' (skipped for this pod)' : ''}`)
    .join(', ');
  const head = ['  WALK', 'NODE', ...e.filters.map((_, i) => `F${i + 1}`), 'RESULT'];
  const rows = e.nodes.map((n) => [
    `  ${n.walk ?? '-'}`,
    n.node,
    ...n.filters.map((v) => mark[v]),
    fateText(n),
  ]);
  return [
    `Filter: ${legend}`,
    "  ✓ pass, ✗ rejected, · not run (a node's filters stop at its first rejection, as in kube), - skipped",
    ...table([head, ...rows]),
  ];
}

function scoreCell(
  s: { raw: number; normalized: number; weighted: number } | null,
  weight: number,
): string {
  return s === null ? '' : `${s.raw}→${s.normalized}×${weight}=${s.weighted}`;
}

function scoreLines(e: PodExplanation): string[] {
  const scored = e.nodes.filter((n) => n.fate === 'scored');
  if (scored.length === 0) return [];
  const active = e.scorePlugins.map((p, i) => ({ ...p, i })).filter((p) => !p.skipped);
  const skipped = e.scorePlugins.filter((p) => p.skipped).map((p) => p.plugin);
  const legend = active.map((p) => `S${p.i + 1} ${p.plugin} ×${p.weight}`).join(', ');
  const head = ['  NODE', ...active.map((p) => `S${p.i + 1}`), 'TOTAL'];
  const rows = [...scored]
    .sort((a, b) => (b.total ?? 0) - (a.total ?? 0))
    .map((n) => [
      `  ${n.node}`,
      ...active.map((p) => scoreCell(n.scores?.[p.i] ?? null, p.weight)),
      `${n.total}${n.chosen ? '  ← chosen' : ''}`,
    ]);
  return [
    `Score: ${legend === '' ? 'no plugin scores this pod: every node totals 1' : legend}${skipped.length > 0 ? `; skipped for this pod: ${skipped.join(', ')}` : ''}`,
    '  each cell: raw → normalized × weight = weighted',
    ...table([head, ...rows]),
  ];
}

/** The document as text: header, PreFilter, sampling, the filter table, the score table. */
export function renderExplanation(doc: ExplainDocument): string {
  const e = doc.explanation;
  const sections = [
    header(doc),
    preFilterLines(e),
    samplingLines(e),
    e.nodes.length === 0 ? [] : filterLines(e),
    scoreLines(e),
  ].filter((s) => s.length > 0);
  return `${sections.map((s) => s.join('\n')).join('\n\n')}\n`;
}
