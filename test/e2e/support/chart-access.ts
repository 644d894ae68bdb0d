// berth's identity on a test cluster as the chart installs it: the chart's rendered RBAC applied, a ServiceAccount token.
import { join } from 'node:path';
import type { Cluster } from './control-plane.ts';
import { Helm, parseObjects, tokenKubeconfig } from './helm.ts';
import { type Manifest, namespace, toYaml } from './manifests.ts';

/** The release the e2e tests render the chart as (its objects are all called `berth`). */
export const chartRelease = { name: 'berth', namespace: 'berth-system' } as const;

/** berth's identity as the chart grants it, on one test cluster. */
export interface ChartAccess {
  /** A kubeconfig whose bearer token is the chart ServiceAccount's (a TokenRequest). */
  kubeconfig: string;
  /** The ServiceAccount as an RBAC user: `system:serviceaccount:NS:NAME`. */
  user: string;
  /** The ServiceAccount itself. */
  serviceAccount: { name: string; namespace: string };
  /** The objects applied: the chart's RBAC (and what it names) as rendered. */
  objects: Manifest[];
}

/**
 * Whether the install path needs `o` for what berth may do: the ServiceAccount, every
 * rbac.authorization.k8s.io object the chart renders (whatever templates add one), the
 * Lease the Role names, and the admission policy that fences binds by that Lease. Nothing
 * else (no Deployment, ConfigMap or Service).
 */
export function isAccessObject(o: Manifest): boolean {
  const group = String(o.apiVersion ?? '').split('/')[0];
  return (
    group === 'rbac.authorization.k8s.io' ||
    group === 'admissionregistration.k8s.io' ||
    (o.apiVersion === 'v1' && o.kind === 'ServiceAccount') ||
    (group === 'coordination.k8s.io' && o.kind === 'Lease')
  );
}

const granted = new WeakMap<Cluster, Promise<ChartAccess>>();

/**
 * berth's identity on `cluster` as the chart installs it (once per cluster): `helm template`
 * of helm/berth with default values as release berth in berth-system, of which only the
 * access objects (`isAccessObject`) are applied, then a 24 h token of the ServiceAccount
 * (`kubectl create token`, TokenRequest) in a kubeconfig beside the admin one. Throws with
 * helm's or kubectl's stderr when a step fails.
 */
export function chartAccess(cluster: Cluster): Promise<ChartAccess> {
  let access = granted.get(cluster);
  if (access === undefined) {
    access = grant(cluster);
    granted.set(cluster, access);
    // A failed grant is not kept: the next call tries again.
    access.catch(() => granted.delete(cluster));
  }
  return access;
}

async function grant(cluster: Cluster): Promise<ChartAccess> {
  const k = cluster.kubectl;
  const version = await k.raw<{ gitVersion: string }>('/version');
  const helm = new Helm(
    join(cluster.binDir, 'helm'),
    cluster.kubeconfig,
    join(cluster.dir, 'helm-access'),
    version.gitVersion,
  );
  const rendered = await helm.template(chartRelease.name, chartRelease.namespace);
  if (rendered.code !== 0) throw new Error(`helm template failed: ${rendered.stderr}`);
  const objects = parseObjects(rendered.stdout).filter(isAccessObject);
  const serviceAccount = objects.find((o) => o.kind === 'ServiceAccount');
  const name = (serviceAccount?.metadata as { name?: string } | undefined)?.name;
  if (name === undefined) throw new Error('the chart rendered no ServiceAccount');
  await k.apply(toYaml([namespace(chartRelease.namespace), ...objects]));
  const token = await k.run([
    'create',
    'token',
    name,
    '-n',
    chartRelease.namespace,
    '--duration=24h',
  ]);
  return {
    kubeconfig: tokenKubeconfig(cluster.kubeconfig, token.stdout.trim(), 'berth-chart-access'),
    user: `system:serviceaccount:${chartRelease.namespace}:${name}`,
    serviceAccount: { name, namespace: chartRelease.namespace },
    objects,
  };
}

/**
 * The chart's identity plus get/create/update of every Lease in `namespace` (a Role and
 * RoleBinding named `berth-test-leases`): for tests that elect on Leases of their own names,
 * which berth then creates. The chart itself grants only its one pre-rendered Lease (the
 * install path, checked by helm.e2e); everything else stays the chart's.
 */
export async function chartAccessWithLeases(
  cluster: Cluster,
  leaseNamespace: string,
): Promise<ChartAccess> {
  const access = await chartAccess(cluster);
  const meta = { name: 'berth-test-leases', namespace: leaseNamespace };
  await cluster.kubectl.apply(
    toYaml([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: meta,
        rules: [
          {
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            verbs: ['get', 'create', 'update'],
          },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: meta,
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: meta.name },
        subjects: [{ kind: 'ServiceAccount', ...access.serviceAccount }],
      },
    ]),
  );
  return access;
}
