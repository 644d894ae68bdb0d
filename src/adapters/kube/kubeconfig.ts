// berth's own kubeconfig reader: files, contexts, certificates and tokens; client-node only for exec, auth providers and proxies.
import { readFileSync } from 'node:fs';
import { Agent, type RequestOptions } from 'node:https';
import { isIPv6 } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isRecord, type JsonRecord } from '../../model/record.ts';
import type {
  ClusterAccess,
  CurrentContext,
  KubeconfigCluster,
  KubeconfigContext,
  KubeconfigUser,
} from './kubeconfig-types.ts';

export type {
  ClusterAccess,
  KubeconfigCluster,
  KubeconfigContext,
  KubeconfigUser,
} from './kubeconfig-types.ts';

/** A kubeconfig that cannot be used as written (one line, without the file's name). */
export class KubeconfigFormatError extends Error {
  override name = 'KubeconfigFormatError';
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `file` against the directory of the kubeconfig that named it (as kubectl resolves it). */
function absolute(root: string, file: string | undefined): string | undefined {
  return file === undefined || isAbsolute(file) ? file : join(root, file);
}

/** The entries of list `key` (`clusters`, …) as name, body and place, each checked to have a name. */
function namedList(
  doc: JsonRecord,
  key: string,
  body: string,
): Array<[string, JsonRecord, string]> {
  const list = doc[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new KubeconfigFormatError(`${key} is not a list`);
  return list.map((entry, i) => {
    if (!isRecord(entry)) throw new KubeconfigFormatError(`${key}[${i}] is not a mapping`);
    const name = text(entry.name);
    if (name === undefined) throw new KubeconfigFormatError(`${key}[${i}].name is missing`);
    const inner = entry[body] ?? {};
    if (!isRecord(inner)) throw new KubeconfigFormatError(`${key}[${i}].${body} is not a mapping`);
    return [name, inner, `${key}[${i}]`];
  });
}

function clusterOf(name: string, c: JsonRecord, root: string, where: string): KubeconfigCluster {
  const server = text(c.server);
  if (server === undefined) throw new KubeconfigFormatError(`${where}.cluster.server is missing`);
  return {
    name,
    server: server.replace(/\/$/, ''),
    caFile: absolute(root, text(c['certificate-authority'])),
    caData: text(c['certificate-authority-data']),
    skipTLSVerify: c['insecure-skip-tls-verify'] === true,
    tlsServerName: text(c['tls-server-name']),
    proxyUrl: text(c['proxy-url']),
  };
}

function userOf(name: string, u: JsonRecord, root: string): KubeconfigUser {
  return {
    name,
    certFile: absolute(root, text(u['client-certificate'])),
    certData: text(u['client-certificate-data']),
    keyFile: absolute(root, text(u['client-key'])),
    keyData: text(u['client-key-data']),
    token: text(u.token),
    tokenFile: absolute(root, text(u.tokenFile) ?? text(u['token-file'])),
    username: text(u.username),
    password: typeof u.password === 'string' ? u.password : undefined,
    impersonateUser: text(u.as),
    exec: isRecord(u.exec) ? u.exec : undefined,
    authProvider: isRecord(u['auth-provider']) ? u['auth-provider'] : undefined,
  };
}

function contextOf(name: string, c: JsonRecord): KubeconfigContext {
  return {
    name,
    cluster: text(c.cluster) ?? '',
    user: text(c.user) ?? '',
    namespace: text(c.namespace),
  };
}

/** A file's PEM from `file` (read now) or base64 `data`; undefined when neither is set. */
function pem(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file !== undefined) return readFileSync(file);
  return data === undefined ? undefined : Buffer.from(data, 'base64');
}

/**
 * A loaded kubeconfig: its clusters, users and contexts by name and the current context.
 * Client certificates, bearer tokens (inline or from a file, read again on every
 * `applyToHTTPSOptions`), basic auth, `insecure-skip-tls-verify`, `tls-server-name` and
 * `as` are applied here; a user with an exec plugin or an auth provider, or a cluster
 * with a `proxy-url`, is handed to client-node, loaded only then (it costs ~17 MiB and
 * ~50 ms to load, which every other configuration is spared).
 */
export class Kubeconfig implements ClusterAccess, CurrentContext {
  readonly clusters = new Map<string, KubeconfigCluster>();
  readonly users = new Map<string, KubeconfigUser>();
  readonly contexts = new Map<string, KubeconfigContext>();
  private currentContext = '';
  private delegate: Promise<ClusterAccess> | undefined;

