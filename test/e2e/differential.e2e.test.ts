// Differential test: generated clusters scheduled by the real kube-scheduler and by berth must agree pod by pod.
//
// Each seed's scenario (test/e2e/support/scenarios.ts) is loaded into the same control plane
// twice, reset in between (no pods, no nodes, no workloads), in the same order: nodes,
// Services and controllers, residents bound by nodeName, then the pending pods. The pending
// pods are byte-identical in both runs (berth is configured with schedulerName
// default-scheduler), and both schedulers score every node (percentageOfNodesToScore 100).
// Two kinds of scenario keep a correct scheduler's outcomes free of queue order and random
// tie-breaks:
// - independent (the features that read only the pod and its node): all pending pods are
//   created before the scheduler starts, and the generator keeps every pod's fate
//   independent of where the others go;
// - sequential (spread, defaultSpread, podAffinity: a pod's fate depends on where earlier
//   pods went): pending pods are created one at a time once the previous one settled, an
//   unschedulable one is deleted, and berth's run is kept on kube-scheduler's history
//   (differential-sequential.ts); each pod's expectation is worked out along that history
//   with kube's filters and whole default score (scenario-sequential.ts).
// Compared per pod: schedulable in both or neither, the same PodScheduled=False reason and
// filter sentence, and the same node wherever only one node can fit or win (differential.ts).
//
// BERTH_DIFF_SEEDS=50 runs seeds 1–50; BERTH_DIFF_SEED=7,12 runs those seeds. Without
// BERTH_DIFF_FEATURES, odd seeds draw independent scenarios from the default features and
// even seeds add the sequential ones; BERTH_DIFF_FEATURES=a,b,… gives every seed those
// features (`+hostPorts` adds one to the default set, `-cordon` removes one, `all` takes
// every feature including known-divergent ones).
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
import { placeOneByOne } from './support/differential-sequential.ts';
import { startKubeScheduler } from './support/kube-scheduler.ts';
import { sequentialExpectations } from './support/scenario-sequential.ts';
import {
  allFeatures,
  defaultFeatureNames,
  generateScenario,
  type Scenario,
  scenarioSchedulerName,
  sequentialFeatureNames,
} from './support/scenarios.ts';

/**
 * Features on which berth is known to disagree with kube-scheduler: left out of the default
 * run (so it stays green) until berth is fixed; `BERTH_DIFF_FEATURES=all` brings them back.
 * Each entry says what differs and a seed that shows it. Empty: seeds 1–80 of the default
 * independent features agreed pod by pod, and so did seeds 1–100 of every feature placed
 * one at a time, and seeds 1–40 of spread, defaultSpread and podAffinity alone. (hostPorts
 * is off by default for another reason: see `offByDefault` in scenario-features.ts.)
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

/** The features of each seed's scenario. */
function featuresFromEnv(): (seed: number) => string[] {
  const base = defaultFeatureNames.filter((f) => !knownDivergent.some((k) => k.feature === f));
  const spec = process.env.BERTH_DIFF_FEATURES;
  if (spec === undefined || spec === '') {
    // Half the seeds each way keeps the default run near its old cost (the sequential
    // scenarios take about as long as the independent ones).
    const independent = base.filter((f) => !sequentialFeatureNames.includes(f));
    return (seed) => (seed % 2 === 1 ? independent : base);
  }
  if (spec === 'all') return () => allFeatures.map((f) => f.name);
  const items = spec.split(',').map((s) => s.trim());
  if (!items.every((s) => s.startsWith('+') || s.startsWith('-'))) return () => items;
  const chosen = new Set(base);
  for (const s of items) {
    if (s.startsWith('+')) chosen.add(s.slice(1));
    else chosen.delete(s.slice(1));
  }
  return () => [...chosen];
}

