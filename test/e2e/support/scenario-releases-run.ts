// Running the release scenarios: which kube-scheduler binary is each release's oracle, the API writes before scheduling, and what a scheduler did.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Api } from './api.ts';
import type { Cluster } from './control-plane.ts';
import {
  compareOutcomes,
  filtersSentence,
  type MismatchKind,
  type Outcome,
  settledOutcomes,
} from './differential.ts';
import { milli } from './invariants.ts';
import {
  type KubeScheduler,
  type KubeSchedulerOptions,
  startKubeScheduler,
} from './kube-scheduler.ts';
import type { PodJson } from './kubectl.ts';
import { scenarioNamespace } from './scenario-basics.ts';
import type {
  OracleRelease,
  PrepareStep,
  ReleaseExpectation,
  ReleaseScenario,
} from './scenario-releases-model.ts';
import type { Scenario } from './scenarios.ts';
import { delay, GiveUp, waitFor } from './wait.ts';

/** The version a kube-scheduler binary reports (`v1.37.2`), or undefined when it cannot say. */
export function kubeSchedulerVersion(binDir: string): string | undefined {
  try {
    const out = execFileSync(join(binDir, 'kube-scheduler'), ['--version'], { encoding: 'utf8' });
    return /Kubernetes (v\d+\.\d+\.\d+)/.exec(out)?.[1];
  } catch {
    return undefined;
  }
}

/** Whether `version` (`v1.35.4`) is a patch of `release` (`1.35`). */
export function isRelease(version: string | undefined, release: OracleRelease): boolean {
  return version?.startsWith(`v${release}.`) === true;
}

/**
 * The directory of the kube-scheduler binary that is `release`'s oracle, outside the control
 * plane's own: BERTH_E2E_KUBE_SCHEDULER_1_35 (etc.) if set, else the newest patch of that
 * release under the e2e cache (build.sh's `k8s-v1.35.*` keys). Undefined when none is built.
 */
export function cachedOracleDir(release: OracleRelease): string | undefined {
  const fromEnv = process.env[`BERTH_E2E_KUBE_SCHEDULER_${release.replace('.', '_')}`];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const cache = process.env.BERTH_E2E_CACHE ?? join(homedir(), '.cache/berth-e2e');
  if (!existsSync(cache)) return undefined;
  const patch = (key: string) => Number(/^k8s-v\d+\.\d+\.(\d+)/.exec(key)?.[1] ?? -1);
  const keys = readdirSync(cache)
    .filter((k) => k.startsWith(`k8s-v${release}.`))
    .filter((k) => existsSync(join(cache, k, 'bin/kube-scheduler')))
    .sort((a, b) => patch(b) - patch(a));
  return keys[0] === undefined ? undefined : join(cache, keys[0], 'bin');
}

/**
 * Starts `release`'s kube-scheduler against `cluster`: the control plane's own binary when it
 * is that release, else `cachedOracleDir(release)`. Throws, naming what it found, when neither is.
 */
export function startOracle(
  cluster: Cluster,
  release: OracleRelease,
  opts: KubeSchedulerOptions,
): { scheduler: KubeScheduler; version: string } {
  const own = kubeSchedulerVersion(cluster.binDir);
  if (isRelease(own, release))
    return { scheduler: startKubeScheduler(cluster, opts), version: own as string };
  const dir = cachedOracleDir(release);
  const version = dir === undefined ? undefined : kubeSchedulerVersion(dir);
  if (dir === undefined || !isRelease(version, release))
    throw new Error(
      `no kube-scheduler ${release} to compare with: the control plane's is ${own ?? 'unknown'}, ` +
        `the cache has ${dir ?? 'none'} (${version ?? 'no version'}); build it (test/e2e/cluster/build.sh)`,
    );
  return {
    scheduler: startKubeScheduler(withKubeBinaries(cluster, dir), opts),
    version: version as string,
  };
}

