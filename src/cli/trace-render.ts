// Prints a pod's machine path as a table, as JSON, or as the pod machine's Mermaid diagram with the path marked.
import { toMermaid } from '../../machines/export-mermaid.ts';
import { podMachine } from '../../machines/pod.machine.ts';
import type { PodTrace } from './trace-path.ts';

/** The trace as one JSON document (pod, log, machine, and each uid's steps). */
export function renderTraceJson(trace: PodTrace): string {
  return `${JSON.stringify(trace, null, 2)}\n`;
}

/** The trace as a table: one line per step, each uid under its own heading. */
export function renderTraceText(trace: PodTrace): string {
  const lines = [`${trace.pod} in ${trace.log} (the ${trace.machine} machine)`];
  for (const { uid, steps } of trace.uids) {
    lines.push('', `uid ${uid}`, '  seq  time  event  state');
    for (const s of steps)
      lines.push(`  ${s.seq}  ${s.time}  ${s.event}  ${s.from ?? '(start)'} -> ${s.state}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The pod machine's diagram (as `berth export-machines` draws it) with the path added: a
 * numbered edge per step (`n. <log event> #<seq> at <time>`, the first from `[*]`; with
 * several uids, each label names its uid), and the visited states in `classDef taken`. A
 * step joins the states seen after two envelopes: when one envelope moved the machine
 * twice (a cycle's SCHEDULE and its decision), its edge skips the state in between.
 */
export function renderTraceMermaid(trace: PodTrace): string {
  const [head = 'stateDiagram-v2', ...body] = toMermaid(podMachine.config).trimEnd().split('\n');
  const lines = [
    head,
    `  %% ${trace.pod} in ${trace.log}: the numbered edges are the path its machine took`,
    ...body,
  ];
  const several = trace.uids.length > 1;
  const visited = new Set<string>();
  let n = 0;
  for (const { uid, steps } of trace.uids) {
    for (const s of steps) {
      n++;
      visited.add(s.state);
      const who = several ? ` uid ${uid.slice(0, 8)}` : '';
      lines.push(
        `  ${s.from ?? '[*]'} --> ${s.state} : ${n}. ${s.event} #${s.seq} at ${s.time}${who}`,
      );
    }
  }
  lines.push('  classDef taken fill:#fde68a,stroke:#b45309,stroke-width:2px');
  if (visited.size > 0) lines.push(`  class ${[...visited].join(',')} taken`);
  return `${lines.join('\n')}\n`;
}
