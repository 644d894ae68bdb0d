// The Lease calls leader election makes, against a real cluster, and the election identity.
import { randomUUID } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import type { V1Lease } from '@kubernetes/client-node';
import { describeApiError } from './api-error.ts';
import { DirectHttp } from './direct-http.ts';
import type { ClusterAccess } from './kubeconfig.ts';

/** The few Lease calls the elector makes (real: the API server's; tests: a fake). */
export interface LeaseApi {
  /** The Lease, or undefined when it does not exist (404). */
  get(namespace: string, name: string): Promise<V1Lease | undefined>;
  create(lease: V1Lease): Promise<V1Lease>;
  /** PUT carrying `metadata.resourceVersion`; throws (409) if someone else wrote since. */
  replace(lease: V1Lease): Promise<V1Lease>;
}

/** `/apis/coordination.k8s.io/v1/namespaces/NS/leases[/NAME]`. */
function leasePath(namespace: string, name?: string): string {
  const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

/**
 * The LeaseApi of the cluster `kc` points at: its own DirectHttp, so its own keep-alive
 * connection (renewals never queue behind binds), each call given up after
 * `requestTimeoutMs` (kube-scheduler gives its election client the renew deadline). Lease
 * times come back as the server's MicroTime text, which `recordOf` reads.
 */
export function kubeLeaseApi(kc: ClusterAccess, requestTimeoutMs = 10_000): LeaseApi {
  const http = new DirectHttp(kc);
  const opts = { timeoutMs: requestTimeoutMs };
  const call = async (method: string, path: string, lease?: V1Lease) =>
    JSON.parse(
      await http.request(
        method,
        path,
        lease === undefined ? undefined : JSON.stringify(lease),
        opts,
      ),
    ) as V1Lease;
  const meta = (lease: V1Lease) => ({
    namespace: lease.metadata?.namespace ?? '',
    name: lease.metadata?.name ?? '',
  });
  return {
    get: async (namespace, name) => {
      try {
        return await call('GET', leasePath(namespace, name));
      } catch (error) {
        if (describeApiError(error).code === 404) return undefined;
        throw error;
      }
    },
    create: (lease) => call('POST', leasePath(meta(lease).namespace), lease),
    replace: (lease) => call('PUT', leasePath(meta(lease).namespace, meta(lease).name), lease),
  };
}

/** `<hostname>_<random UUID>`, kube-scheduler's election identity. */
export function leaderIdentity(hostname: string = osHostname()): string {
  return `${hostname}_${randomUUID()}`;
}