/**
 * The same cluster (its kubeconfig and dir) with its kube binaries (kube-scheduler) taken from
 * `dir`. It must replace `kubeBinDir`, the directory kube-scheduler is started from: replacing
 * `binDir` alone left every older leg running the control plane's own kube-scheduler.
 */
export function withKubeBinaries(cluster: Cluster, dir: string): Cluster {
  return Object.create(cluster, { kubeBinDir: { value: dir } }) as Cluster;
}

/** `rs` as the differential harness's Scenario, with `release`'s expectations. */
export function asScenario(rs: ReleaseScenario, release: OracleRelease, seed: number): Scenario {
  const expectations: Scenario['expectations'] = {};
  for (const [pod, want] of Object.entries(rs.expect(release)))
    expectations[pod] = {
      feasible: want.feasible,
      rejectedBy: {},
      ...(want.node === undefined ? {} : { node: want.node }),
    };
  return {
    seed,
    features: [rs.name],
    namespace: scenarioNamespace,
    nodes: rs.nodes,
    workloads: [],
    residents: rs.residents,
    pending: rs.pending,
    sequential: false,
    expectations,
  };
}

/** The fields of a pod the scenario writes and reads back. */
interface PodStatusJson {
  metadata: { name: string };
  spec: { nodeName?: string; containers: { name: string; resources?: Record<string, unknown> }[] };
  status?: {
    nominatedNodeName?: string;
    containerStatuses?: { name: string; resources?: { requests?: Record<string, string> } }[];
    conditions?: Record<string, unknown>[];
  };
}

const podPath = (name: string) => `/api/v1/namespaces/${scenarioNamespace}/pods/${name}`;

/** PUTs `name`'s status with each container's running requests and, when given, the resize's condition. */
async function reportRunning(
  api: Api,
  name: string,
  actuated: Record<string, Record<string, string>>,
  condition?: { type: string; reason?: string },
): Promise<void> {
  const pod = await api.ok<PodStatusJson>('GET', podPath(name));
  const status = pod.status ?? {};
  for (const cs of status.containerStatuses ?? []) {
    const requests = actuated[cs.name];
    if (requests !== undefined) cs.resources = { requests };
  }
  if (condition !== undefined) {
    const { type, reason } = condition;
    const since = new Date().toISOString();
    status.conditions = [
      ...(status.conditions ?? []).filter((c) => c.type !== type),
      {
        type,
        status: 'True',
        ...(reason === undefined ? {} : { reason }),
        lastTransitionTime: since,
      },
    ];
  }
  await api.ok('PUT', `${podPath(name)}/status`, { ...pod, status });
}

/**
 * Resizes a running resident as a kubelet would see it: the kubelet first reports what runs
 * (the API server accepts a resize only of a pod whose running containers report resources),
 * then the new requests go through `pods/resize`, then the kubelet reports the resize's
 * condition while the old requests still run.
 */
async function resize(api: Api, step: Extract<PrepareStep, { kind: 'resize' }>): Promise<void> {
  await reportRunning(api, step.pod, step.actuated);
  const pod = await api.ok<PodStatusJson>('GET', podPath(step.pod));
  for (const c of pod.spec.containers) {
    const requests = step.requests[c.name];
    if (requests !== undefined) c.resources = { ...c.resources, requests };
  }
  await api.ok('PUT', `${podPath(step.pod)}/resize`, pod);
  await reportRunning(api, step.pod, step.actuated, step.condition);
}

/** Whether a prepared write is still there (kwok or the API server may have undone it). */
async function stillPrepared(api: Api, step: PrepareStep): Promise<boolean> {
  if (step.kind === 'declareFeatures' || step.kind === 'nodeImages') {
    const node = await api.ok<{ status?: { declaredFeatures?: string[]; images?: unknown[] } }>(
      'GET',
      `/api/v1/nodes/${step.node}`,
    );
    const [held, wanted] =
      step.kind === 'declareFeatures'
        ? [node.status?.declaredFeatures, step.features]
        : [node.status?.images, step.images];
    return JSON.stringify(held ?? []) === JSON.stringify(wanted);
  }
  const pod = await api.ok<PodStatusJson>('GET', podPath(step.pod));
  if (step.kind === 'nominate') return pod.status?.nominatedNodeName === step.node;
  return (pod.status?.containerStatuses ?? []).every((cs) =>
    sameAmounts(cs.resources?.requests, step.actuated[cs.name]),
  );
}

