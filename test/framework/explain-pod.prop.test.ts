// explainPod on generated clusters: its verdicts match a brute-force oracle and its choice the real cycle's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getPodByKey, initialState, reduce } from '../../src/cluster/reducer.ts';
import type { ClusterState } from '../../src/cluster/types.ts';
import type { BerthEvent } from '../../src/events/types.ts';
import { scheduleOne } from '../../src/framework/cycle.ts';
import {
  describeCycleResult,
  type ExplainInput,
  explainPod,
  type PodExplanation,
} from '../../src/framework/explain-pod.ts';
import { seededRng } from '../../src/framework/rng.ts';
import { defaultProfile } from '../../src/plugins/registry.ts';
import { runScenario } from '../support/generators.ts';
import { fitsResources, nodeAllows } from '../support/oracles.ts';
import { nodeObject, type PodModel, podObject, type RunScenario } from '../support/run-models.ts';

const RUNS = { numRuns: 300, seed: Number(process.env.FC_SEED ?? 20260114) };

/** A generated cluster, a pod to explain, and the cycle's cursor, generator and sampling. */
interface Case {
  scenario: RunScenario;
  /** Node index for each berth pod already bound (undefined: pending). */
  placed: (number | undefined)[];
  target: number;
  cursor: number;
  rngState: number;
  percentage: number;
}

const caseArb: fc.Arbitrary<Case> = runScenario({ maxNodes: 7, maxPods: 10, maxSteps: 0 }).chain(
  (scenario) =>
    fc.record({
      scenario: fc.constant(scenario),
      placed: fc.array(fc.option(fc.nat(6), { nil: undefined }), {
        minLength: scenario.pods.length,
        maxLength: scenario.pods.length,
      }),
      target: fc.nat(),
      cursor: fc.nat(20),
      rngState: fc.nat(),
      percentage: fc.constantFrom(0, 0, 1, 50, 100),
    }),
);

/** The scenario's pods with the chosen berth pods bound, and the pod to explain (pending). */
function podsOf(c: Case): { pods: PodModel[]; target: PodModel } {
  const names = c.scenario.nodes.map((n) => n.name);
  const berth = c.scenario.pods.filter((p) => p.nodeName === undefined);
  const target = berth[c.target % berth.length] as PodModel;
  const pods = c.scenario.pods.map((p, i) => {
    const at = c.placed[i];
    if (p === target || p.nodeName !== undefined || at === undefined) return p;
    return { ...p, nodeName: names[at % names.length] };
  });
  return { pods, target };
}

function fold(c: Case, pods: PodModel[]): ClusterState {
  const state = initialState();
  let seq = 0;
  const apply = (event: BerthEvent) => reduce(state, { seq: ++seq, time: 0, event });
  for (const node of c.scenario.nodes) apply({ type: 'NodeUpserted', node: nodeObject(node) });
  for (const pod of pods) apply({ type: 'PodUpserted', pod: podObject(pod) });
  return state;
}

/** Which nodes the pod fits, by brute force over the models (not berth's parsers or plugins). */
function oracleFeasible(c: Case, pods: PodModel[], target: PodModel): Set<string> {
  const out = new Set<string>();
  for (const node of c.scenario.nodes) {
    const occupants = pods.filter(
      (p) => p !== target && p.nodeName === node.name && p.phase !== 'Succeeded',
    );
    if (nodeAllows(node, target) && fitsResources(node, target, occupants)) out.add(node.name);
  }
  return out;
}

const kept = new Set(['scored', 'feasible', 'dropped', 'notVisited']);

function checkRows(e: PodExplanation, feasible: Set<string>): void {
  for (const row of e.nodes) {
    expect(kept.has(row.fate), `${row.node}: ${row.fate}`).toBe(feasible.has(row.node));
    if (row.fate !== 'rejected') continue;
    // Filters run in order and stop at the first rejection, as in kube.
    const at = row.filters.indexOf('reject');
    expect(row.filters.lastIndexOf('reject')).toBe(at);
    expect(e.filters[at]?.plugin).toBe(row.rejection?.plugin);
    row.filters.forEach((v, i) => {
      if (i < at) expect(['pass', 'skipped']).toContain(v);
      if (i > at) expect(['notRun', 'skipped']).toContain(v);
    });
  }
}

function checkScores(e: PodExplanation): void {
  const scored = e.nodes.filter((r) => r.fate === 'scored');
  for (const row of scored) {
    let sum = e.scorePlugins.every((p) => p.skipped) ? 1 : 0;
    row.scores?.forEach((s, k) => {
      const plugin = e.scorePlugins[k];
      expect(s === null).toBe(plugin?.skipped === true);
      if (s === null) return;
      expect(s.weighted).toBe(s.normalized * (plugin?.weight ?? 0));
      sum += s.weighted;
    });
    expect(row.total).toBe(sum);
  }
  if (e.outcome.kind !== 'Scheduled' || scored.length === 0) return;
  const best = Math.max(...scored.map((r) => r.total ?? 0));
  expect(e.nodes.find((r) => r.chosen)?.total).toBe(best);
}

describe('explainPod on generated clusters', () => {
  it('agrees with the brute-force fit oracle and picks what the scheduler cycle picks', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { pods, target } = podsOf(c);
        const state = fold(c, pods);
        const pod = getPodByKey(state, `default/${target.name}`)?.info;
        expect(pod).toBeDefined();
        if (pod === undefined) return;
        const input: ExplainInput = {
          profile: defaultProfile(),
          snapshot: state,
          pod,
          percentageOfNodesToScore: c.percentage,
          cursor: c.cursor,
          rngState: c.rngState,
        };
        const e = explainPod(input);
        // The ground truth: the scheduler's own cycle, with a profile of its own.
        const cursor = { next: c.cursor };
        const real = scheduleOne(pod, state, {
          profile: defaultProfile(),
          rng: seededRng(c.rngState),
          cursor,
          percentageOfNodesToScore: c.percentage,
        });
        expect(e.check).toEqual({ agrees: true, cycle: describeCycleResult(real) });
        expect(e.outcome.kind).toBe(real.kind);
        if (real.kind === 'Scheduled' && e.outcome.kind === 'Scheduled') {
          expect(e.outcome.node).toBe(real.node);
          expect(e.nodes.filter((r) => r.chosen).map((r) => r.node)).toEqual([real.node]);
          expect(e.sampling.processed).toBe(real.evaluated);
        }
        if (real.kind === 'Unschedulable' && e.outcome.kind === 'Unschedulable')
          expect(e.outcome.message).toBe(real.message);
        expect(e.sampling.nextCursor).toBe(cursor.next);
        const feasible = oracleFeasible(c, pods, target);
        expect(real.kind === 'Unschedulable').toBe(feasible.size === 0);
        expect(e.nodes.map((r) => r.node).sort()).toEqual(
          c.scenario.nodes.map((n) => n.name).sort(),
        );
        checkRows(e, feasible);
        checkScores(e);
      }),
      RUNS,
    );
  });
});
