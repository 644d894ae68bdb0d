// Properties of whole simulated runs, checked by oracles independent of berth's plugins and reducer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLog } from '../../src/events/reader.ts';
import { replay } from '../../src/runtime/replay.ts';
import { simulate } from '../../src/runtime/simulate.ts';
import {
  type CheckedRun,
  checkedRun,
  fitOnlyConfig,
  type RunProperty,
} from '../support/checked-run.ts';
import { runScenario } from '../support/generators.ts';
import { propertySeed } from '../support/property-seed.ts';
import { nodeObject, podObject, type RunScenario } from '../support/run-models.ts';

/**
 * Every property runs over the same scenarios (one seed per test run, FC_SEED to replay one),
 * so each scenario is simulated once and checked by all of them.
 */
const RUNS = { numRuns: 500, seed: propertySeed(20261103).seed };
const scenarios = runScenario();
const cache = new Map<string, CheckedRun>();

function run(s: RunScenario): CheckedRun {
  const key = JSON.stringify(s);
  let result = cache.get(key);
  if (result === undefined) {
    result = checkedRun(s);
    if (cache.size > 2_000) cache.clear();
    cache.set(key, result);
  }
  return result;
}

function holds(property: RunProperty): void {
  fc.assert(
    fc.property(scenarios, (s) => {
      expect(run(s).violations.get(property) ?? [], property).toEqual([]);
    }),
    RUNS,
  );
}

describe('runs over generated clusters and scripts (oracles: brute-force fit, API truth)', () => {
  it('places every pod only on a node a brute-force fit check accepts, under its current uid', () => {
    holds('placement');
  });

  it('declares a pod unschedulable only when no node fits it', () => {
    holds('unschedulable');
  });

  it('never charges a node beyond its allocatable (unless it shrank or another scheduler filled it)', () => {
    holds('overcommit');
  });

  it('leaks nothing: at quiescence each node is charged exactly what the API has bound there', () => {
    holds('leak');
  });

  it('conserves work: at quiescence no pod waits while a node fits it, and none is lost', () => {
    holds('conservation');
  });

  it('retries a parked pod within the max backoff of the change that made a node fit it', () => {
    holds('liveness');
  });

  it('never binds a pod twice, and binds only the current uid of a name', () => {
    holds('double-bind');
  });

  it('reports placements and pending pods as the API holds them', () => {
    holds('accounting');
  });

  it('replays every recorded log to the same decisions and digest', () => {
    fc.assert(
      fc.property(scenarios, (s) => {
        const { summary, log } = run(s);
        const result = replay(parseLog(log));
        expect(result.divergence).toBeUndefined();
        expect(result.matches).toBe(true);
        expect(result.summary.decisionDigest).toBe(summary.decisionDigest);
        expect(result.summary.placements).toEqual(summary.placements);
        expect(result.summary.pending).toEqual(summary.pending);
      }),
      RUNS,
    );
  });

  it('gives scarce capacity to higher priority first among pods queued together', () => {
    fc.assert(
      fc.property(scenarios, (s) => {
        const quiet: RunScenario = { ...s, steps: [], bindFailureRate: 0 };
        const first = new Map<string, number>();
        simulate({
          nodes: quiet.nodes.map(nodeObject),
          pods: quiet.pods.map(podObject),
          seed: quiet.seed,
          config: fitOnlyConfig,
          bindLatencyMs: quiet.bindLatencyMs,
          bindFailureRate: 0,
          inspect: (phase, env) => {
            const e = env.event;
            const outcome = e.type === 'PodReserved' || e.type === 'PodUnschedulable';
            if (phase === 'before' && outcome && !first.has(e.key)) first.set(e.key, env.seq);
          },
        });
        const queued = quiet.pods.filter(
          (p) => p.schedulerName === 'berth' && p.gates.length === 0,
        );
        for (const h of queued) {
          for (const l of queued) {
            if (h.priority <= l.priority) continue;
            const hs = first.get(`default/${h.name}`);
            const ls = first.get(`default/${l.name}`);
            expect(
              hs !== undefined && ls !== undefined && hs < ls,
              `${h.name} (priority ${h.priority}) before ${l.name} (${l.priority})`,
            ).toBe(true);
          }
        }
      }),
      { ...RUNS, numRuns: 60 },
    );
  });

  it('reports the first decision that differs from a tampered log', () => {
    const lines: string[] = [];
    simulate({
      nodes: [
        {
          metadata: { name: 'n0' },
          status: { allocatable: { cpu: '1', memory: '1Gi', pods: '5' } },
        },
      ],
      pods: [
        {
          metadata: { name: 'p0', namespace: 'default' },
          spec: { schedulerName: 'berth', containers: [{}] },
        },
      ],
      seed: 1,
      config: fitOnlyConfig,
      bindLatencyMs: 1,
      bindFailureRate: 0,
      record: (l) => lines.push(l),
    });
    const log = `${lines.join('\n')}\n`;
    const tampered = log.replace(/("type":"PodReserved".*?"node":)"n0"/, '$1"n9"');
    expect(tampered).not.toBe(log);
    const result = replay(parseLog(tampered));
    expect(result.matches).toBe(false);
    expect(result.divergence?.expected).toMatch(/reserved default\/p0 \S+ #1 n9$/);
    expect(result.divergence?.actual).toMatch(/reserved default\/p0 \S+ #1 n0$/);
  });
});
