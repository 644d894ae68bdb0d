// Properties of preemption over generated runs: lower-priority victims, only when needed, minimal, replayable.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyNode, removePodFromCopy } from '../../src/cluster/node-what-if.ts';
import type { ClusterState, PodInfo } from '../../src/cluster/types.ts';
import { defaultConfig } from '../../src/core/config.ts';
import { parseLog } from '../../src/events/reader.ts';
import type { Envelope } from '../../src/events/types.ts';
import { scheduleOne } from '../../src/framework/cycle.ts';
import { seededRng } from '../../src/framework/rng.ts';
import type { CycleState } from '../../src/framework/types.ts';
import { filterWithNominatedPods } from '../../src/framework/what-if.ts';
import { profileFromConfig } from '../../src/plugins/registry.ts';
import { replay } from '../../src/runtime/replay.ts';
import { simulate } from '../../src/runtime/simulate.ts';
import { runScenario } from '../support/generators.ts';
import { propertySeed } from '../support/property-seed.ts';
import { nodeObject, podObject, type RunScenario, scriptOf } from '../support/run-models.ts';

const RUNS = { numRuns: 300, seed: propertySeed(20261102).seed };
const fitOnly = profileFromConfig({ postFilters: [] });

/** A preemption seen in the log: its preemptor, node and victims (as the state had them). */
interface Seen {
  preemptor: PodInfo;
  node: string;
  victims: PodInfo[];
}

/** True when `pod` passes the filters on `node` with `gone` taken off it (nominations counted). */
function fitsWithout(state: ClusterState, pod: PodInfo, node: string, gone: PodInfo[]): boolean {
  const info = state.nodes.get(node);
  if (info === undefined) return false;
  const copy = copyNode(info);
  for (const v of gone) removePodFromCopy(copy, v);
  const cycle: CycleState = new Map();
  for (const pl of fitOnly.preFilter)
    if (pl.preFilter(pod, cycle, state).code !== 'Success') return false;
  const filters = fitOnly.filter.filter((f) => f.preFilterSkip?.(pod, cycle) !== true);
  return (
    filterWithNominatedPods(filters, fitOnly.preFilter, pod, copy, cycle, state).code === 'Success'
  );
}

interface Outcome {
  problems: string[];
  preemptions: number;
  log: string;
}

function runWithPreemption(s: RunScenario): Outcome {
  const problems: string[] = [];
  const lines: string[] = [];
  let open: Seen | undefined;
  let preemptions = 0;
  /** Checks the victim set of a finished preemption is minimal: none could have stayed. */
  const close = (state: ClusterState) => {
    if (open === undefined) return;
    const { preemptor, node, victims } = open;
    for (const v of victims) {
      const others = victims.filter((o) => o !== v);
      if (fitsWithout(state, preemptor, node, others))
        problems.push(`${preemptor.key} on ${node}: victim ${v.key} could have stayed`);
    }
    open = undefined;
  };
  const inspect = (phase: 'before' | 'after', env: Envelope, state: ClusterState) => {
    if (phase !== 'before') return;
    const e = env.event;
    if (e.type === 'VictimPreempted' && open !== undefined) {
      const victim = state.pods.get(e.victim.uid)?.info;
      if (victim === undefined) problems.push(`victim ${e.victim.key} is not in the state`);
      else {
        if (victim.priority >= open.preemptor.priority)
          problems.push(`victim ${victim.key} (${victim.priority}) ≥ ${open.preemptor.key}`);
        open.victims.push(victim);
      }
      return;
    }
    close(state);
    if (e.type !== 'PodNominated') return;
    preemptions++;
    const preemptor = state.pods.get(e.uid)?.info;
    if (preemptor === undefined) return void problems.push(`preemptor ${e.key} unknown`);
    const plain = scheduleOne(preemptor, state, {
      profile: fitOnly,
      rng: seededRng(1),
      cursor: { next: 0 },
      percentageOfNodesToScore: 100,
    });
    if (plain.kind === 'Scheduled')
      problems.push(`${e.key} preempted although ${plain.node} fits it without`);
    open = { preemptor, node: e.node, victims: [] };
  };
  simulate({
    nodes: s.nodes.map(nodeObject),
    pods: s.pods.map(podObject),
    seed: s.seed,
    config: defaultConfig,
    bindLatencyMs: s.bindLatencyMs,
    bindFailureRate: s.bindFailureRate,
    watchFirstRate: s.watchFirstRate,
    script: scriptOf(s),
    record: (line) => lines.push(line),
    inspect,
  });
  return { problems, preemptions, log: `${lines.join('\n')}\n` };
}

describe('preemption over generated runs (the default profile, with DefaultPreemption)', () => {
  let total = 0;
  it('evicts only lower-priority pods, only when no node fits, and no victim could have stayed; replay reproduces it', () => {
    fc.assert(
      fc.property(runScenario(), (s) => {
        const out = runWithPreemption(s);
        total += out.preemptions;
        expect(out.problems).toEqual([]);
        expect(replay(parseLog(out.log)).matches).toBe(true);
      }),
      RUNS,
    );
    // The generated runs must preempt now and then, or this test proves nothing.
    expect(total).toBeGreaterThan(0);
  });
});
