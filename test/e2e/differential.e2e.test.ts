// Differential test: generated clusters scheduled by the real kube-scheduler and by berth must agree pod by pod.
//
// Each seed's scenario (test/e2e/support/scenarios.ts) is loaded into the same control plane
// twice, reset in between (no pods, no nodes), in the same order: nodes, residents bound by
// nodeName, then the pending pods, all created before the scheduler starts. The pending pods
// are byte-identical in both runs (berth is configured with schedulerName default-scheduler),
// and both schedulers score every node (percentageOfNodesToScore 100). The generator keeps
// every pending pod's fate independent of where the others go, so queue order and random
// tie-breaks cannot make a correct scheduler differ: schedulable in both or neither, the
// same PodScheduled=False reason and filter sentence, and the same node wherever only one
// node can fit or win (see differential.ts).
//
// BERTH_DIFF_SEEDS=50 runs seeds 1–50; BERTH_DIFF_SEED=7,12 runs those seeds;
// BERTH_DIFF_FEATURES=a,b,… picks generator features (`+hostPorts` adds one to the
// default set, `-cordon` removes one, `all` takes every feature including known-divergent ones).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  compareOutcomes,
  describeNodes,
  filtersSentence,
  formatMismatches,
  loadScenario,
  type Outcomes,
  overcommitted,
  resetCluster,
  settledOutcomes,
} from './support/differential.ts';
import { startKubeScheduler } from './support/kube-scheduler.ts';
import {
  allFeatures,
  defaultFeatureNames,
  generateScenario,
  type Scenario,
  scenarioSchedulerName,
} from './support/scenarios.ts';

/**
 * Features on which berth is known to disagree with kube-scheduler: left out of the default
 * run (so it stays green) until berth is fixed; `BERTH_DIFF_FEATURES=all` brings them back.
 * Each entry says what differs and a seed that shows it. Empty: seeds 1–80 of the default
 * features agreed pod by pod. (hostPorts is off by default for another reason: see
 * `offByDefault` in scenario-features.ts.)
 */
const knownDivergent: readonly { feature: string; why: string }[] = [];

/** Seeds of the default run: small enough for CI (about a minute on 2 cores). */
const defaultSeeds = [1, 2, 3, 4, 5, 6, 7, 8];

