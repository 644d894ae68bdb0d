// The status server of `berth run`: /metrics, /healthz, /livez and /readyz, over HTTPS with delegated auth or plain HTTP.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { type BindAddress, parseBindAddress } from './bind-address.ts';
import { checkRequest, type RequestAuthOptions } from './request-auth.ts';
import type { ServingCert } from './self-signed-cert.ts';

export { type BindAddress, parseBindAddress } from './bind-address.ts';

/** The process's health: each returns undefined when healthy, else why not. */
export interface HealthChecks {
  /** Liveness (/healthz, /livez): failing means the process should be restarted. */
  live(): string | undefined;
  /** Readiness (/readyz): failing means it should not receive work yet. */
  ready(): string | undefined;
}

/** What the server is built from. */
export interface StatusServerOptions {
  /** `HOST:PORT` as `--metrics-bind-address` takes it; port 0 picks a free port. */
  address: string;
  registry: Registry;
  health: HealthChecks;
  logger: Logger;
  /** Serve HTTPS with this certificate (else plain HTTP). */
  tls?: ServingCert;
  /** Check every request but the always-allowed paths (TokenReview + SubjectAccessReview). */
  access?: Omit<RequestAuthOptions, 'logger'>;
}

/** A listening status server. */
export interface StatusServer {
  /** `http://HOST:PORT` (`https://` with `tls`) with the port actually bound. */
  url: string;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

type Check = readonly [name: string, run: () => string | undefined];

const plainText = 'text/plain; charset=utf-8';

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string,
  contentType = plainText,
): void {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function runCheck(run: () => string | undefined): string | undefined {
  try {
    return run();
  } catch (error) {
    return `check threw: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** kube's health endpoints: "ok", or the first failure; `?verbose` lists every check. */
function health(
  endpoint: string,
  checks: readonly Check[],
  verbose: boolean,
): { ok: boolean; body: string } {
  const results = checks.map(([name, run]) => ({ name, failure: runCheck(run) }));
  const failed = results.find((r) => r.failure !== undefined);
  if (!verbose) return { ok: failed === undefined, body: failed?.failure ?? 'ok' };
  const lines = results.map((r) =>
    r.failure === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.failure}`,
  );
  lines.push(`${endpoint} check ${failed === undefined ? 'passed' : 'failed'}`);
  return { ok: failed === undefined, body: `${lines.join('\n')}\n` };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  opts: StatusServerOptions,
): Promise<void> {
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const verbose = q >= 0 && new URLSearchParams(target.slice(q + 1)).has('verbose');
  if (opts.access !== undefined) {
    const authorization = req.headers.authorization;
    const access = { ...opts.access, logger: opts.logger };
    const refusal = await checkRequest(access, path, req.method ?? 'GET', authorization);
    if (refusal !== undefined)
      return send(req, res, refusal.status, refusal.body, 'application/json');
  }
  const endpoint = { '/metrics': 1, '/healthz': 1, '/livez': 1, '/readyz': 1 }[path];
  if (endpoint === undefined) return send(req, res, 404, `${path} not found\n`);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return send(req, res, 405, `${req.method} not allowed; use GET or HEAD\n`);
  }
  const live: Check = ['live', () => opts.health.live()];
  if (path === '/readyz') {
    const r = health(
      'readyz',
      [['ping', () => undefined], live, ['ready', opts.health.ready]],
      verbose,
    );
    return send(req, res, r.ok ? 200 : 503, r.body);
  }
  if (path === '/healthz' || path === '/livez') {
    const r = health(path.slice(1), [['ping', () => undefined], live], verbose);
    return send(req, res, r.ok ? 200 : 500, r.body);
  }
  if (req.method === 'HEAD') return send(req, res, 200, '', opts.registry.contentType);
  try {
    send(req, res, 200, await opts.registry.metrics(), opts.registry.contentType);
  } catch (error) {
    opts.logger.error({ err: error }, 'collecting metrics failed');
    const why = error instanceof Error ? error.message : String(error);
    send(req, res, 500, `collecting metrics failed: ${why}\n`);
  }
}

function describeListenError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return 'the address is already in use (EADDRINUSE)';
    case 'EADDRNOTAVAIL':
      return 'no interface of this host has that address (EADDRNOTAVAIL)';
    case 'EACCES':
      return 'permission denied (EACCES; ports below 1024 need privileges)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name does not resolve (${error.code})`;
    default:
      return error.message;
  }
}

function listen(server: Server, bind: BindAddress, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(
        new Error(`status server cannot listen on ${address}: ${describeListenError(error)}`, {
          cause: error,
        }),
      );
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port: bind.port, ...(bind.host === '' ? {} : { host: bind.host }) });
  });
}

function urlOf(scheme: string, info: AddressInfo | string | null): string {
  if (info === null || typeof info === 'string') return `${scheme}://${info ?? 'unknown'}`;
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  return `${scheme}://${host}:${info.port}`;
}

/**
 * Starts the status server on `address`. Rejects with a message naming the address when it
 * cannot listen (port in use, unknown host), and when `address` is `0` (disabled). Logs
 * `status server listening` with the `url` once listening. A bad request gets a 4xx answer;
 * nothing a client sends can crash the process.
 */
export async function startStatusServer(opts: StatusServerOptions): Promise<StatusServer> {
  const bind = parseBindAddress(opts.address);
  if (bind === undefined)
    throw new Error(`status server is disabled (--metrics-bind-address ${opts.address})`);
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res, opts).catch((error: unknown) => {
      opts.logger.error({ err: error, url: req.url }, 'status request failed');
      if (!res.headersSent) send(req, res, 500, 'internal error\n');
      else res.destroy();
    });
  };
  const server: Server =
    opts.tls === undefined
      ? createServer(onRequest)
      : createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, onRequest);
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  await listen(server, bind, opts.address);
  server.on('error', (error) => opts.logger.error({ err: error }, 'status server error'));
  const url = urlOf(opts.tls === undefined ? 'http' : 'https', server.address());
  opts.logger.info({ url, authenticated: opts.access !== undefined }, 'status server listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
