// Lean HTTPS to the API server for the hot paths (binds, reports, watches): no fetch layer, no model (de)serializers.
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import { ApiStatusError } from './api-error.ts';
import { isPlainHttpsAgent, sharedAgent } from './keep-alive.ts';
import type { ClusterAccess } from './kubeconfig.ts';
import { type ListMetadata, ListSplitter } from './list-splitter.ts';
import { protobufMediaType } from './protobuf/envelope.ts';
import type { ProtoItemDecoder } from './protobuf/items.ts';
import { ProtoListSplitter } from './protobuf/list-splitter.ts';
import { protobufStatusText } from './protobuf/status.ts';
import { berthUserAgent } from './user-agent.ts';
import { checkFence, endFenced, type WriteFence } from './write-fence.ts';

/** A watch's callbacks: each event as it arrives, and one close (null: the server ended it). */
export interface DirectWatchHandlers {
  onEvent(type: string, object: unknown): void;
  onClose(err: unknown): void;
}

/** An error named AbortError, as a fetch timeout is (describeApiError reads it as a timeout). */
function timeoutError(method: string, path: string, ms: number): Error {
  const err = new Error(`${method} ${path}: no answer within ${ms} ms`);
  err.name = 'AbortError';
  return err;
}

function readBytes(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (b: Buffer) => chunks.push(b));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

function readBody(res: IncomingMessage): Promise<string> {
  return readBytes(res).then((b) => b.toString('utf8'));
}

/** An error answer's body as text: a protobuf Status becomes its JSON form. */
async function errorText(res: IncomingMessage): Promise<string> {
  const bytes = await readBytes(res);
  const protobufStatus = res.headers['content-type']?.startsWith(protobufMediaType)
    ? protobufStatusText(bytes)
    : undefined;
  return protobufStatus ?? bytes.toString('utf8');
}

/** What splits a list body into items: protobuf when asked for and answered, JSON otherwise. */
interface BodySplitter {
  /** A text chunk for JSON, a Buffer for protobuf (as `splitterFor` set the stream up). */
  push(chunk: string | Buffer): void;
  end(): ListMetadata;
}

/** The splitter for `res`'s media type; a JSON body is read as text, a protobuf one as bytes. */
function splitterFor(
  res: IncomingMessage,
  decode: ProtoItemDecoder | undefined,
  onItem: (item: unknown, trimmed: boolean) => void,
): BodySplitter {
  if (decode !== undefined && res.headers['content-type']?.startsWith(protobufMediaType))
    return new ProtoListSplitter((bytes) => onItem(decode(bytes), true));
  res.setEncoding('utf8');
  return new ListSplitter((text) => onItem(JSON.parse(text), false));
}

/**
 * Requests with the kubeconfig's credentials (whatever `applyToHTTPSOptions` gives: bearer
 * token, exec plugin, client certificate, basic auth) over one keep-alive agent of at most
 * `maxApiSockets` connections per TLS identity. A non-2xx answer throws an `ApiStatusError` (code and the
 * Status body as text), a timeout an `AbortError`, a network failure node's own error — the
 * shapes `describeApiError` already reads.
 */
export class DirectHttp {
  private shared: Agent | undefined;
  private watchAgent: { basis: Agent; agent: Agent } | undefined;
  /** A TLS session of the shared pool's TLS identity (`basis`), which watches resume. */
  private session: { basis: Agent; session: Buffer } | undefined;
  private readonly server: URL;
  private readonly now: () => number;
  private readonly credentialsTtlMs: number;
  /** The kubeconfig's credentials as last read, with the shared agent in place of its own. */
  private credentials: { readAt: number; options: Promise<RequestOptions> } | undefined;
  private readonly fence: WriteFence | undefined;

  /**
   * `credentialsTtlMs` (default 1 s): how long the credentials read from the kubeconfig
   * (token, exec plugin output, client certificate) are used before they are read again.
   * client-node re-reads a token file or runs an exec plugin only when its own cache is
   * stale, but builds a fresh agent on every call; at one call per request that was ~0.1 ms
   * of CPU per pod under a steady arrival.
   * `fence`: asked immediately before each write (any method but GET/HEAD/OPTIONS) is sent,
   * after every wait (credentials, the caller's token); a refused write throws a
   * FencedWriteError and never reaches the server.
   */
  constructor(
    private readonly kc: ClusterAccess,
    opts: { now?: () => number; credentialsTtlMs?: number; fence?: WriteFence } = {},
  ) {
    this.server = new URL(kc.getCurrentCluster()?.server ?? '');
    this.now = opts.now ?? (() => performance.now());
    this.credentialsTtlMs = opts.credentialsTtlMs ?? 1_000;
    this.fence = opts.fence;
  }

