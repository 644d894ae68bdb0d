// Behaviours kube-scheduler changed in 1.35–1.37, each in a small cluster, scheduled by that release's kube-scheduler and by berth emulating it.
//
// For each release (1.37: the control plane's own kube-scheduler; 1.36, 1.35 and 1.34: that
// release's binary from the e2e cache, build.sh --compat; 1.34.10 is the build berth was
// checked against before) and each scenario of support/scenario-releases.ts: the cluster is reset and
// loaded (nodes, residents, pending pods), the scenario's writes are made through the API
// (a nomination by "another component", a resize, declared features), then kube-scheduler of
// that release places the pods; the same again with `berth run --emulated-version <release>`.
// Compared per pod: the node (where one can win), the PodScheduled=False reason and message,
// the first message written, and status.nominatedNodeName. kube-scheduler is also held to the
// scenario's expectations for its release: a 'model' mismatch means the scenario no longer
// pins the behaviour it names. At the end the log shows, per scenario, where the releases'
// answers differ (what makes each scenario discriminate).
//
// BERTH_RELEASE_ORACLES=1.37,1.35 runs those releases (default: 1.37, 1.36, 1.35; a release
// whose kube-scheduler is not built is skipped; 1.34 only on request). BERTH_RELEASE_SCENARIOS=name,… runs some.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  describeNodes,
  loadScenario,
  overcommitted,
  resetCluster,
} from './support/differential.ts';
import { scenarioSchedulerName } from './support/scenario-basics.ts';
import {
  type OracleRelease,
  type ReleaseScenario,
  releaseScenarios,
} from './support/scenario-releases.ts';
import {
  asScenario,
  cachedOracleDir,
  compareRelease,
  describeOutcome,
  prepare,
  type ReleaseOutcomes,
  releaseOutcomes,
  startOracle,
  watchFirstMessages,
} from './support/scenario-releases-run.ts';

const allReleases: readonly OracleRelease[] = ['1.37', '1.36', '1.35', '1.34'];
/**
 * The supported releases run by default (each skipped when its kube-scheduler is not built).
 * The 1.34 leg (kube-scheduler 1.34.10) is run only on request: 1.34 is out of support, and
 * berth emulates it only so that old logs replay as they were recorded.
 */
const defaultReleases: readonly OracleRelease[] = ['1.37', '1.36', '1.35'];

function releasesFromEnv(): OracleRelease[] {
  const spec = process.env.BERTH_RELEASE_ORACLES;
  if (spec === undefined || spec === '') return [...defaultReleases];
  return spec.split(',').map((s) => {
    const r = s.trim();
    if (!allReleases.includes(r as OracleRelease))
      throw new Error(
        `BERTH_RELEASE_ORACLES: no oracle for "${r}" (have ${allReleases.join(', ')})`,
      );
    return r as OracleRelease;
  });
}

function scenariosFromEnv(): ReleaseScenario[] {
  const spec = process.env.BERTH_RELEASE_SCENARIOS;
  if (spec === undefined || spec === '') return [...releaseScenarios];
  const names = spec.split(',').map((s) => s.trim());
  for (const n of names)
    if (!releaseScenarios.some((s) => s.name === n))
      throw new Error(`BERTH_RELEASE_SCENARIOS: no scenario "${n}"`);
  return releaseScenarios.filter((s) => names.includes(s.name));
}

const releases = releasesFromEnv();
const scenarios = scenariosFromEnv();

