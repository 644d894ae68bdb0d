// Gang preemption for a topology-constrained group over generated racks, checked against slot counts of the generated facts, not against berth's planner.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gangBudget, gangCore, gangGroup, gangPod } from '../../test/support/gang-core.ts';
import { coreMember, corePodGroup, labelledNode } from '../../test/support/gang-harness.ts';
import { expectLowerAndWhole } from '../../test/support/gang-victim-checks.ts';
import { propertySeed } from '../../test/support/property-seed.ts';
import type { InputEvent } from '../events/types.ts';

const RUNS = { numRuns: 150, seed: propertySeed(20261130).seed };

const rack = 'topology.kubernetes.io/rack';
const priorities = [1, 5, 10, 50, 100, 1000] as const;

/** A node (whole cpus) and the 1-cpu pods bound on it. */
interface GenNode {
  cpu: number;
  pods: { priority: number; web: boolean }[];
}

/**
 * One generated cluster: racks of nodes, an unlabelled node, a budget, a scheduler-plugins
 * group `old` berth places first (anywhere), and the preemptor, core PodGroup `train`
 * constrained to one rack; every pod and member asks for 1 cpu.
 */
interface Scenario {
  racks: GenNode[][];
  loose: GenNode;
  budget: number | undefined;
  old: { size: number; priority: number };
  train: { size: number; priority: number };
}

const genNode: fc.Arbitrary<GenNode> = fc.integer({ min: 1, max: 2 }).chain((cpu) =>
  fc.record({
    cpu: fc.constant(cpu),
    pods: fc.array(fc.record({ priority: fc.constantFrom(...priorities), web: fc.boolean() }), {
      minLength: cpu - 1,
      maxLength: cpu,
    }),
  }),
);

const scenario: fc.Arbitrary<Scenario> = fc.record({
  racks: fc.array(fc.array(genNode, { minLength: 1, maxLength: 3 }), {
    minLength: 1,
    maxLength: 3,
  }),
  loose: genNode,
  budget: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
  old: fc.record({
    size: fc.integer({ min: 0, max: 2 }),
    priority: fc.constantFrom(...priorities),
  }),
  // Mostly above the pods' priorities, so that preemption is usually worth planning.
  train: fc.record({
    size: fc.integer({ min: 1, max: 4 }),
    priority: fc.constantFrom(10, 50, 100, 100, 1000),
  }),
});

/** Node names: `r<i>-<j>` in rack `rack-<i>`, and `loose` without the label. */
const nodeName = (i: number, j: number) => `r${i}-${j}`;

/** Runs `s`: builds the cluster, places `old`, adds `train`, then lets evictions land and members retry. */
function run(s: Scenario) {
  const h = gangCore();
  const priorityOf = new Map<string, number>();
  const inputs: InputEvent[] = [];
  const bound: [string, GenNode][] = [['loose', s.loose]];
  inputs.push(labelledNode('loose', String(s.loose.cpu), {}));
  for (const [i, nodes] of s.racks.entries())
    for (const [j, n] of nodes.entries()) {
      inputs.push(labelledNode(nodeName(i, j), String(n.cpu), { [rack]: `rack-${i}` }));
      bound.push([nodeName(i, j), n]);
    }
  if (s.budget !== undefined) inputs.push(gangBudget('web', s.budget));
  h.events(...inputs, gangGroup('old', Math.max(1, s.old.size)));
  for (const [node, n] of bound)
    for (const [k, p] of n.pods.entries()) {
      const name = `single-${node}-${k}`;
      priorityOf.set(`default/${name}`, p.priority);
      h.pods(gangPod(name, { node, priority: p.priority, ...(p.web ? { app: 'web' } : {}) }));
    }
  for (let k = 0; k < s.old.size; k++) {
    priorityOf.set(`default/old-${k}`, s.old.priority);
    h.pods(gangPod(`old-${k}`, { group: 'old', priority: s.old.priority, created: k }));
  }
  // `old` may preempt too: its evictions land before `train` comes.
  h.drain().confirmBinds().evict().later(20_000).drain().confirmBinds();
  const oldPlaced = [...h.placements()].filter(([k]) => k.startsWith('default/old-'));
  if (oldPlaced.length < s.old.size)
    for (let k = 0; k < s.old.size; k++)
      h.events({ type: 'PodDeleted', uid: `old-${k}-uid`, key: `default/old-${k}` });
  const before = new Map(h.placements());
  h.decisions.length = 0;
  const { size, priority } = s.train;
  h.events(
    corePodGroup('train', {
      schedulingPolicy: { gang: { minCount: size } },
      priority,
      schedulingConstraints: { topology: [{ key: rack }] },
    }),
  );
  for (let k = 0; k < size; k++)
    h.pods(coreMember(`train-${k}`, 'train', { priority, created: 10 + k }));
  const rounds: string[][] = [];
  for (let round = 0; round < 6; round++) {
    h.drain();
    h.evict().later(20_000).drain().confirmBinds();
    rounds.push(
      [...h.placements()].filter(([k]) => k.startsWith('default/train-')).map(([, n]) => n),
    );
  }
  return { h, before, priorityOf, rounds };
}

