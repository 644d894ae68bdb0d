// Keeps the committed machine exports identical to the code, and checks that they load in XState as the same machines.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type AnyEventObject,
  type AnyStateMachine,
  type AnyStateNode,
  createActor,
  createMachine,
} from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { exportFiles, exportMachines, machines } from './export.ts';
import { type PodEvent, podMachine } from './pod.machine.ts';
import type { GroupEvent } from './pod-group.machine.ts';

const dir = fileURLToPath(new URL('.', import.meta.url));
const committed = (file: string) => readFileSync(`${dir}${file}`, 'utf8');

/** An action or guard as its name (`{ type: 'park', params }` → `park`). */
function nameOf(item: unknown): string {
  if (typeof item === 'string') return item;
  return String((item as { type?: unknown }).type);
}

/**
 * What XState made of a machine, as plain data: every state node (id, key, type,
 * description, initial, entry and exit action names) and every transition (event, source,
 * target ids, guard name, action names, reenter), read from the machine's resolved state
 * nodes rather than from its config.
 */
function shape(machine: AnyStateMachine) {
  const nodes: unknown[] = [];
  const walk = (node: AnyStateNode): void => {
    nodes.push({
      id: node.id,
      key: node.key,
      type: node.type,
      description: node.description,
      initial: node.initial?.target.map((t: AnyStateNode) => t.id),
      entry: node.entry.map(nameOf),
      exit: node.exit.map(nameOf),
      transitions: [...node.transitions.entries()].map(([event, list]) => ({
        event,
        list: list.map((t) => ({
          source: t.source.id,
          targets: t.target?.map((s: AnyStateNode) => s.id),
          guard: t.guard === undefined ? undefined : nameOf(t.guard),
          actions: t.actions.map(nameOf),
          reenter: t.reenter,
        })),
      })),
      always: node.always?.map((t) => t.target?.map((s: AnyStateNode) => s.id)),
    });
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(machine.root);
  return nodes;
}

/** One event of every type each machine takes, with payloads, for walking its paths. */
const sampleEvents: Record<string, AnyEventObject[]> = {
  pod: [
    { type: 'GATED' },
    { type: 'UNGATED' },
    { type: 'SCHEDULE' },
    { type: 'RESERVED', node: 'n1', permit: 'allow' },
    { type: 'RESERVED', node: 'n2', permit: 'wait' },
    { type: 'ALLOWED' },
    { type: 'UNRESERVED', reason: 'rejected', now: 3 },
    { type: 'UNSCHEDULABLE', message: 'no fit', plugins: ['NodeResourcesFit'], now: 2 },
    { type: 'CYCLE_FAILED', message: 'boom', now: 2 },
    { type: 'PREEMPTING', node: 'n1', message: 'no fit', now: 2 },
    { type: 'PREEMPTION_FAILED', attempt: 1, message: 'evict failed', now: 4 },
    { type: 'BIND_SUCCEEDED', attempt: 1 },
    { type: 'BIND_FAILED', attempt: 1, message: 'conflict', now: 4 },
    { type: 'BOUND', node: 'n1' },
    { type: 'REQUEUE', now: 5 },
    { type: 'REQUEUE', now: 60_000 },
    { type: 'RETRY' },
    { type: 'DELETED' },
  ] satisfies PodEvent[],
  'pod-group': [
    { type: 'QUORUM_MISSING', reason: '1 of 3 members' },
    { type: 'STEP', now: 7 },
    { type: 'PLACED', now: 8 },
    { type: 'NOT_PLACED', reason: 'no room' },
    { type: 'ALL_BOUND' },
    { type: 'MEMBER_LOST', reason: 'bind failed' },
    { type: 'TIMED_OUT', reason: 'held too long' },
  ] satisfies GroupEvent[],
};

/** A snapshot's state and context, `undefined` as null (the JSON context's convention). */
function observed(actor: { getSnapshot(): { value: unknown; context: unknown } }) {
  const { value, context } = actor.getSnapshot();
  return JSON.parse(JSON.stringify({ value, context }, (_k, v) => v ?? null));
}

describe('machine exports', () => {
  for (const exported of exportMachines()) {
    const files = exportFiles(exported.name);
    it(`machines/${files.json}, ${files.code} and ${files.mermaid} match the ${exported.name} machine (run: npm run --silent berth -- export-machines --out machines)`, () => {
      expect(committed(files.json)).toBe(exported.json);
      expect(committed(files.code)).toBe(exported.code);
      expect(committed(files.mermaid)).toBe(exported.mermaid);
    });

    it(`createMachine(JSON.parse(machines/${files.json})) has the ${exported.name} machine's states, events, targets, guards and actions`, () => {
      const source = machines[exported.name]?.machine as AnyStateMachine;
      const loaded = createMachine(JSON.parse(committed(files.json)));
      expect(shape(loaded)).toEqual(shape(source));
      expect(Object.keys(loaded.root.states).length).toBeGreaterThan(0);
    });

    it(`machines/${files.code} imports as a machine with the ${exported.name} machine's states, events, targets, guards and actions`, async () => {
      const source = machines[exported.name]?.machine as AnyStateMachine;
      const module = (await import(`./${exported.name}.stately.ts`)) as {
        machine: AnyStateMachine;
      };
      expect(shape(module.machine)).toEqual(shape(source));
    });

    it(`the loaded ${exported.name} JSON, given the source's implementations, takes every transition as the source does`, () => {
      const entry = machines[exported.name];
      if (entry === undefined) throw new Error(`no machine ${exported.name}`);
      const loaded = createMachine(JSON.parse(exported.json)).provide(
        entry.machine.implementations as never,
      );
      const events = sampleEvents[exported.name] ?? [];
      // One path to every (state, event that entered it): each transition is taken at least once.
      const paths = getShortestPaths(entry.machine, {
        events,
        input: entry.input,
        // A final state takes no event: one node for it, so no path goes on past it.
        serializeState: (snapshot, event) =>
          JSON.stringify([snapshot.value, snapshot.status === 'done' ? null : (event ?? null)]),
      });
      expect(paths.length).toBeGreaterThan(3);
      for (const path of paths) {
        const actors = [entry.machine, loaded].map((m) => {
          const actor = createActor(m as AnyStateMachine, { input: entry.input });
          actor.start();
          for (const step of path.steps) actor.send(step.event);
          return observed(actor);
        });
        expect(actors[1]).toEqual(actors[0]);
      }
    });

    it(`the exported ${exported.name} JSON starts with the context the machine makes (undefined fields as null)`, () => {
      const entry = machines[exported.name];
      if (entry === undefined) throw new Error(`no machine ${exported.name}`);
      const started = createActor(entry.machine, { input: entry.input }).getSnapshot().context;
      const loaded = createActor(createMachine(JSON.parse(exported.json))).getSnapshot().context;
      expect(loaded).toEqual(JSON.parse(JSON.stringify(started, (_k, v) => v ?? null)));
    });
  }

  it('keeps static params, drops the ones computed from the event and lists them in meta.export', () => {
    const pod = JSON.parse(exportMachines().find((m) => m.name === 'pod')?.json ?? '{}');
    expect(pod.states.unschedulable.entry).toEqual({ type: 'park' });
    expect(pod.meta.export.droppedParams).toEqual([
      'states.preempting.entry',
      'states.unschedulable.entry',
    ]);
    expect(pod.context).toMatchObject({ attempts: 0, node: null, reason: null });
  });

  it('draws every state of the pod machine with its description, and ends only bound and deleted', () => {
    const pod = exportMachines().find((m) => m.name === 'pod');
    const lines = pod?.mermaid.split('\n') ?? [];
    for (const [key, state] of Object.entries(podMachine.root.states)) {
      expect(lines).toContain(`  ${key} : ${state.description}`);
    }
    expect(lines.filter((l) => l.endsWith('--> [*]')).sort()).toEqual([
      '  bound --> [*]',
      '  deleted --> [*]',
    ]);
    expect(lines).toContain('  binding --> boundUnconfirmed : BIND_SUCCEEDED [isCurrentAttempt]');
    expect(lines).toContain('  backoff --> pending : after backoff');
    expect(lines).toContain('  waiting --> bound : BOUND');
  });

  it('draws the way into and out of gated (PreEnqueue)', () => {
    const pod = exportMachines().find((m) => m.name === 'pod');
    const lines = pod?.mermaid.split('\n') ?? [];
    expect(lines).toContain('  pending --> gated : GATED');
    expect(lines).toContain('  gated --> pending : UNGATED');
    expect(lines).toContain('  filtering --> waiting : RESERVED [permitWaits]');
    expect(lines).toContain('  filtering --> binding : RESERVED');
  });

  it('refuses to export an inline function: it must be named in setup()', () => {
    const inline = createMachine({ id: 'x', initial: 'a', states: { a: { entry: () => {} } } });
    const entry = { machine: inline, source: 'x.ts', input: {} };
    machines.inline = entry;
    try {
      expect(() => exportMachines()).toThrow(
        'cannot export .states.a.entry: a function is not JSON',
      );
    } finally {
      delete machines.inline;
    }
  });
});
