// Finds the cluster to talk to (kubeconfig or in-cluster), builds the API clients, checks them.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  createConfiguration,
  EventsV1Api,
  KubeConfig,
  PolicyV1Api,
  ServerConfiguration,
  StorageV1Api,
} from '@kubernetes/client-node';
import { describeApiError, oneLine } from './api-error.ts';
import { DirectHttp } from './direct-http.ts';
import { apiMiddleware } from './keep-alive.ts';

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

const serviceAccountToken = '/var/run/secrets/kubernetes.io/serviceaccount/token';

function errnoText(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return typeof e?.code === 'string' ? e.code : oneLine(String(e?.message ?? error));
}

function loadFile(kc: KubeConfig, file: string): void {
  if (!existsSync(file)) throw new KubeSetupError(`cannot read kubeconfig ${file}: ENOENT`);
  try {
    kc.loadFromFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code;
    if (typeof code === 'string')
      throw new KubeSetupError(`cannot read kubeconfig ${file}: ${code}`);
    throw new KubeSetupError(`cannot parse kubeconfig ${file}: ${errnoText(error)}`);
  }
}

/** Loads the files of `KUBECONFIG` (path-list, first file wins on conflicts), like kubectl. */
function loadFiles(kc: KubeConfig, files: string[]): void {
  const [first, ...rest] = files;
  if (first === undefined) return;
  loadFile(kc, first);
  for (const file of rest) {
    const more = new KubeConfig();
    loadFile(more, file);
    kc.mergeConfig(more, true);
  }
}

/**
 * Loads the cluster configuration: the explicit file if given; else the in-cluster service
 * account when `KUBERNETES_SERVICE_HOST` is set and `KUBECONFIG` is not; else `KUBECONFIG`,
 * then `~/.kube/config`. `context` selects a context. Throws KubeSetupError (one line) on
 * any problem; never falls back to `http://localhost:8080` as client-node's default would.
 */
export function loadKubeConfig(opts: KubeConfigOptions): KubeConfig {
  const kc = new KubeConfig();
  const envFiles = (process.env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  let source: string;
  if (opts.kubeconfig !== undefined && opts.kubeconfig !== '') {
    source = opts.kubeconfig;
    loadFile(kc, source);
  } else if (envFiles.length > 0) {
    source = envFiles.join(delimiter);
    loadFiles(kc, envFiles);
  } else if ((process.env.KUBERNETES_SERVICE_HOST ?? '') !== '') {
    source = 'the in-cluster config';
    if (!existsSync(serviceAccountToken))
      throw new KubeSetupError(`in-cluster config: cannot read ${serviceAccountToken}: ENOENT`);
    kc.loadFromCluster();
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
  kc: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  storage: StorageV1Api;
  policy: PolicyV1Api;
  events: EventsV1Api;
  /** Custom resources (scheduler-plugins' PodGroups). */
  custom: CustomObjectsApi;
  /** Lean requests and watches for the hot paths (same credentials, own keep-alive pool). */
  http: DirectHttp;
  server: string;
}

/**
 * Builds the API clients for the current context of `kc` (what `kc.makeApiClient` does, plus
 * one shared keep-alive TLS agent instead of a new connection per request).
 */
export function makeClients(kc: KubeConfig): KubeClients {
  const server = kc.getCurrentCluster()?.server ?? '';
  try {
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(server, {}),
      authMethods: { default: kc },
      middleware: apiMiddleware(),
    });
    return {
      kc,
      core: new CoreV1Api(configuration),
      apps: new AppsV1Api(configuration),
      storage: new StorageV1Api(configuration),
      policy: new PolicyV1Api(configuration),
      events: new EventsV1Api(configuration),
      custom: new CustomObjectsApi(configuration),
      http: new DirectHttp(kc),
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