/** Whether `held` has `wanted`'s amounts (the API server rewrites 1000m as 1); no `wanted` holds. */
function sameAmounts(held: Record<string, string> | undefined, wanted?: Record<string, string>) {
  if (wanted === undefined) return true;
  const keys = new Set([...Object.keys(held ?? {}), ...Object.keys(wanted)]);
  return [...keys].every((k) => milli(held?.[k] ?? '0') === milli(wanted[k] ?? '0'));
}

/** Makes the scenario's writes through the API (status and resize subresources), then checks they held. */
export async function prepare(api: Api, steps: readonly PrepareStep[]): Promise<void> {
  for (const step of steps) {
    if (step.kind === 'nominate')
      await api.ok('PATCH', `${podPath(step.pod)}/status`, {
        status: { nominatedNodeName: step.node },
      });
    else if (step.kind === 'declareFeatures')
      await api.ok('PATCH', `/api/v1/nodes/${step.node}/status`, {
        status: { declaredFeatures: step.features },
      });
    else if (step.kind === 'nodeImages')
      await api.ok('PATCH', `/api/v1/nodes/${step.node}/status`, {
        status: { images: step.images },
      });
    else await resize(api, step);
  }
  // Give kwok (which reacts to pod and node updates) a moment to undo anything it would.
  if (steps.length > 0) await delay(1_000);
  await waitFor(
    'the prepared writes to hold',
    async () => {
      const lost: string[] = [];
      for (const step of steps)
        if (!(await stillPrepared(api, step))) lost.push(JSON.stringify(step));
      return { ok: lost.length === 0, seen: lost };
    },
    { timeoutMs: 10_000 },
  );
}

/** What one scheduler did with one pending pod, with the first message it wrote and its nomination. */
export type ReleaseOutcome = Outcome & {
  /** The first PodScheduled=False (Unschedulable) message seen after the scheduler started. */
  firstMessage?: string;
  /** status.nominatedNodeName once settled ('' for none). */
  nominated: string;
};

/** Outcomes by pending pod name. */
export type ReleaseOutcomes = Record<string, ReleaseOutcome>;

/**
 * Watches the scenario namespace's pods from now, keeping each pod's first Unschedulable
 * message (a preemptor's message lasts only until its victim is gone). `stop()` ends it.
 */
export async function watchFirstMessages(
  api: Api,
): Promise<{ first: Map<string, string>; stop(): void }> {
  const path = `/api/v1/namespaces/${scenarioNamespace}/pods`;
  const first = new Map<string, string>();
  const rv = await api.listResourceVersion(path);
  const watch = api.watch<PodJson>(path, rv, (e) => {
    if (e.type !== 'ADDED' && e.type !== 'MODIFIED') return;
    const c = e.object.status?.conditions?.find((x) => x.type === 'PodScheduled');
    const name = e.object.metadata.name;
    if (
      c?.status === 'False' &&
      c.reason === 'Unschedulable' &&
      c.message !== undefined &&
      !first.has(name)
    )
      first.set(name, c.message);
  });
  return { first, stop: () => watch.stop() };
}

/**
 * Waits (up to 30 s) for the pods `expected` says fit to be bound, since a preemptor binds
 * only once its victim is gone, then for every pending pod to settle; reads the nominations.
 */
