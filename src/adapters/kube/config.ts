// Finds the cluster to talk to (kubeconfig or in-cluster), builds the API clients, checks them.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describeApiError, oneLine } from './api-error.ts';
import { DirectHttp } from './direct-http.ts';
import { type ClusterAccess, Kubeconfig } from './kubeconfig.ts';
import { CoreWrites, CustomObjectWrites, EventWrites } from './rest-writes.ts';
import type { WriteFence } from './write-fence.ts';

/** A setup problem (kubeconfig, context, connection), with a one-line message for people. */
export class KubeSetupError extends Error {
  override name = 'KubeSetupError';
}

/** Where the configuration was read from. */
export interface KubeConfigOptions {
  /** An explicit kubeconfig file (`--kubeconfig`); wins over everything else. */
  kubeconfig?: string;
  /** A context to use instead of the file's `current-context` (`--context`). */
  context?: string;
}

const serviceAccount = '/var/run/secrets/kubernetes.io/serviceaccount';
const serviceAccountToken = `${serviceAccount}/token`;

function errnoText(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return typeof e?.code === 'string' ? e.code : oneLine(String(e?.message ?? error));
}

function loadFile(kc: Kubeconfig, file: string): void {
  if (!existsSync(file)) throw new KubeSetupError(`cannot read kubeconfig ${file}: ENOENT`);
  try {
    kc.addFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code;
    if (typeof code === 'string')
      throw new KubeSetupError(`cannot read kubeconfig ${file}: ${code}`);
    throw new KubeSetupError(`cannot parse kubeconfig ${file}: ${errnoText(error)}`);
  }
}

/**
 * Loads the cluster configuration: the explicit file if given; else the in-cluster service
 * account when `KUBERNETES_SERVICE_HOST` is set and `KUBECONFIG` is not; else `KUBECONFIG`,
 * then `~/.kube/config`. `context` selects a context. Throws KubeSetupError (one line) on
 * any problem; never falls back to `http://localhost:8080` as client-node's default would.
 * The files are read by berth's own `Kubeconfig` (client-node is loaded only for exec
 * plugins, auth providers and proxies).
 */
export function loadKubeConfig(opts: KubeConfigOptions): Kubeconfig {
  let kc = new Kubeconfig();
  const envFiles = (process.env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  let source: string;
  if (opts.kubeconfig !== undefined && opts.kubeconfig !== '') {
    source = opts.kubeconfig;
    loadFile(kc, source);
  } else if (envFiles.length > 0) {
    source = envFiles.join(delimiter);
    // The first file to name an entry or a current-context wins, as with kubectl.
    for (const file of envFiles) loadFile(kc, file);
  } else if ((process.env.KUBERNETES_SERVICE_HOST ?? '') !== '') {
    source = 'the in-cluster config';
    if (!existsSync(serviceAccountToken))
      throw new KubeSetupError(`in-cluster config: cannot read ${serviceAccountToken}: ENOENT`);
    kc = Kubeconfig.inCluster(process.env, serviceAccount);
  } else {
    const home = join(homedir(), '.kube', 'config');
    if (!existsSync(home))
      throw new KubeSetupError('no kubeconfig found (set --kubeconfig or KUBECONFIG)');
    source = home;
    loadFile(kc, home);
  }
  const names = kc.getContexts().map((c) => c.name);
  const have = names.length === 0 ? 'none' : names.join(', ');
  if (opts.context !== undefined && opts.context !== '') {
    if (kc.getContextObject(opts.context) === null)
      throw new KubeSetupError(`context "${opts.context}" not found in ${source} (have: ${have})`);
    kc.setCurrentContext(opts.context);
  } else if (kc.getContextObject(kc.getCurrentContext()) === null) {
    const current = kc.getCurrentContext();
    throw new KubeSetupError(
      current === undefined || current === ''
        ? `${source} has no current-context (use --context; have: ${have})`
        : `current-context "${current}" not found in ${source} (have: ${have})`,
    );
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null || cluster.server === '')
    throw new KubeSetupError(
      `context "${kc.getCurrentContext()}" in ${source} names no cluster with a server`,
    );
  return kc;
}

/** The API clients berth uses, and the server they talk to (for messages). */
export interface KubeClients {
  kc: ClusterAccess;
  /** Pod status patches and victim deletes. */
  core: CoreWrites;
  /** events.k8s.io Events (PodGroup Events). */
  events: EventWrites;
  /** Status patches of PodGroups: scheduler-plugins' (a CRD) and Kubernetes' own (scheduling.k8s.io/v1beta1). */
  custom: CustomObjectWrites;
  /** Every request and watch: the kubeconfig's credentials over one keep-alive pool. */
  http: DirectHttp;
  server: string;
}

/**
 * Builds the API clients for the current context of `kc`: one DirectHttp (one keep-alive
 * pool per TLS identity) that every read and write goes through, every write first asking
 * `fence` (when given). client-node is used for exec plugins, auth providers and proxies
 * only (see `Kubeconfig`).
 */
export function makeClients(kc: ClusterAccess, fence?: WriteFence): KubeClients {
  const server = kc.getCurrentCluster()?.server ?? '';
  try {
    const http = new DirectHttp(kc, fence === undefined ? {} : { fence });
    return {
      kc,
      core: new CoreWrites(http),
      events: new EventWrites(http),
      custom: new CustomObjectWrites(http),
      http,
      server,
    };
  } catch (error) {
    throw new KubeSetupError(`cannot use the cluster ${server}: ${errnoText(error)}`);
  }
}

/**
 * Makes one cheap authenticated call (list one node). Resolves when the server answers;
 * throws KubeSetupError with a one-line reason otherwise (unreachable, 401, 403, timeout).
 */
export async function checkConnection(clients: KubeClients, timeoutMs = 10_000): Promise<void> {
  try {
    // Through DirectHttp, whose pool then holds a connection and a TLS session: the lists
    // that follow reuse the one and resume the other instead of a dozen full handshakes.
    await clients.http.request('GET', '/api/v1/nodes?limit=1', undefined, { timeoutMs });
  } catch (error) {
    const f = describeApiError(error);
    if (f.code === 401)
      throw new KubeSetupError('the API server refused the credentials (401 Unauthorized)');
    if (f.code === 403) throw new KubeSetupError(`forbidden: ${f.message} (403)`);
    if (f.code !== undefined)
      throw new KubeSetupError(
        `the API server at ${clients.server} answered ${f.code}: ${f.message}`,
      );
    const timedOut = (error as { name?: unknown } | undefined)?.name === 'AbortError';
    const why = timedOut ? `no answer within ${timeoutMs} ms` : f.message;
    throw new KubeSetupError(`cannot reach the API server at ${clients.server}: ${why}`);
  }
}
