// Starts `berth run`'s status servers: HTTPS with delegated auth on --secure-port, and plain HTTP on loopback when asked.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DirectHttp } from '../adapters/kube/direct-http.ts';
import { DelegatedAuth } from '../adapters/metrics/delegated-auth.ts';
import type { ServingCert } from '../adapters/metrics/self-signed-cert.ts';
import {
  type HealthChecks,
  parseBindAddress,
  type StatusServer,
  startStatusServer,
} from '../adapters/metrics/status-server.ts';
import { CliError } from './errors.ts';
import { type SecureServingOptions, secureListenAddress } from './serving-options.ts';

/** What the servers serve and where. */
export interface StatusServersOptions {
  secure: SecureServingOptions;
  /** The serving certificate; undefined when --secure-port is 0. */
  tls: ServingCert | undefined;
  /** `--metrics-bind-address` (already checked to be loopback or 0). */
  plainAddress: string;
  registry: Registry;
  health: HealthChecks;
  logger: Logger;
  /** The API client the TokenReviews and SubjectAccessReviews go through. */
  http: DirectHttp;
}

/**
 * Starts the HTTPS server (unless --secure-port is 0), then the plain one (unless
 * --metrics-bind-address is 0). A server that cannot listen is a CliError naming its address.
 */
export async function startStatusServers(o: StatusServersOptions): Promise<StatusServer[]> {
  const common = { registry: o.registry, logger: o.logger, health: o.health };
  const started: StatusServer[] = [];
  const start = (options: Parameters<typeof startStatusServer>[0]) =>
    startStatusServer(options).catch(async (error: unknown) => {
      await Promise.all(started.map((s) => s.close()));
      throw new CliError((error as Error).message);
    });
  if (o.tls !== undefined) {
    // Reviews are asked with berth's own credentials, as kube-scheduler does with its
    // in-cluster config; they change nothing in the cluster, so standbys serve them too.
    const auth = new DelegatedAuth({
      post: (path, body) => o.http.request('POST', path, body, { timeoutMs: 10_000 }),
      now: () => performance.now(),
    });
    started.push(
      await start({
        ...common,
        address: secureListenAddress(o.secure),
        tls: o.tls,
        access: { alwaysAllowPaths: o.secure.alwaysAllowPaths, auth },
      }),
    );
  }
  if (parseBindAddress(o.plainAddress) !== undefined)
    started.push(await start({ ...common, address: o.plainAddress }));
  return started;
}