  /** The credentials, read again once they are older than the TTL (or failed to read). */
  private credentialOptions(): Promise<RequestOptions> {
    const now = this.now();
    const cached = this.credentials;
    if (cached !== undefined && now - cached.readAt < this.credentialsTtlMs) return cached.options;
    const options = (async () => {
      const o: RequestOptions = {};
      await this.kc.applyToHTTPSOptions(o);
      if (isPlainHttpsAgent(o.agent)) {
        this.shared = sharedAgent(this.shared, o.agent);
        o.agent = this.shared;
      }
      return o;
    })();
    this.credentials = { readAt: now, options };
    // A failure is not kept: the next request reads the credentials again.
    options.catch(() => {
      if (this.credentials?.options === options) this.credentials = undefined;
    });
    return options;
  }

  /** Request options with credentials and the shared agent (a proxy's agent is kept). */
  private async options(method: string, path: string, timeoutMs?: number) {
    const o = await this.credentialOptions();
    const base = this.server.pathname.replace(/\/$/, '');
    return {
      ...o,
      protocol: this.server.protocol,
      hostname: this.server.hostname,
      port: this.server.port,
      path: `${base}${path}`,
      method,
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      headers: {
        ...(o.headers as Record<string, string> | undefined),
        accept: 'application/json',
        'user-agent': berthUserAgent,
        // As kube-scheduler (DisableCompression): the API server would gzip the start-up
        // lists before berth could read them, costing both sides CPU.
        'accept-encoding': 'identity',
      } as Record<string, string>,
    };
  }

  private send(options: RequestOptions) {
    const req = options.protocol === 'http:' ? httpRequest(options) : httpsRequest(options);
    const shared = this.shared;
    // Keeps the first TLS session of the shared pool's connections, for the watches.
    if (shared !== undefined && options.agent === shared && this.session?.basis !== shared)
      req.once('socket', (socket) =>
        socket.once('session', (session: Buffer) => {
          if (this.shared === shared) this.session = { basis: shared, session };
        }),
      );
    return req;
  }

  /**
   * Sends `body` (already JSON) and resolves with the 2xx answer's text; throws as the class
   * says otherwise, or a FencedWriteError (nothing sent) when the fence refuses a write.
   * `timeoutMs` bounds each silence (no connection, no answer, no byte of the body), not the
   * whole exchange.
   */
  async request(
    method: string,
    path: string,
    body: string | undefined,
    opts: { timeoutMs: number; contentType?: string },
  ): Promise<string> {
    const options = await this.options(method, path, opts.timeoutMs);
    if (body !== undefined)
      options.headers = {
        ...options.headers,
        'content-type': opts.contentType ?? 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      };
    // Refused before a connection is even asked for; asked again once it has one (endFenced).
    checkFence(this.fence, method, path);
    return new Promise((resolve, reject) => {
      const req = this.send(options);
      req.on('timeout', () => req.destroy(timeoutError(method, path, opts.timeoutMs)));
      req.on('error', reject);
      req.on('response', (res: IncomingMessage) => {
        readBody(res).then((text) => {
          const code = res.statusCode ?? 0;
          if (code >= 200 && code < 300) resolve(text);
          else reject(new ApiStatusError(code, text, res.headers));
        }, reject);
      });
      endFenced(req, this.fence, method, path, body);
    });
  }

