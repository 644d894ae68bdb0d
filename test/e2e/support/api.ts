// A small direct client of kube-apiserver (keep-alive HTTPS, bearer token) for fast writes and watches.
import { readFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { parse as parseYaml } from 'yaml';
import type { NodeJson, PodJson } from './kubectl.ts';
import { type WaitOptions, waitFor } from './wait.ts';

/** What one API call returned: HTTP status and the parsed JSON body (or the raw text). */
export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

/** One watch event as the API server streams it. */
export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** A running watch: `stop()` ends it; `ended` resolves when the stream is closed (or fails). */
export interface Watch {
  stop(): void;
  ended: Promise<void>;
}

interface KubeconfigFile {
  clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
  users?: { user?: { token?: string } }[];
}

/**
 * Talks to kube-apiserver over one keep-alive agent, so a test can write tens of objects per
 * second without a kubectl process per call. Reads the first cluster and user of a
 * kubeconfig written by up.sh (server, CA data, bearer token).
 */
export class Api {
  private readonly server: URL;
  private readonly token: string;
  private readonly agent: Agent;

  constructor(kubeconfigPath: string, maxSockets = 32) {
    const kc = parseYaml(readFileSync(kubeconfigPath, 'utf8')) as KubeconfigFile;
    const cluster = kc.clusters?.[0]?.cluster;
    const token = kc.users?.[0]?.user?.token;
    const caData = cluster?.['certificate-authority-data'];
    if (cluster?.server === undefined || token === undefined || caData === undefined)
      throw new Error(`${kubeconfigPath}: expected a server, CA data and a bearer token`);
    this.server = new URL(cluster.server);
    this.token = token;
    this.agent = new Agent({
      keepAlive: true,
      maxSockets,
      ca: Buffer.from(caData, 'base64'),
    });
  }

  /** Sends one request; resolves with any HTTP status (never throws on 4xx/5xx). */
  request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    timeoutMs = 30_000,
  ): Promise<ApiResponse<T>> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        {
          host: this.server.hostname,
          port: this.server.port,
          path,
          method,
          agent: this.agent,
          timeout: timeoutMs,
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : {
                  'content-type':
                    method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
                  'content-length': Buffer.byteLength(payload),
                }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (b: Buffer) => chunks.push(b));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // Not JSON: keep the text.
            }
            resolve({ status: res.statusCode ?? 0, body: parsed as T });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Like `request`, but throws unless the status is 2xx. */
  async ok<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.request<T>(method, path, body);
    if (r.status < 200 || r.status > 299)
      throw new Error(
        `${method} ${path}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`,
      );
    return r.body;
  }

  /** Creates a pod; throws unless the API accepted it. */
  createPod(namespace: string, pod: unknown): Promise<PodJson> {
    return this.ok<PodJson>('POST', `/api/v1/namespaces/${namespace}/pods`, pod);
  }

  /**
   * Deletes a pod at once (grace 0), only if it still has `uid`. Resolves with the object the
   * API returned (its state at deletion) and the HTTP status.
   */
  deletePod(namespace: string, name: string, uid?: string): Promise<ApiResponse<PodJson>> {
    return this.request<PodJson>('DELETE', `/api/v1/namespaces/${namespace}/pods/${name}`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      ...(uid === undefined ? {} : { preconditions: { uid } }),
    });
  }

  /**
   * Watches `path` (a collection URL, `watch=1` is added) from `resourceVersion`, calling
   * `onEvent` for each event as it arrives. The watch ends on `stop()`, on a server timeout
   * or on an error; `ended` resolves then.
   */
  watch<T>(path: string, resourceVersion: string, onEvent: (e: WatchEvent<T>) => void): Watch {
    const sep = path.includes('?') ? '&' : '?';
    const full = `${path}${sep}watch=1&resourceVersion=${resourceVersion}&allowWatchBookmarks=true`;
    let stopRequested = false;
    let destroy: () => void = () => {};
    const ended = new Promise<void>((resolve) => {
      const req = httpsRequest(
        {
          host: this.server.hostname,
          port: this.server.port,
          path: full,
          method: 'GET',
          // A watch holds its socket: keep it off the shared keep-alive pool.
          agent: new Agent({ ca: this.agent.options.ca }),
          headers: { authorization: `Bearer ${this.token}`, accept: 'application/json' },
        },
        (res) => {
          let buffered = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
              const line = buffered.slice(0, nl);
              buffered = buffered.slice(nl + 1);
              if (line.trim() !== '') onEvent(JSON.parse(line) as WatchEvent<T>);
            }
          });
          res.on('end', () => resolve());
          res.on('error', () => resolve());
        },
      );
      req.on('error', () => resolve());
      req.end();
      destroy = () => req.destroy();
    });
    return {
      stop: () => {
        if (!stopRequested) {
          stopRequested = true;
          destroy();
        }
      },
      ended,
    };
  }

  /** The resourceVersion of a collection (for starting a watch right after now). */
  async listResourceVersion(path: string): Promise<string> {
    const sep = path.includes('?') ? '&' : '?';
    const list = await this.ok<{ metadata: { resourceVersion: string } }>(
      'GET',
      `${path}${sep}limit=1`,
    );
    return list.metadata.resourceVersion;
  }

  /** Closes the keep-alive sockets. */
  close(): void {
    this.agent.destroy();
  }
}

/** Waits until `count` nodes report Ready (kwok marks them), polling the node list. */
export async function waitForReadyNodes(
  api: Api,
  count: number,
  opts: WaitOptions = {},
): Promise<void> {
  await waitFor(
    `${count} nodes Ready`,
    async () => {
      const items = (await api.ok<{ items: NodeJson[] }>('GET', '/api/v1/nodes')).items;
      const ready = items.filter((n) =>
        n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      ).length;
      return { ok: ready === count, seen: `${ready}/${items.length}` };
    },
    opts,
  );
}