function seedsFromEnv(): number[] {
  const whole = (text: string, from: string) => {
    const n = Number(text.trim());
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${from}: not a seed: "${text}"`);
    return n;
  };
  const list = process.env.BERTH_DIFF_SEED;
  if (list !== undefined && list !== '')
    return list.split(',').map((s) => whole(s, 'BERTH_DIFF_SEED'));
  const count = process.env.BERTH_DIFF_SEEDS;
  if (count !== undefined && count !== '')
    return Array.from({ length: whole(count, 'BERTH_DIFF_SEEDS') }, (_, i) => i + 1);
  return defaultSeeds;
}

function featuresFromEnv(): string[] {
  const base = defaultFeatureNames.filter((f) => !knownDivergent.some((k) => k.feature === f));
  const spec = process.env.BERTH_DIFF_FEATURES;
  if (spec === undefined || spec === '') return base;
  if (spec === 'all') return allFeatures.map((f) => f.name);
  const items = spec.split(',').map((s) => s.trim());
  if (!items.every((s) => s.startsWith('+') || s.startsWith('-'))) return items;
  const chosen = new Set(base);
  for (const s of items) {
    if (s.startsWith('+')) chosen.add(s.slice(1));
    else chosen.delete(s.slice(1));
  }
  return [...chosen];
}

const seeds = seedsFromEnv();
const features = featuresFromEnv();

describe('berth and kube-scheduler agree on generated clusters', () => {
  const cluster = useCluster('differential');
  let api: Api;
  let berthConfig: string;

  beforeAll(() => {
    api = new Api(cluster().kubeconfig);
    berthConfig = join(cluster().dir, 'berth-diff.json');
    writeFileSync(
      berthConfig,
      JSON.stringify({ schedulerName: scenarioSchedulerName, percentageOfNodesToScore: 100 }),
    );
    process.stderr.write(`[diff] features: ${features.join(', ')}; seeds: ${seeds.join(', ')}\n`);
    for (const k of knownDivergent)
      process.stderr.write(`[diff] known divergent, left out: ${k.feature}: ${k.why}\n`);
  });

  /** What the run compared, over all seeds (printed at the end, to show what was covered). */
  const totals = { pods: 0, bound: 0, pending: 0, forced: 0, reasons: new Map<string, number>() };

  function tally(scenario: Scenario, kube: Outcomes, berth: Outcomes): void {
    for (const p of scenario.pending) {
      const n = p.metadata.name;
      totals.pods++;
      if (kube[n]?.node !== undefined && berth[n]?.node !== undefined) totals.bound++;
      if (kube[n]?.node === undefined && berth[n]?.node === undefined) totals.pending++;
      if (scenario.expectations[n]?.node !== undefined) totals.forced++;
      const sentence = filtersSentence(kube[n]?.message ?? '').replace(
        /^0\/\d+ nodes are available: /,
        '',
      );
      for (const part of sentence === '' ? [] : sentence.replace(/\.$/, '').split(', ')) {
        const reason = part.replace(/^\d+ /, '');
        totals.reasons.set(reason, (totals.reasons.get(reason) ?? 0) + 1);
      }
    }
  }

  afterAll(() => {
    api?.close();
    const reasons = [...totals.reasons].sort().map(([r, n]) => `${r} ×${n}`);
    process.stderr.write(
      `[diff] compared ${totals.pods} pods: ${totals.bound} bound in both, ${totals.pending} ` +
        `pending in both (messages compared), ${totals.forced} with one possible node ` +
        `(nodes compared)\n[diff] reasons in kube-scheduler's messages: ${reasons.join('; ')}\n`,
    );
  });

  /** Loads `scenario` into the reset control plane, lets kube-scheduler place it, returns what it did. */
  async function withKubeScheduler(scenario: Scenario): Promise<Outcomes> {
    await resetCluster(api);
    await loadScenario(api, scenario);
    const scheduler = startKubeScheduler(cluster(), {
      percentageOfNodesToScore: 100,
      name: `kube-scheduler-seed-${scenario.seed}`,
    });
    try {
      return await settledOutcomes(api, scenario, () => {});
    } finally {
      await scheduler.stop();
    }
  }

  /** The same for berth. */
  async function withBerth(scenario: Scenario): Promise<Outcomes> {
    await resetCluster(api);
    await loadScenario(api, scenario);
    const berth = await startBerth(cluster().kubeconfig, {
      dir: cluster().dir,
      name: `berth-seed-${scenario.seed}`,
      args: ['--config', berthConfig],
    });
    try {
      return await settledOutcomes(api, scenario, () => berth.checkAlive());
    } finally {
      await berth.stop('SIGKILL');
    }
  }

  it.each(seeds)(
    'seed %i: same pods schedulable, same reasons, same forced nodes',
    async (seed) => {
      const started = Date.now();
      const scenario = generateScenario(seed, { features });
      const kube = await withKubeScheduler(scenario);
      expect(await overcommitted(api), 'kube-scheduler overcommitted a node').toEqual([]);
      const berth = await withBerth(scenario);
      expect(await overcommitted(api), 'berth overcommitted a node').toEqual([]);

      const mismatches = compareOutcomes(scenario, kube, berth);
      tally(scenario, kube, berth);
      const names = scenario.pending.map((p) => p.metadata.name);
      const bound = names.filter((n) => kube[n]?.node !== undefined).length;
      const forced = names.filter((n) => scenario.expectations[n]?.node !== undefined).length;
      process.stderr.write(
        `[diff] seed ${seed}: ${scenario.nodes.length} nodes, ${scenario.residents.length} residents, ` +
          `${names.length} pending (${bound} bound by kube-scheduler, ${names.length - bound} not, ` +
          `${forced} with one possible node): ${mismatches.length} mismatch(es), ` +
          `${((Date.now() - started) / 1000).toFixed(1)} s\n[diff]   nodes: ${describeNodes(scenario)}\n`,
      );
      if (mismatches.length > 0)
        process.stderr.write(`[diff] ${formatMismatches(scenario, mismatches, kube, berth)}\n`);
      expect(mismatches, formatMismatches(scenario, mismatches, kube, berth)).toEqual([]);
    },
  );
});
