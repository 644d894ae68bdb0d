// `berth explain group`'s text: the group's quorum, members, its traced step, topology, preemption plan and machine path.
import type {
  GroupExplanation,
  MemberCycle,
  PreemptionExplanation,
  StepExplanation,
  TopologyExplanation,
} from '../core/gang-explain-types.ts';
import { type ExplainAsOf, fateText, resultText, table } from './explain-render.ts';
import type { GroupTraceStep } from './group-trace.ts';

/** What `berth explain group` prints: `--json` gives exactly this object. */
export interface GroupExplainDocument {
  /** `namespace/name` as asked. */
  name: string;
  mode: 'simulated' | 'log' | 'live';
  source: string;
  asOf: ExplainAsOf;
  notes: string[];
  explanation: GroupExplanation;
  /** Log mode: the group machine's path up to the state explained; null otherwise. */
  trace: GroupTraceStep[] | null;
}

const apiText = {
  plugins: 'scheduler-plugins PodGroup',
  core: 'core PodGroup',
} as const;

function header(doc: GroupExplainDocument): string[] {
  const e = doc.explanation;
  const lines = [
    `berth explain group ${doc.name} (${apiText[e.api]}, ${e.apiVersion}) — ${doc.mode}: ${doc.source}`,
  ];
  const a = doc.asOf;
  if (a.kind === 'now')
    lines.push('As of:    now (the cluster as listed); nothing is written to it');
  else if (doc.mode === 'log') lines.push(`As of:    the state after seq ${a.seq} (t=${a.time}ms)`);
  else lines.push(`As of:    the end of the run (after seq ${a.seq}, t=${a.time}ms)`);
  lines.push(`Waiting:  ${e.waiting.kind} — ${e.waiting.text}`);
  const q = e.quorum;
  const min = q.minMember === null ? 'no minMember (no PodGroup)' : `minMember ${q.minMember}`;
  const ours = e.hold?.group === e.group || !['placed', 'ready'].includes(e.waiting.kind);
  lines.push(
    `Quorum:   ${q.present} of ${min} present (${q.members} seen, ${q.gated} gated); ${q.placed} placed, ${q.bound} bound`,
  );
  const m = e.machine;
  if (m !== null)
    lines.push(
      `Machine:  ${m.state}, ${m.steps} step(s)${m.startedAt > 0 ? `, first at t=${m.startedAt}ms` : ''}${m.reason === null ? '' : `: ${m.reason}`}`,
    );
  const h = e.hold;
  if (h !== null && ours)
    lines.push(
      `Hold:     pod group ${h.group} holds ${h.places.map((p) => `${p.node} for ${p.pod}`).join(', ')} since t=${h.since}ms, until t=${h.until}ms`,
    );
  if (e.coolingUntil !== null)
    lines.push(`Timeout:  its hold timed out; no new hold before t=${e.coolingUntil}ms`);
  for (const note of doc.notes) lines.push(`Note:     ${note}`);
  return lines;
}

function memberLines(e: GroupExplanation): string[] {
  if (e.members.length === 0) return ['Members: none (no pod joins the group)'];
  const rows = e.members.map((m) => [
    `  ${m.pod}`,
    m.status,
    m.node ?? (m.nominated === undefined ? '-' : `nominated ${m.nominated}`),
    m.machine ?? '-',
  ]);
  return ['Members', ...table([['  POD', 'STATUS', 'NODE', 'POD MACHINE'], ...rows])];
}

/** A member's cycle: its best node, or every node's reason. */
function cycleLines(c: MemberCycle): string[] {
  if (c.node !== null) return [`  ${c.pod}: fits — ${resultText(c.explanation)}`];
  const rows = c.explanation.nodes.map((n) => [`      ${n.node}`, fateText(n)]);
  return [`  ${c.pod}: fits nowhere — ${resultText(c.explanation)}`, ...table(rows)];
}

