// A scraper's identity on a test cluster: a ServiceAccount, optionally bound to a ClusterRole, and a token for it.
import type { Kubectl } from './kubectl.ts';
import { type Manifest, toYaml } from './manifests.ts';

/**
 * Creates the ServiceAccount `namespace/name` (the namespace must exist), binds it to
 * `clusterRole` when given (ClusterRoleBinding `NAME-NAMESPACE-scrapes`), and returns a
 * one-hour token of it from the TokenRequest API (`kubectl create token`).
 */
export async function serviceAccountToken(
  k: Kubectl,
  namespace: string,
  name: string,
  clusterRole?: string,
): Promise<string> {
  const objects: Manifest[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
  ];
  if (clusterRole !== undefined)
    objects.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${name}-${namespace}-scrapes` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    });
  await k.apply(toYaml(objects));
  const r = await k.run(['create', 'token', name, '-n', namespace, '--duration=3600s']);
  return r.stdout.trim();
}