  /**
   * Adds the entries of one file's text, resolving its relative paths against `root`. An
   * entry whose name is already known is left out and a current-context already set is
   * kept: the first file wins, as with kubectl's `KUBECONFIG` list.
   */
  addText(source: string, root: string): void {
    let doc: unknown;
    try {
      doc = parseYaml(source);
    } catch (error) {
      throw new KubeconfigFormatError(String((error as Error).message).split('\n')[0]);
    }
    if (doc === null || doc === undefined) return;
    if (!isRecord(doc)) throw new KubeconfigFormatError('the file is not a mapping');
    for (const [name, c, where] of namedList(doc, 'clusters', 'cluster'))
      if (!this.clusters.has(name)) this.clusters.set(name, clusterOf(name, c, root, where));
    for (const [name, u] of namedList(doc, 'users', 'user'))
      if (!this.users.has(name)) this.users.set(name, userOf(name, u, root));
    for (const [name, c] of namedList(doc, 'contexts', 'context'))
      if (!this.contexts.has(name)) this.contexts.set(name, contextOf(name, c));
    const current = text(doc['current-context']);
    if (this.currentContext === '' && current !== undefined) this.currentContext = current;
  }

  /** Adds kubeconfig `file` (read now); throws its read error or a KubeconfigFormatError. */
  addFile(file: string): void {
    this.addText(readFileSync(file, 'utf8'), dirname(file));
  }

  /**
   * The in-cluster configuration: the service account's token (read again on every use)
   * and CA under `root`, and the API server of `KUBERNETES_SERVICE_HOST`/`_PORT`.
   */
  static inCluster(env: NodeJS.ProcessEnv, root: string): Kubeconfig {
    const host = env.KUBERNETES_SERVICE_HOST ?? '';
    const port = env.KUBERNETES_SERVICE_PORT ?? '443';
    const kc = new Kubeconfig();
    const server = `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
    kc.clusters.set('in-cluster', {
      name: 'in-cluster',
      server,
      caFile: join(root, 'ca.crt'),
      skipTLSVerify: false,
    });
    kc.users.set('in-cluster', { name: 'in-cluster', tokenFile: join(root, 'token') });
    kc.contexts.set('in-cluster', {
      name: 'in-cluster',
      cluster: 'in-cluster',
      user: 'in-cluster',
    });
    kc.currentContext = 'in-cluster';
    return kc;
  }

  getContexts(): KubeconfigContext[] {
    return [...this.contexts.values()];
  }

  getContextObject(name: string | undefined): KubeconfigContext | null {
    return name === undefined ? null : (this.contexts.get(name) ?? null);
  }

  getCurrentContext(): string {
    return this.currentContext;
  }

  setCurrentContext(name: string): void {
    this.currentContext = name;
    this.delegate = undefined;
  }

  getCurrentCluster(): KubeconfigCluster | null {
    const context = this.contexts.get(this.currentContext);
    return context === undefined ? null : (this.clusters.get(context.cluster) ?? null);
  }

  getCurrentUser(): KubeconfigUser | null {
    const context = this.contexts.get(this.currentContext);
    return context === undefined ? null : (this.users.get(context.user) ?? null);
  }

  /** Whether the current context needs client-node (exec plugin, auth provider, proxy). */
  needsClientNode(): boolean {
    const user = this.getCurrentUser();
    return (
      user?.exec !== undefined ||
      user?.authProvider !== undefined ||
      this.getCurrentCluster()?.proxyUrl !== undefined
    );
  }

  /**
   * Sets the current context's TLS trust, client certificate, credentials and an
   * `https.Agent` with them on `opts` (the fields client-node's method of the same name
   * sets). Throws a file's read error.
   */
  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    if (this.needsClientNode()) {
      this.delegate ??= import('./client-node-access.ts').then((m) => m.clientNodeAccess(this));
      return (await this.delegate).applyToHTTPSOptions(opts);
    }
    const cluster = this.getCurrentCluster();
    const user = this.getCurrentUser();
    const headers: Record<string, string> = { ...(opts.headers as Record<string, string>) };
    if (cluster?.skipTLSVerify === true) opts.rejectUnauthorized = false;
    if (cluster?.tlsServerName !== undefined) opts.servername = cluster.tlsServerName;
    const ca = pem(cluster?.caFile, cluster?.caData);
    if (ca !== undefined) opts.ca = ca;
    if (user !== null) {
      const cert = pem(user.certFile, user.certData);
      const key = pem(user.keyFile, user.keyData);
      if (cert !== undefined) opts.cert = cert;
      if (key !== undefined) opts.key = key;
      if (user.impersonateUser !== undefined) headers['Impersonate-User'] = user.impersonateUser;
      const token =
        user.token ??
        (user.tokenFile === undefined ? undefined : readFileSync(user.tokenFile, 'utf8').trim());
      if (token !== undefined && token !== '') headers.Authorization = `Bearer ${token}`;
      if (user.username !== undefined) opts.auth = `${user.username}:${user.password ?? ''}`;
    }
    opts.headers = headers;
    if (cluster?.server.startsWith('https:') === true)
      opts.agent = new Agent({
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        servername: opts.servername,
        ...(opts.rejectUnauthorized === undefined
          ? {}
          : { rejectUnauthorized: opts.rejectUnauthorized }),
      });
  }
}