function stepLines(s: StepExplanation): string[] {
  const lines = [
    `Step: ${s.need} member(s) to place (${s.placed} placed already); taken in gang order: ${s.taken.join(', ')}`,
    s.outcome === 'placed' ? '  the trial places them all' : `  blocked: ${s.message}`,
  ];
  for (const c of s.cycles) lines.push(...cycleLines(c));
  for (const p of s.notTried) lines.push(`  ${p}: not tried — ${s.notTriedWhy}`);
  return lines;
}

function topologyLines(t: TopologyExplanation): string[] {
  const pin = t.pinned === null ? '' : `; pinned to ${t.key}=${t.pinned} by members already placed`;
  const lines = [`Topology: all members inside one domain of ${t.key}${pin}`];
  if (t.conflict !== null) return [...lines, `  no domain can be used: ${t.conflict}`];
  if (t.domains.length === 0) return [...lines, `  no live node has the label ${t.key}`];
  const rows = t.domains.map((d) => {
    let result: string;
    if (d.result === 'placed') result = `holds all ${d.fitted} member(s)`;
    else if (d.result === 'blocked')
      result = `tried: ${d.fitted} fitted, then ${d.blockedPod}: ${d.message}`;
    else if (d.result === 'short')
      result = `not tried: too little ${d.short} summed over the domain`;
    else result = 'not reached: an earlier domain held the group';
    return [
      `  ${d.domain}`,
      String(d.nodes),
      d.leftover.toFixed(3),
      `${result}${d.domain === t.shown ? '  ← cycles shown' : ''}`,
    ];
  });
  return [
    ...lines,
    '  tried tightest first (least free share left after the group)',
    ...table([['  DOMAIN', 'NODES', 'LEFTOVER', 'RESULT'], ...rows]),
  ];
}

function preemptionLines(p: PreemptionExplanation): string[] {
  if (p.kind === 'notPlanned') return [`Preemption: not planned — ${p.why}`];
  if (p.kind === 'refused') return [`Preemption: not possible — ${p.message}`];
  const rows = p.victims.map((v) => [
    `  ${v.unit}`,
    v.group ? 'group (whole)' : 'pod',
    String(v.priority),
    v.violatesBudget ? 'yes' : 'no',
    v.pods.map((x) => `${x.pod} on ${x.node}`).join(', '),
  ]);
  return [
    `Preemption: would evict ${p.pods} pod(s) in ${p.victims.length} unit(s) (${p.budgetViolations} violating a PodDisruptionBudget; planned in ${p.trials} trial(s)); then the whole group fits`,
    ...table([['  UNIT', 'KIND', 'PRIORITY', 'PDB', 'PODS'], ...rows]),
    `  then: ${p.placements.map((x) => `${x.pod} → ${x.node}`).join(', ')}`,
  ];
}

function traceLines(trace: readonly GroupTraceStep[]): string[] {
  if (trace.length === 0) return ['Machine trace: the group had no machine before this point'];
  const rows = trace.map((s) => [
    `  ${s.seq}`,
    String(s.time),
    s.event,
    `${s.from ?? '(start)'} -> ${s.state}`,
    String(s.steps),
    s.reason ?? '',
  ]);
  return [
    'Machine trace (machines/pod-group.machine.ts)',
    ...table([['  SEQ', 'TIME', 'EVENT', 'STATE', 'STEPS', 'REASON'], ...rows]),
  ];
}

/** The document as text: header, members, the step, topology, preemption, the machine's path. */
export function renderGroupExplanation(doc: GroupExplainDocument): string {
  const e = doc.explanation;
  const sections = [
    header(doc),
    memberLines(e),
    e.step === null ? [] : stepLines(e.step),
    e.step?.topology == null ? [] : topologyLines(e.step.topology),
    e.step === null ? [] : preemptionLines(e.step.preemption),
    doc.trace === null ? [] : traceLines(doc.trace),
  ].filter((s) => s.length > 0);
  return `${sections.map((s) => s.join('\n')).join('\n\n')}\n`;
}