export async function releaseOutcomes(
  api: Api,
  scenario: Scenario,
  expected: Record<string, ReleaseExpectation>,
  first: ReadonlyMap<string, string>,
  checkAlive: () => void,
): Promise<ReleaseOutcomes> {
  const fits = Object.entries(expected)
    .filter(([, w]) => w.feasible.length > 0)
    .map(([p]) => p);
  const list = async () =>
    (
      await api.ok<{ items: PodStatusJson[] }>(
        'GET',
        `/api/v1/namespaces/${scenarioNamespace}/pods`,
      )
    ).items;
  try {
    await waitFor(
      'the pods that fit to be bound',
      async () => {
        checkAlive();
        const unbound = (await list()).filter(
          (p) => fits.includes(p.metadata.name) && p.spec.nodeName === undefined,
        );
        return { ok: unbound.length === 0, seen: unbound.map((p) => p.metadata.name) };
      },
      { timeoutMs: 30_000 },
    );
  } catch (error) {
    if (error instanceof GiveUp) throw error;
    // A scheduler that leaves them pending is what the comparison reports.
  }
  const settled = await settledOutcomes(api, scenario, checkAlive);
  const pods = new Map((await list()).map((p) => [p.metadata.name, p]));
  const out: ReleaseOutcomes = {};
  for (const [name, o] of Object.entries(settled)) {
    const firstMessage = first.get(name);
    out[name] = {
      ...o,
      ...(firstMessage === undefined ? {} : { firstMessage }),
      nominated: pods.get(name)?.status?.nominatedNodeName ?? '',
    };
  }
  return out;
}

/** One disagreement about one pod: the differential harness's kinds, plus nominations. */
export interface ReleaseMismatch {
  pod: string;
  kind: MismatchKind | 'nomination';
  detail: string;
}

/**
 * compareOutcomes (same node where one can win, same reason and message), then: kube-scheduler
 * against the release's expectations for the filters' sentence, the first message and the
 * nomination ('model': the scenario's premise is wrong), and berth against kube-scheduler
 * for the first message and the nomination.
 */
export function compareRelease(
  scenario: Scenario,
  expected: Record<string, ReleaseExpectation>,
  kube: ReleaseOutcomes,
  berth: ReleaseOutcomes,
): ReleaseMismatch[] {
  const out: ReleaseMismatch[] = compareOutcomes(scenario, kube, berth);
  for (const [pod, want] of Object.entries(expected)) {
    const k = kube[pod];
    const b = berth[pod];
    if (k === undefined || b === undefined) continue;
    const add = (kind: ReleaseMismatch['kind'], detail: string) => out.push({ pod, kind, detail });
    if (want.filters !== undefined && filtersSentence(k.message ?? '') !== want.filters)
      add(
        'model',
        `kube-scheduler said ${JSON.stringify(k.message)}, expected ${JSON.stringify(want.filters)}`,
      );
    if (want.firstMessage !== undefined && k.firstMessage !== want.firstMessage)
      add(
        'model',
        `kube-scheduler first said ${JSON.stringify(k.firstMessage)}, expected ${JSON.stringify(want.firstMessage)}`,
      );
    if (want.nominated !== undefined && k.nominated !== want.nominated)
      add(
        'model',
        `kube-scheduler left nominatedNodeName ${JSON.stringify(k.nominated)}, expected ${JSON.stringify(want.nominated)}`,
      );
    if (k.firstMessage !== b.firstMessage)
      add(
        'message',
        `first message: kube-scheduler ${JSON.stringify(k.firstMessage)}; berth ${JSON.stringify(b.firstMessage)}`,
      );
    if (k.nominated !== b.nominated)
      add(
        'nomination',
        `nominatedNodeName: kube-scheduler ${JSON.stringify(k.nominated)}; berth ${JSON.stringify(b.nominated)}`,
      );
  }
  return out;
}

/** A one-line account of what a scheduler did with a pod (for the run log and the report). */
export function describeOutcome(o: ReleaseOutcome | undefined): string {
  if (o === undefined) return 'no outcome';
  const nominated = o.nominated === '' ? '' : ` [nominated ${o.nominated}]`;
  if (o.node !== undefined)
    return `→ ${o.node}${o.firstMessage === undefined ? '' : ` (first: ${JSON.stringify(o.firstMessage)})`}${nominated}`;
  return `pending ${o.reason}: ${JSON.stringify(o.message)}${nominated}`;
}