const seeds = seedsFromEnv();
const featuresOf = featuresFromEnv();

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
    const sets = new Map<string, number[]>();
    for (const seed of seeds) {
      const key = featuresOf(seed).join(', ');
      sets.set(key, [...(sets.get(key) ?? []), seed]);
    }
    for (const [f, s] of sets)
      process.stderr.write(`[diff] seeds ${s.join(', ')}: features ${f}\n`);
    for (const k of knownDivergent)
      process.stderr.write(`[diff] known divergent, left out: ${k.feature}: ${k.why}\n`);
  });

  /** What the run compared, over all seeds (printed at the end, to show what was covered). */
  const totals = {
    pods: 0,
    bound: 0,
    pending: 0,
    forced: 0,
    sequential: 0,
    corrections: 0,
    reasons: new Map<string, number>(),
  };

  function tally(scenario: Scenario, kube: Outcomes, berth: Outcomes): void {
    for (const p of scenario.pending) {
      const n = p.metadata.name;
      totals.pods++;
      if (scenario.sequential) totals.sequential++;
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
        `pending in both (messages compared), ${totals.forced} with one node to pick ` +
        `(nodes compared); ${totals.sequential} of them placed one at a time, berth's run ` +
        `moved onto kube-scheduler's history ${totals.corrections} time(s)\n` +
        `[diff] reasons in kube-scheduler's messages: ${reasons.join('; ')}\n`,
    );
  });

  /** Loads `scenario` into the reset control plane, lets kube-scheduler place it, returns what it did. */
  async function withKubeScheduler(scenario: Scenario): Promise<Outcomes> {
    await resetCluster(api);
    const uids = await loadScenario(api, scenario);
    const scheduler = startKubeScheduler(cluster(), {
      percentageOfNodesToScore: 100,
      name: `kube-scheduler-seed-${scenario.seed}`,
    });
    try {
      if (scenario.sequential) return (await placeOneByOne(api, scenario, uids, () => {})).outcomes;
      return await settledOutcomes(api, scenario, () => {});
    } finally {
      await scheduler.stop();
    }
  }

  /** The same for berth; a sequential scenario follows kube-scheduler's history (`kube`). */
  async function withBerth(
    scenario: Scenario,
    kube: Outcomes,
  ): Promise<{ outcomes: Outcomes; corrections: string[] }> {
    await resetCluster(api);
    const uids = await loadScenario(api, scenario);
    const berth = await startBerth(cluster(), {
      name: `berth-seed-${scenario.seed}`,
      args: ['--config', berthConfig],
    });
    try {
      if (scenario.sequential)
        return await placeOneByOne(api, scenario, uids, () => berth.checkAlive(), kube);
      return {
        outcomes: await settledOutcomes(api, scenario, () => berth.checkAlive()),
        corrections: [],
      };
    } finally {
      await berth.stop('SIGKILL');
    }
  }

  it.each(seeds)(
    'seed %i: same pods schedulable, same reasons, same forced nodes',
    async (seed) => {
      const started = Date.now();
      const generated = generateScenario(seed, { features: featuresOf(seed) });
      const kube = await withKubeScheduler(generated);
      expect(await overcommitted(api), 'kube-scheduler overcommitted a node').toEqual([]);
      const { outcomes: berth, corrections } = await withBerth(generated, kube);
      expect(await overcommitted(api), 'berth overcommitted a node').toEqual([]);
      totals.corrections += corrections.length;
      const scenario = generated.sequential
        ? { ...generated, expectations: sequentialExpectations(generated, kube) }
        : generated;

      const mismatches = compareOutcomes(scenario, kube, berth);
      tally(scenario, kube, berth);
      const names = scenario.pending.map((p) => p.metadata.name);
      const bound = names.filter((n) => kube[n]?.node !== undefined).length;
      const forced = names.filter((n) => scenario.expectations[n]?.node !== undefined).length;
      process.stderr.write(
        `[diff] seed ${seed}: ${scenario.nodes.length} nodes, ${scenario.residents.length} residents, ` +
          `${names.length} pending (${bound} bound by kube-scheduler, ${names.length - bound} not, ` +
          `${forced} with one node to pick${scenario.sequential ? `, placed one at a time, ${corrections.length} correction(s)` : ''}): ${mismatches.length} mismatch(es), ` +
          `${((Date.now() - started) / 1000).toFixed(1)} s\n[diff]   nodes: ${describeNodes(scenario)}\n`,
      );
      if (corrections.length > 0)
        process.stderr.write(
          `[diff]   berth moved onto kube-scheduler's history: ${corrections.join('; ')}\n`,
        );
      if (mismatches.length > 0)
        process.stderr.write(`[diff] ${formatMismatches(scenario, mismatches, kube, berth)}\n`);
      expect(mismatches, formatMismatches(scenario, mismatches, kube, berth)).toEqual([]);
    },
  );
});
