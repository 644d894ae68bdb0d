// The "workload-gang" e2e scenarios: Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1), their member pods and their condition.
import type { Api } from './api.ts';
import type { PodJson } from './kubectl.ts';
import { type Manifest, pod } from './manifests.ts';
import { poolLabel } from './scenario-gang.ts';

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
