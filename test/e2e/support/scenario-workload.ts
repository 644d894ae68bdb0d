// The "workload-gang" e2e scenarios: Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1), their member pods and their condition.
import { afterAll, beforeAll } from 'vitest';
import { Api } from './api.ts';
import { type BerthRun, type StartOptions, startBerth } from './berth.ts';
import type { Cluster } from './control-plane.ts';
import { type KubeScheduler, startKubeScheduler } from './kube-scheduler.ts';
import type { PodJson } from './kubectl.ts';
import { type Manifest, namespace, pod, toYaml } from './manifests.ts';
import { poolLabel } from './scenario-gang.ts';
import { delay, GiveUp, waitFor } from './wait.ts';

/** The kube-apiserver flags that serve the Workload API (KEP-4671) in 1.37. */
export const workloadApiFlags = [
  '--runtime-config=scheduling.k8s.io/v1beta1=true',
  '--feature-gates=GenericWorkload=true',
];

/** Where core PodGroups are served with those flags. */
export const corePodGroupApi = '/apis/scheduling.k8s.io/v1beta1';

/** The label the scenarios list a group's pods by (membership itself is spec.schedulingGroup). */
export const memberOfLabel = 'e2e-member-of';

/** A PodGroupInitiallyScheduled condition as the API serves it. */
export interface GroupConditionJson {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** The parts of a core PodGroup the scenarios read. */
export interface CorePodGroupJson {
  metadata: { name: string; namespace: string; generation?: number };
  status?: { conditions?: GroupConditionJson[] };
}

/** A core PodGroup `name` with a gang policy of `minCount` (or `basic` when minCount is undefined). */
export function corePodGroup(namespace: string, name: string, minCount?: number): Manifest {
  return {
    apiVersion: 'scheduling.k8s.io/v1beta1',
    kind: 'PodGroup',
    metadata: { name, namespace },
    spec: { schedulingPolicy: minCount === undefined ? { basic: {} } : { gang: { minCount } } },
  };
}

/**
 * Members `${group}-${i}` of core PodGroup `group` (spec.schedulingGroup), kept to pool
 * `pool`, for scheduler `schedulerName`.
 */
export function coreMembers(
  namespace: string,
  group: string,
  indexes: number[],
  opts: { pool: string; cpu: string; schedulerName: string },
): Manifest[] {
  return indexes.map((i) => {
    const p = pod(`${group}-${i}`, namespace, {
      cpu: opts.cpu,
      memory: '64Mi',
      schedulerName: opts.schedulerName,
      nodeSelector: { [poolLabel]: opts.pool },
      labels: { [memberOfLabel]: group },
    });
    (p.spec as Record<string, unknown>).schedulingGroup = { podGroupName: group };
    return p;
  });
}

/** The pods of `namespace` in group `group`, by name. */
export async function coreGroupPods(
  api: Api,
  namespace: string,
  group: string,
): Promise<PodJson[]> {
  const selector = encodeURIComponent(`${memberOfLabel}=${group}`);
  const list = await api.ok<{ items: PodJson[] }>(
    'GET',
    `/api/v1/namespaces/${namespace}/pods?labelSelector=${selector}`,
  );
  return list.items.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

/** Core PodGroup `namespace/name`'s PodGroupInitiallyScheduled condition, if set. */
export async function initiallyScheduled(
  api: Api,
  namespace: string,
  name: string,
): Promise<GroupConditionJson | undefined> {
  const pg = await api.ok<CorePodGroupJson>(
    'GET',
    `${corePodGroupApi}/namespaces/${namespace}/podgroups/${name}`,
  );
  return pg.status?.conditions?.find((c) => c.type === 'PodGroupInitiallyScheduled');
}

/**
 * Waits for core PodGroup `namespace/group`'s PodGroupInitiallyScheduled to have `status`
 * and returns it; `check` runs at each poll (e.g. berth's liveness, which ends the wait).
 */
export async function conditionWith(
  api: Api,
  namespace: string,
  group: string,
  status: 'True' | 'False',
  check: () => void,
): Promise<GroupConditionJson> {
  const what = `${namespace}/${group}: PodGroupInitiallyScheduled=${status}`;
  const seen = await waitFor(what, async () => {
    check();
    const cond = await initiallyScheduled(api, namespace, group);
    return { ok: cond?.status === status, seen: cond };
  });
  if (seen === undefined) throw new Error(`${namespace}/${group}: no condition`);
  return seen;
}

/**
 * Polls `list` every 250 ms for `holdMs`: fails (GiveUp naming `what`) at the first poll that
 * sees a pod bound, runs `check` at each poll, and returns the last list.
 */
export async function holdNoneBound(
  what: string,
  list: () => Promise<PodJson[]>,
  check: () => void,
  holdMs: number,
): Promise<PodJson[]> {
  const until = Date.now() + holdMs;
  let ps: PodJson[] = [];
  while (Date.now() < until) {
    check();
    ps = await list();
    const bound = ps.filter((p) => p.spec.nodeName !== undefined);
    if (bound.length > 0)
      throw new GiveUp(`${what}: ${bound.map((p) => p.metadata.name).join(', ')} bound`);
    await delay(250);
  }
  return ps;
}

/** The parts of a condition two schedulers are compared on (the time is each one's own). */
export function comparable(c: GroupConditionJson | undefined) {
  if (c === undefined) return undefined;
  const { status, reason, message, observedGeneration } = c;
  return { status, reason, message, observedGeneration };
}

/** Who runs a side-by-side scenario: berth, or kube-scheduler as the oracle. */
export type Who = 'berth' | 'kube-scheduler';

/**
 * The two schedulers of a side-by-side file, each with its scheduler name and its own
 * namespace `${prefix}-berth` / `${prefix}-kube` (its scenarios run on their own node pools).
 */
export function sideBySide(prefix: string): { who: Who; schedulerName: string; ns: string }[] {
  return [
    { who: 'berth', schedulerName: 'berth', ns: `${prefix}-berth` },
    { who: 'kube-scheduler', schedulerName: 'default-scheduler', ns: `${prefix}-kube` },
  ];
}

/** What `useSideBySide` started: getters valid inside the file's tests. */
export interface SideBySide {
  api: () => Api;
  berth: () => BerthRun;
  /** Throws GiveUp (ending any wait) if berth has exited. */
  alive: () => void;
}

/**
 * Registers hooks that, before the file's tests, create the namespaces of `schedulers` and
 * start berth (`berthOptions()`, read then) and kube-scheduler with GenericWorkload on; and
 * stop both after them.
 */
export function useSideBySide(
  cluster: () => Cluster,
  schedulers: { ns: string }[],
  berthOptions: () => StartOptions,
): SideBySide {
  let api: Api | undefined;
  let berth: BerthRun | undefined;
  let kube: KubeScheduler | undefined;
  beforeAll(async () => {
    api = new Api(cluster().kubeconfig);
    await cluster().kubectl.apply(toYaml(schedulers.map((s) => namespace(s.ns))));
    berth = await startBerth(cluster(), berthOptions());
    kube = startKubeScheduler(cluster(), { featureGates: ['GenericWorkload=true'] });
  });
  afterAll(async () => {
    await kube?.stop();
    await berth?.stop('SIGKILL');
    api?.close();
  });
  const running = () => {
    if (berth === undefined) throw new Error('berth is not started (outside the tests?)');
    return berth;
  };
  return {
    api: () => {
      if (api === undefined) throw new Error('no Api (outside the tests?)');
      return api;
    },
    berth: running,
    alive: () => running().checkAlive(),
  };
}
