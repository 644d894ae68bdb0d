// Exports machines for people: XState JSON (Stately visualizer) and Mermaid stateDiagram-v2.
import type { AnyStateMachine } from 'xstate';
import { podMachine } from './pod.machine.ts';
import { podGroupMachine } from './pod-group.machine.ts';

/** Every machine berth runs, by export name. */
export const machines: Record<string, AnyStateMachine> = {
  pod: podMachine,
  'pod-group': podGroupMachine,
};

interface StateJson {
  key: string;
  type: string;
  initial?: { target: string[] };
  states: Record<string, StateJson>;
  transitions: {
    eventType: string;
    target?: string[];
    guard?: string | { type: string };
    delay?: string | number;
  }[];
  description?: string;
}

function shortName(target: string): string {
  return target.slice(target.lastIndexOf('.') + 1);
}

function label(t: StateJson['transitions'][number]): string {
  if (t.delay !== undefined) return `after ${String(t.delay)}`;
  const guard = typeof t.guard === 'string' ? t.guard : t.guard?.type;
  return guard === undefined ? t.eventType : `${t.eventType} [${guard}]`;
}

/**
 * Renders a flat machine's JSON as Mermaid `stateDiagram-v2`. Transitions declared on
 * the root apply to every non-final state and are drawn from each of them.
 */
export function toMermaid(json: StateJson): string {
  const lines = ['stateDiagram-v2'];
  const initial = json.initial?.target[0];
  if (initial !== undefined) lines.push(`  [*] --> ${shortName(initial)}`);
  const children = Object.values(json.states);
  for (const state of children) {
    if (state.description !== undefined) lines.push(`  ${state.key} : ${state.description}`);
  }
  for (const state of children) {
    for (const t of state.transitions) {
      for (const target of t.target ?? [])
        lines.push(`  ${state.key} --> ${shortName(target)} : ${label(t)}`);
    }
  }
  for (const t of json.transitions) {
    for (const state of children) {
      if (state.type === 'final') continue;
      for (const target of t.target ?? [])
        lines.push(`  ${state.key} --> ${shortName(target)} : ${label(t)}`);
    }
  }
  for (const state of children) if (state.type === 'final') lines.push(`  ${state.key} --> [*]`);
  return `${lines.join('\n')}\n`;
}

/** One exported machine: file stem and the two renderings. */
export interface MachineExport {
  name: string;
  json: string;
  mermaid: string;
}

/** Renders every machine; the text is stable so committed copies can be compared. */
export function exportMachines(): MachineExport[] {
  return Object.entries(machines).map(([name, machine]) => {
    // Round-trip through JSON: toJSON() still holds live StateNode references in places.
    const json = JSON.parse(JSON.stringify(machine.toJSON())) as StateJson;
    return { name, json: `${JSON.stringify(json, null, 2)}\n`, mermaid: toMermaid(json) };
  });
}