/** The rack of node `name`, or undefined for the unlabelled node. */
const rackOf = (name: string) => (name.startsWith('r') ? name.split('-')[0] : undefined);

/**
 * 1-cpu slots in rack `i` with every pod of priority below `p` gone (ground truth: the
 * generated nodes, less the pods placed on them when `train` came, `before`).
 */
function slotsIn(
  s: Scenario,
  before: Map<string, string>,
  priorityOf: Map<string, number>,
  i: number,
  p: number,
): number {
  let slots = 0;
  for (const [j, n] of (s.racks[i] ?? []).entries()) {
    const used = [...before].filter(
      ([k, node]) => node === nodeName(i, j) && (priorityOf.get(k) ?? 0) >= p,
    ).length;
    slots += n.cpu - used;
  }
  return slots;
}

describe('gang preemption for a topology-constrained group (property)', () => {
  it('keeps the group in one rack, whole or not at all; evicts only lower priorities, only in that rack (groups whole), only when it then binds, and no more than it needs', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { h, before, priorityOf, rounds } = run(s);
        const victims = h.victims();
        const { size, priority } = s.train;
        expectLowerAndWhole(victims, priorityOf, before, priority);
        for (const nodes of rounds) {
          // Never part of the group, and never across racks or off them.
          expect(nodes.length === 0 || nodes.length === size, `${rounds}`).toBe(true);
          expect(new Set(nodes.map(rackOf)).size <= 1, `${nodes}`).toBe(true);
          for (const n of nodes) expect(rackOf(n), n).toBeDefined();
        }
        const racks = s.racks.map((_, i) => i);
        const fitsNow = racks.some(
          (i) => slotsIn(s, before, priorityOf, i, Number.NEGATIVE_INFINITY) >= size,
        );
        const fitsAfter = racks.some((i) => slotsIn(s, before, priorityOf, i, priority) >= size);
        const final = rounds.at(-1) ?? [];
        const bound = final.length === size;
        if (victims.length > 0) expect(bound).toBe(true);
        if (!fitsAfter) expect(victims).toEqual([]);
        if (fitsAfter) expect(bound).toBe(true);
        if (fitsNow) expect(victims).toEqual([]);
        if (bound && victims.length > 0) {
          const home = rackOf(final[0] as string);
          const singles = victims.filter((v) => v.startsWith('default/single-'));
          // Single victims only inside the group's rack, and no more than its members lacked.
          for (const v of singles) expect(rackOf(before.get(v) ?? ''), v).toBe(home);
          const i = Number(home?.slice(1));
          const free = slotsIn(s, before, priorityOf, i, Number.NEGATIVE_INFINITY);
          expect(singles.length).toBeLessThanOrEqual(size - free);
        }
        expect(h.broken).toEqual([]);
      }),
      RUNS,
    );
  });
});
