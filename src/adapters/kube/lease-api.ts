// The Lease calls leader election makes, against a real cluster, and the election identity.
import { randomUUID } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import {
  CoordinationV1Api,
  createConfiguration,
  type KubeConfig,
  ServerConfiguration,
  type V1Lease,
} from '@kubernetes/client-node';
import { describeApiError } from './api-error.ts';
import { apiMiddleware } from './keep-alive.ts';
import { timeoutOptions } from './request-options.ts';

/** The few Lease calls the elector makes (real: CoordinationV1Api; tests: a fake). */
export interface LeaseApi {
  /** The Lease, or undefined when it does not exist (404). */
  get(namespace: string, name: string): Promise<V1Lease | undefined>;
  create(lease: V1Lease): Promise<V1Lease>;
  /** PUT carrying `metadata.resourceVersion`; throws (409) if someone else wrote since. */
  replace(lease: V1Lease): Promise<V1Lease>;
}

/**
 * The LeaseApi of the cluster `kc` points at: its own CoordinationV1Api with its own
 * keep-alive connection (renewals never queue behind binds), each call aborted after
 * `requestTimeoutMs` (kube-scheduler gives its election client the renew deadline).
 */
export function kubeLeaseApi(kc: KubeConfig, requestTimeoutMs = 10_000): LeaseApi {
  const server = kc.getCurrentCluster()?.server ?? '';
  const api = new CoordinationV1Api(
    createConfiguration({
      baseServer: new ServerConfiguration(server, {}),
      authMethods: { default: kc },
      middleware: apiMiddleware(),
    }),
  );
  const target = (lease: V1Lease) => ({
    namespace: lease.metadata?.namespace ?? '',
    name: lease.metadata?.name ?? '',
  });
  return {
    get: async (namespace, name) => {
      try {
        return await api.readNamespacedLease({ namespace, name }, timeoutOptions(requestTimeoutMs));
      } catch (error) {
        if (describeApiError(error).code === 404) return undefined;
        throw error;
      }
    },
    create: (lease) =>
      api.createNamespacedLease(
        { namespace: target(lease).namespace, body: lease },
        timeoutOptions(requestTimeoutMs),
      ),
    replace: (lease) =>
      api.replaceNamespacedLease(
        { ...target(lease), body: lease },
        timeoutOptions(requestTimeoutMs),
      ),
  };
}

/** `<hostname>_<random UUID>`, kube-scheduler's election identity. */
export function leaderIdentity(hostname: string = osHostname()): string {
  return `${hostname}_${randomUUID()}`;
}
