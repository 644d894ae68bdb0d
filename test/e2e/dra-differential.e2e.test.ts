// DRA differential: generated ResourceSlices, classes, taint rules and claims scheduled by kube-scheduler 1.37.2 and by berth must agree pod by pod.
//
// Each seed's scenario (support/scenario-dra.ts) is loaded into the same control plane twice,
// reset in between (pods, claims, templates, slices, classes, taint rules, nodes), with
// kube-controller-manager's resourceclaim controller making the template claims. No driver
// runs: the test writes the ResourceSlices. The pods are byte-identical in both runs (berth
// is configured with schedulerName default-scheduler and percentageOfNodesToScore 100) and
// are created one at a time, each once the one before it settled; an unschedulable one is
// deleted. Every pod can land on one node only (its nodeSelector, or a rack attribute that
// its claims select), and kube's allocator picks devices in pool, slice and device order,
// so nothing is left to a random tie-break: compared exactly per pod are bound or not, the
// node, each claim's allocated devices (request, driver, pool, device) and, when pending,
// the PodScheduled reason and whole message.
//
// BERTH_DRA_SEEDS=50 runs seeds 1–50; BERTH_DRA_SEED=7,12 runs those. Default: seeds 1–30.
// BERTH_DRA_TEMPLATES=0 turns every template claim into a direct one;
// BERTH_DRA_ALL_CONSTRAINTS=0 leaves out matchAttribute constraints over All requests (when
// one cannot hold, both schedulers answer SchedulerError `running "DynamicResources" filter
// plugin: …`; berth's wording differed until the core reported a cycle's Error as kube does).
// Extended resources backed by DRA: `ext-` pods ask for `example.com/gpu` (the GPU class's
// extendedResourceName) or `deviceclass.resource.kubernetes.io/<class>`, on nodes that list
// `example.com/gpu` in their allocatable (NodeResourcesFit's path) or not (the special claim:
// its devices and its request mappings are compared too).
// Not covered: consumable capacity, admin access, network-attached (allNodes / nodeSelector)
// pools, binding conditions, pods mixing claims and extended resources.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  compareDraOutcomes,
  type DraOutcomes,
  loadDraScenario,
  placeDraPods,
  resetDraCluster,
} from './support/differential-dra.ts';
import { startKubeScheduler } from './support/kube-scheduler.ts';
import {
  type DraOptions,
  type DraScenario,
  draNamespace,
  generateDraScenario,
} from './support/scenario-dra.ts';
import { addExtendedPods } from './support/scenario-dra-extended.ts';

function seedsFromEnv(): number[] {
  const whole = (text: string) => {
    const n = Number(text.trim());
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a seed: "${text}"`);
    return n;
  };
  const list = process.env.BERTH_DRA_SEED;
  if (list !== undefined && list !== '') return list.split(',').map(whole);
  const count = whole(process.env.BERTH_DRA_SEEDS ?? '30');
  return Array.from({ length: count }, (_, i) => i + 1);
}

const seeds = seedsFromEnv();
/** BERTH_DRA_TEMPLATES=0: every new claim a direct one; BERTH_DRA_ALL_CONSTRAINTS=0: none over All. */
const options: DraOptions = {
  templates: process.env.BERTH_DRA_TEMPLATES !== '0',
  allWithConstraint: process.env.BERTH_DRA_ALL_CONSTRAINTS !== '0',
};

describe('berth and kube-scheduler 1.37.2 agree on DRA claims', () => {
  const cluster = useCluster('dra-differential', {
    controllers: ['resourceclaim-controller', 'garbage-collector-controller'],
  });
  let api: Api;
  let berthConfig: string;
  const started = Date.now();
  const totals = {
    seeds: 0,
    pods: 0,
    bound: 0,
    pending: 0,
    mismatches: 0,
    covers: new Map<string, number>(),
    messages: new Map<string, number>(),
  };

  beforeAll(() => {
    api = new Api(cluster().kubeconfig);
    berthConfig = join(cluster().dir, 'berth-dra-diff.json');
    writeFileSync(
      berthConfig,
      JSON.stringify({ schedulerName: 'default-scheduler', percentageOfNodesToScore: 100 }),
    );
  });

  afterAll(() => {
    api?.close();
    const list = (m: Map<string, number>) => [...m].sort().map(([k, n]) => `${k} ×${n}`);
    process.stderr.write(
      `[dra-diff] ${totals.seeds} of ${seeds.length} seeds compared (the others failed before ` +
        `a comparison), ${totals.pods} pods: ${totals.bound} bound in both, ` +
        `${totals.pending} pending in both; ${totals.mismatches} mismatch(es); ` +
        `${((Date.now() - started) / 1000).toFixed(0)} s\n` +
        `[dra-diff] scenarios covered: ${list(totals.covers).join('; ')}\n` +
        `[dra-diff] kube-scheduler's messages: ${list(totals.messages).join('; ')}\n`,
    );
  });

  async function run(s: DraScenario, which: 'kube' | 'berth'): Promise<DraOutcomes> {
    await resetDraCluster(api, s.namespace);
    await loadDraScenario(api, s);
    let stop: () => Promise<unknown>;
    let checkAlive = () => {};
    if (which === 'kube') {
      const kube = startKubeScheduler(cluster(), {
        percentageOfNodesToScore: 100,
        name: `kube-scheduler-dra-${s.seed}`,
      });
      stop = () => kube.stop();
    } else {
      const berth = await startBerth(cluster(), {
        name: `berth-dra-${s.seed}`,
        args: ['--config', berthConfig],
      });
      stop = () => berth.stop('SIGKILL');
      checkAlive = () => berth.checkAlive();
    }
    try {
      return await placeDraPods(api, s, checkAlive);
    } finally {
      await stop();
    }
  }

  it.each(seeds)(
    'seed %i: same nodes, same devices, same messages',
    async (seed) => {
      const t0 = Date.now();
      const s = generateDraScenario(seed, options);
      addExtendedPods(s);
      const kube = await run(s, 'kube');
      const berth = await run(s, 'berth');
      const mismatches = compareDraOutcomes(s, kube, berth);
      for (const c of s.covers) totals.covers.set(c, (totals.covers.get(c) ?? 0) + 1);
      for (const p of s.pending) {
        const k = kube[p.metadata.name];
        const b = berth[p.metadata.name];
        totals.pods++;
        if (k?.node !== undefined && b?.node !== undefined) totals.bound++;
        if (k?.node === undefined && b?.node === undefined) totals.pending++;
        const m = k?.message?.replace(/^0\/\d+ nodes are available: /, '').replace(/\..*$/s, '');
        if (m !== undefined) totals.messages.set(m, (totals.messages.get(m) ?? 0) + 1);
      }
      totals.mismatches += mismatches.length;
      totals.seeds++;
      const bound = s.pending.filter((p) => kube[p.metadata.name]?.node !== undefined).length;
      const report = mismatches.map((m) => `- ${draNamespace}/${m.pod}: ${m.detail}`).join('\n');
      process.stderr.write(
        `[dra-diff] seed ${seed}: ${s.nodes.length} nodes, ${s.slices.length} slices, ` +
          `${s.pending.length} pods (${bound} bound by kube-scheduler): ` +
          `${mismatches.length} mismatch(es), ${((Date.now() - t0) / 1000).toFixed(1)} s\n` +
          (mismatches.length > 0
            ? `${report}\n  reproduce: BERTH_DRA_SEED=${seed} npx vitest run --config vitest.e2e.config.ts test/e2e/dra-differential.e2e.test.ts\n`
            : ''),
      );
      expect(mismatches, report).toEqual([]);
    },
    180_000,
  );
});