describe('berth --emulated-version matches that release of kube-scheduler on what changed', () => {
  const cluster = useCluster('releases');
  let api: Api;
  let berthConfig: string;
  /** kube-scheduler's outcomes by release, then scenario (for the discrimination table). */
  const kubeAnswers = new Map<OracleRelease, Map<string, ReleaseOutcomes>>();

  beforeAll(() => {
    api = new Api(cluster().kubeconfig);
    berthConfig = join(cluster().dir, 'berth-releases.json');
    writeFileSync(
      berthConfig,
      JSON.stringify({ schedulerName: scenarioSchedulerName, percentageOfNodesToScore: 100 }),
    );
  });

  afterAll(() => {
    api?.close();
    // Where kube-scheduler's releases answered differently: what makes each scenario discriminate.
    const ran = releases.filter((r) => kubeAnswers.has(r));
    if (ran.length < 2) return;
    for (const s of scenarios) {
      const answers = ran.map((r) => [r, kubeAnswers.get(r)?.get(s.name)] as const);
      const pods = s.pending.map((p) => p.metadata.name);
      const differs = pods.filter(
        (p) => new Set(answers.map(([, a]) => describeOutcome(a?.[p]))).size > 1,
      );
      process.stderr.write(
        `[releases] ${s.name}: kube-scheduler ${ran.join(', ')} differ on ${differs.length === 0 ? 'nothing' : differs.join(', ')}\n`,
      );
      for (const p of differs)
        for (const [r, a] of answers)
          process.stderr.write(`[releases]   ${p} under ${r}: ${describeOutcome(a?.[p])}\n`);
    }
  });

  /** Resets and loads the scenario, makes its writes, runs `start`'s scheduler until the pods settle. */
  async function run(
    rs: ReleaseScenario,
    release: OracleRelease,
    seed: number,
    start: () => Promise<{ stop(): Promise<unknown>; checkAlive(): void }>,
  ): Promise<ReleaseOutcomes> {
    const scenario = asScenario(rs, release, seed);
    await resetCluster(api);
    await loadScenario(api, scenario);
    await prepare(api, rs.prepare);
    const watch = await watchFirstMessages(api);
    const scheduler = await start();
    try {
      const first = watch.first;
      return await releaseOutcomes(api, scenario, rs.expect(release), first, () =>
        scheduler.checkAlive(),
      );
    } finally {
      watch.stop();
      await scheduler.stop();
    }
  }

  for (const release of releases) {
    const cached = release === '1.37' ? 'the control plane' : cachedOracleDir(release);
    if (cached === undefined)
      process.stderr.write(`[releases] no kube-scheduler ${release} built: its leg is skipped\n`);
    describe.skipIf(cached === undefined)(`kube-scheduler ${release}`, () => {
      it.each(scenarios.map((s, i): [string, ReleaseScenario, number] => [s.name, s, i + 1]))(
        `%s: same node, same message as berth --emulated-version ${release}`,
        async (_name, rs, seed) => {
          const started = Date.now();
          let version = '';
          const kube = await run(rs, release, seed, async () => {
            const oracle = startOracle(cluster(), release, {
              percentageOfNodesToScore: 100,
              name: `kube-scheduler-${release}-${seed}`,
            });
            version = oracle.version;
            return { stop: () => oracle.scheduler.stop(), checkAlive: () => {} };
          });
          // The overcommit check counts spec requests; a resize's charge is what is under test.
          const resizes = rs.prepare.some((p) => p.kind === 'resize');
          const over = async () => (resizes ? [] : await overcommitted(api));
          expect(await over(), 'kube-scheduler overcommitted a node').toEqual([]);
          const answers = kubeAnswers.get(release) ?? new Map<string, ReleaseOutcomes>();
          answers.set(rs.name, kube);
          kubeAnswers.set(release, answers);
          const berth = await run(rs, release, seed, async () => {
            const b = await startBerth(cluster(), {
              name: `berth-${release}-${seed}`,
              args: ['--config', berthConfig, '--emulated-version', release],
            });
            return { stop: () => b.stop('SIGKILL'), checkAlive: () => b.checkAlive() };
          });
          expect(await over(), 'berth overcommitted a node').toEqual([]);
          const scenario = asScenario(rs, release, seed);
          const mismatches = compareRelease(scenario, rs.expect(release), kube, berth);
          const lines = [
            `[releases] ${rs.name} (${rs.change}) with kube-scheduler ${version}: ${mismatches.length} mismatch(es), ${((Date.now() - started) / 1000).toFixed(1)} s`,
            `[releases]   nodes: ${describeNodes(scenario)}`,
            ...Object.keys(kube).map(
              (p) =>
                `[releases]   ${p}: kube-scheduler ${describeOutcome(kube[p])} | berth ${describeOutcome(berth[p])}`,
            ),
            ...mismatches.map((m) => `[releases]   ✗ ${m.pod} [${m.kind}] ${m.detail}`),
          ];
          process.stderr.write(`${lines.join('\n')}\n`);
          expect(mismatches, lines.join('\n')).toEqual([]);
        },
      );
    });
  }
});
