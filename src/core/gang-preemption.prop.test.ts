// Gang preemption over generated clusters, checked against the generated facts and a slot count, not against berth's own planner.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type GangCore,
  gangBudget,
  gangCore,
  gangGroup,
  gangNode,
  gangPod,
} from '../../test/support/gang-core.ts';
import { expectLowerAndWhole } from '../../test/support/gang-victim-checks.ts';
import { propertySeed } from '../../test/support/property-seed.ts';
import type { InputEvent } from '../events/types.ts';
import type { CoreState } from './core-state.ts';
import { mayHaveVictims, victimUnits } from './gang-victims.ts';

const RUNS = { numRuns: 150, seed: propertySeed(20261129).seed };

const priorities = [1, 5, 10, 50, 100, 1000] as const;

/** One generated cluster: nodes (whole cpus), bound single pods, a group `old` berth places first, and the preemptor `train`. */
interface Scenario {
  nodes: { cpu: number; pods: { priority: number; web: boolean }[] }[];
  budget: number | undefined;
  old: { size: number; priority: number };
  train: { size: number; priority: number };
}

const scenario: fc.Arbitrary<Scenario> = fc
  .array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 4 })
  .chain((cpus) =>
    fc.record({
      nodes: fc.tuple(
        ...cpus.map((cpu) =>
          fc.record({
            cpu: fc.constant(cpu),
            pods: fc.array(
              fc.record({ priority: fc.constantFrom(...priorities), web: fc.boolean() }),
              { maxLength: cpu },
            ),
          }),
        ),
      ),
      budget: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
      old: fc.record({
        size: fc.integer({ min: 0, max: 2 }),
        priority: fc.constantFrom(...priorities),
      }),
      train: fc.record({
        size: fc.integer({ min: 1, max: 4 }),
        priority: fc.constantFrom(...priorities),
      }),
    }),
  );

/** Runs `s`: builds the cluster, places `old`, adds `train`, then lets evictions land and members retry. */
function run(s: Scenario, probe: (h: GangCore) => void = () => {}) {
  const h = gangCore();
  const priorityOf = new Map<string, number>();
  const inputs: InputEvent[] = s.nodes.map((n, i) => gangNode(`n${i}`, String(n.cpu)));
  if (s.budget !== undefined) inputs.push(gangBudget('web', s.budget));
  h.events(...inputs, gangGroup('old', Math.max(1, s.old.size)), gangGroup('train', s.train.size));
  for (const [i, n] of s.nodes.entries())
    for (const [j, p] of n.pods.entries()) {
      const name = `single-${i}-${j}`;
      priorityOf.set(`default/${name}`, p.priority);
      const app = p.web ? { app: 'web' } : {};
      h.pods(gangPod(name, { node: `n${i}`, priority: p.priority, ...app }));
    }
  for (let k = 0; k < s.old.size; k++) {
    priorityOf.set(`default/old-${k}`, s.old.priority);
    h.pods(gangPod(`old-${k}`, { group: 'old', priority: s.old.priority, created: k }));
  }
  h.drain().confirmBinds();
  probe(h);
  const oldPlaced = [...h.placements()].filter(([k]) => k.startsWith('default/old-'));
  // An `old` that did not fit whole is removed, so that nothing else competes for the room.
  if (oldPlaced.length < s.old.size)
    for (let k = 0; k < s.old.size; k++)
      h.events({ type: 'PodDeleted', uid: `old-${k}-uid`, key: `default/old-${k}` });
  const before = new Map(h.placements());
  h.decisions.length = 0;
  for (let k = 0; k < s.train.size; k++)
    h.pods(gangPod(`train-${k}`, { group: 'train', priority: s.train.priority, created: 10 + k }));
  const trainPlaced: number[] = [];
  for (let round = 0; round < 6; round++) {
    h.drain();
    probe(h);
    h.evict().later(20_000).drain().confirmBinds();
    trainPlaced.push(
      [...h.placements().keys()].filter((k) => k.startsWith('default/train-')).length,
    );
  }
  return { h, before, priorityOf, trainPlaced };
}

/** How many 1-cpu members fit with every pod of priority below `p` gone (the ground truth of the generated cluster). */
function slotsWithout(s: Scenario, before: Map<string, string>, p: number): number {
  let slots = 0;
  s.nodes.forEach((n, i) => {
    let used = n.pods.filter((x) => x.priority >= p).length;
    if (s.old.priority >= p)
      used += [...before].filter(
        ([k, node]) => k.startsWith('default/old-') && node === `n${i}`,
      ).length;
    slots += n.cpu - used;
  });
  return slots;
}

describe('gang preemption (property)', () => {
  it('evicts only strictly lower priorities, takes groups whole, evicts only when the group then binds whole, and never places part of it', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { h, before, priorityOf, trainPlaced } = run(s);
        const victims = h.victims();
        // No victim of equal or higher priority than the group's; `old` taken whole or not at all.
        expectLowerAndWhole(victims, priorityOf, before, s.train.priority);
        // Never a partial preemptor group, after any round.
        for (const n of trainPlaced)
          expect(n === 0 || n === s.train.size, `${trainPlaced}`).toBe(true);
        const fitsNow = slotsWithout(s, before, Number.NEGATIVE_INFINITY) >= s.train.size;
        const fitsAfter = slotsWithout(s, before, s.train.priority) >= s.train.size;
        const bound = trainPlaced.at(-1) === s.train.size;
        // Evictions only when the whole group then fits — and it is then bound.
        if (victims.length > 0) expect(bound).toBe(true);
        if (!fitsAfter) expect(victims).toEqual([]);
        // Liveness: when evicting lower priorities makes room, the group is bound.
        if (fitsAfter) expect(bound).toBe(true);
        if (fitsNow) expect(victims).toEqual([]);
        expect(h.broken).toEqual([]);
      }),
      RUNS,
    );
  });

  it('says no victim can exist only where the full search finds none', () => {
    let hidden = 0;
    const probe = (h: GangCore) => {
      const core = (h.core as unknown as { core: CoreState }).core;
      for (const p of priorities)
        if (!mayHaveVictims(core, p) && victimUnits(core, 'default/train', p).length > 0) hidden++;
    };
    fc.assert(
      fc.property(scenario, (s) => {
        run(s, probe);
        expect(hidden).toBe(0);
      }),
      RUNS,
    );
  });
});