  /**
   * GETs one page of a list (`query` added) and hands each item of its `items`, parsed, to
   * `onItem` as soon as the item has arrived, so the caller folds the list while the rest is
   * still on the wire. Resolves with the page's resourceVersion and continue token. Throws as
   * the class says, or a ListFormatError (a 2xx body that is not a list, or one cut short),
   * after the items that did arrive were handed over. `timeoutMs` bounds each silence.
   * With `protobuf`, the list is asked for as Kubernetes protobuf (JSON accepted too, which
   * is what the server sends for custom resources) and each protobuf item is handed over as
   * `protobuf` decodes it (already trimmed: `onItem`'s `trimmed` is then true); a body it
   * cannot read throws a ProtoFormatError.
   */
  async list(
    path: string,
    query: Record<string, string | number | undefined>,
    opts: { timeoutMs: number; protobuf?: ProtoItemDecoder },
    onItem: (item: unknown, trimmed: boolean) => void,
  ): Promise<ListMetadata> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const q = params.size === 0 ? '' : `?${params}`;
    const options = await this.options('GET', `${path}${q}`, opts.timeoutMs);
    const decode = opts.protobuf;
    // Asked for protobuf, the server may still answer JSON (custom resources have no protobuf).
    if (decode !== undefined) options.headers.accept = `${protobufMediaType}, application/json`;
    return new Promise((resolve, reject) => {
      const req = this.send(options);
      const fail = (err: unknown) => {
        req.destroy();
        reject(err);
      };
      req.on('timeout', () => req.destroy(timeoutError('GET', path, opts.timeoutMs)));
      req.on('error', reject);
      req.on('response', (res: IncomingMessage) => {
        const code = res.statusCode ?? 0;
        if (code < 200 || code > 299) {
          errorText(res).then(
            (text) => reject(new ApiStatusError(code, text, res.headers)),
            reject,
          );
          return;
        }
        const splitter = splitterFor(res, decode, onItem);
        res.on('data', (chunk: string | Buffer) => {
          try {
            splitter.push(chunk);
          } catch (err) {
            fail(err);
          }
        });
        res.on('end', () => {
          try {
            resolve(splitter.end());
          } catch (err) {
            reject(err);
          }
        });
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`GET ${path}: the connection closed mid-list`)));
      });
      req.end();
    });
  }

  /**
   * Watches `path` (`watch=true` and `query` added): each newline-delimited event is parsed
   * once and handed over; lines that are not JSON are skipped. A non-200 answer closes with an
   * error carrying `statusCode`, as client-node's Watch does. `onClose` is called once.
   */
  async watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    handlers: DirectWatchHandlers,
  ): Promise<{ abort(): void }> {
    const params = new URLSearchParams({ watch: 'true' });
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const options = await this.options('GET', `${path}?${params}`);
    // A watch holds its connection for minutes: keep it off the shared pool.
    if (options.agent === this.shared && this.shared !== undefined) {
      options.agent = this.watchAgentFor(this.shared);
      // Resumes a session of the pool (same TLS identity), even for the first watch.
      // (tls.connect takes `session`; https.request passes it through but does not type it.)
      if (this.session?.basis === this.shared)
        Object.assign(options, { session: this.session.session });
    }
    let closed = false;
    const close = (err: unknown) => {
      if (closed) return;
      closed = true;
      req.destroy();
      handlers.onClose(err);
    };
    const req = this.send(options);
    req.on('error', (err) => close(err));
    req.on('response', (res: IncomingMessage) => {
      const code = res.statusCode ?? 0;
      if (code !== 200) {
        res.resume();
        const err = Object.assign(new Error(res.statusMessage ?? `HTTP ${code}`), {
          statusCode: code,
        });
        close(err);
        return;
      }
      res.socket?.setKeepAlive(true, 30_000);
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        let text = rest + chunk;
        let nl = text.indexOf('\n');
        let start = 0;
        while (nl >= 0) {
          if (nl > start) this.deliver(text.slice(start, nl), handlers);
          if (closed) return;
          start = nl + 1;
          nl = text.indexOf('\n', start);
        }
        text = text.slice(start);
        rest = text;
      });
      res.on('end', () => close(null));
      res.on('error', (err) => close(err));
      res.on('close', () => close(null));
    });
    req.end();
    // The caller knows it aborted: no onClose for that (a late one would look like a
    // server-side close).
    return {
      abort: () => {
        closed = true;
        req.destroy();
      },
    };
  }

  /**
   * One agent for all watches, without keep-alive (a watch's connection is its own), but with
   * the TLS session cache of an agent: a watch opened after the first resumes its TLS session
   * instead of a full handshake with certificate checks. A new TLS identity gets a new agent.
   */
  private watchAgentFor(shared: Agent): Agent {
    if (this.watchAgent?.basis !== shared)
      this.watchAgent = {
        basis: shared,
        agent: new Agent({ ...shared.options, keepAlive: false, maxSockets: Infinity }),
      };
    return this.watchAgent.agent;
  }

  private deliver(line: string, handlers: DirectWatchHandlers): void {
    let event: { type?: unknown; object?: unknown };
    try {
      event = JSON.parse(line) as { type?: unknown; object?: unknown };
    } catch {
      return;
    }
    if (typeof event.type === 'string') handlers.onEvent(event.type, event.object);
  }

  /** Closes the pooled connections. */
  destroy(): void {
    this.shared?.destroy();
  }
}
