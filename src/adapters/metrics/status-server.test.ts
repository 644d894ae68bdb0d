// Tests the status server over real HTTP on a free loopback port: paths, methods, health flips, errors.
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Counter, Gauge, Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DelegatedAuth } from './delegated-auth.ts';
import { defaultAlwaysAllowPaths } from './request-auth.ts';
import { selfSignedCert } from './self-signed-cert.ts';
import { type StatusServer, startStatusServer } from './status-server.ts';

/** A pino logger whose JSON lines land in `lines`. */
function capturingLogger(lines: Record<string, unknown>[]) {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}

/** Sends raw bytes and returns everything the server answers before closing. */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (b) => {
      answer += b.toString('utf8');
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('startStatusServer', () => {
  let registry: Registry;
  let logs: Record<string, unknown>[];
  let live: string | undefined;
  let ready: string | undefined;
  let server: StatusServer;
  const started: StatusServer[] = [];

  const start = async (address = '127.0.0.1:0', reg = registry) => {
    const s = await startStatusServer({
      address,
      registry: reg,
      logger: capturingLogger(logs),
      health: { live: () => live, ready: () => ready },
    });
    started.push(s);
    return s;
  };
  const get = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

  beforeEach(async () => {
    registry = new Registry();
    new Counter({ name: 'test_things_total', help: 'Things.', registers: [registry] }).inc(3);
    logs = [];
    live = undefined;
    ready = 'waiting for the first node and pod lists';
    server = await start();
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });

  it('logs "status server listening" once with the URL of the port it got', async () => {
    const listening = logs.filter((l) => l.msg === 'status server listening');
    expect(listening).toHaveLength(1);
    expect(listening[0]?.url).toBe(server.url);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
  });

  it('serves the registry on /metrics with its content type', async () => {
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(registry.contentType);
    expect(await res.text()).toContain('test_things_total 3');
    const head = await get('/metrics', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answers /healthz and /livez with ok, or 500 and the reason when not live', async () => {
    for (const path of ['/healthz', '/livez']) {
      const res = await get(path);
      expect([res.status, await res.text()]).toEqual([200, 'ok']);
    }
    live = 'the leader lease could not be renewed';
    for (const path of ['/healthz', '/livez']) {
      const res = await get(path);
      expect([res.status, await res.text()]).toEqual([500, live]);
    }
  });

  it('answers /readyz with 503 and the reason until ready, then 200 ok', async () => {
    const before = await get('/readyz');
    expect([before.status, await before.text()]).toEqual([
      503,
      'waiting for the first node and pod lists',
    ]);
    ready = undefined;
    const after = await get('/readyz');
    expect([after.status, await after.text()]).toEqual([200, 'ok']);
    live = 'stuck';
    const dead = await get('/readyz');
    expect([dead.status, await dead.text()]).toEqual([503, 'stuck']);
  });

  it('lists every check with ?verbose, as kube’s health endpoints do', async () => {
    const res = await get('/readyz?verbose');
    expect(res.status).toBe(503);
    expect(await res.text()).toBe(
      '[+]ping ok\n[+]live ok\n[-]ready failed: waiting for the first node and pod lists\n' +
        'readyz check failed\n',
    );
    const livez = await get('/livez?verbose=1');
    expect(await livez.text()).toBe('[+]ping ok\n[+]live ok\nlivez check passed\n');
  });

  it('treats a health check that throws as failing', async () => {
    const s = await startStatusServer({
      address: '127.0.0.1:0',
      registry,
      logger: capturingLogger(logs),
      health: {
        live: () => {
          throw new Error('elector gone');
        },
        ready: () => undefined,
      },
    });
    started.push(s);
    const res = await fetch(`${s.url}/livez`);
    expect([res.status, await res.text()]).toEqual([500, 'check threw: elector gone']);
  });

  it('answers 404 to other paths and 405 to other methods', async () => {
    for (const path of ['/', '/metricsx', '/healthz/extra', '/debug/pprof']) {
      expect((await get(path)).status, path).toBe(404);
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await get('/metrics', { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('answers a malformed request with 400 and keeps serving', async () => {
    const port = Number(new URL(server.url).port);
    expect(await rawRequest(port, 'this is not http\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    expect(
      await rawRequest(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
    ).toMatch(/^HTTP\/1\.1 400 /);
    expect((await get('/livez')).status).toBe(200);
  });

  it('answers 500 when collecting metrics fails, logs it, and keeps serving', async () => {
    const broken = new Registry();
    new Gauge({
      name: 'test_broken',
      help: 'Fails to collect.',
      registers: [broken],
      collect: () => {
        throw new Error('core unavailable');
      },
    });
    server = await start('127.0.0.1:0', broken);
    const res = await get('/metrics');
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('core unavailable');
    expect(logs.some((l) => l.msg === 'collecting metrics failed')).toBe(true);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('rejects with a message naming the address when the port is in use', async () => {
    const address = `127.0.0.1:${new URL(server.url).port}`;
    await expect(start(address)).rejects.toThrow(
      `status server cannot listen on ${address}: the address is already in use (EADDRINUSE)`,
    );
  });

  it('listens on IPv6 loopback when asked', async () => {
    server = await start('[::1]:0');
    expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('refuses to start when the address disables it, and explains a bad one', async () => {
    await expect(start('0')).rejects.toThrow(/disabled/);
    await expect(start('nonsense')).rejects.toThrow(/--metrics-bind-address must be HOST:PORT/);
  });

  it('stops listening on close (twice is fine)', async () => {
    const url = server.url;
    await server.close();
    await server.close();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});

/** GETs `url` over HTTPS trusting only `ca`, with an optional bearer token. */
function httpsGet(
  url: string,
  ca: string,
  token?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const req = httpsRequest(url, { ca, servername: 'localhost', headers }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => {
        body += b.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('startStatusServer over HTTPS with delegated authentication', () => {
  const tls = selfSignedCert({
    commonName: 'berth@test',
    hosts: ['localhost', '127.0.0.1'],
    notBefore: new Date(Date.now() - 3_600_000),
    notAfter: new Date(Date.now() + 3_600_000),
  });
  let server: StatusServer;
  let reviews: string[];

  beforeEach(async () => {
    reviews = [];
    const registry = new Registry();
    new Counter({ name: 'test_secure_total', help: 'Things.', registers: [registry] }).inc(2);
    const post = async (path: string, text: string) => {
      reviews.push(path.split('/').pop() ?? path);
      const spec = JSON.parse(text).spec;
      if (path.endsWith('tokenreviews'))
        return JSON.stringify({
          status: { authenticated: spec.token !== 'forged', user: { username: spec.token } },
        });
      return JSON.stringify({ status: { allowed: spec.user === 'scraper' } });
    };
    server = await startStatusServer({
      address: '127.0.0.1:0',
      registry,
      logger: pino({ level: 'silent' }),
      health: { live: () => undefined, ready: () => undefined },
      tls,
      access: {
        alwaysAllowPaths: defaultAlwaysAllowPaths,
        auth: new DelegatedAuth({ post, now: () => performance.now() }),
      },
    });
  });

  afterEach(async () => {
    await server.close();
  });

  it('serves /metrics over TLS only to a token whose user may get it', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ok = await httpsGet(`${server.url}/metrics`, tls.cert, 'scraper');
    expect([ok.status, ok.body.includes('test_secure_total 2')]).toEqual([200, true]);
    expect((await httpsGet(`${server.url}/metrics`, tls.cert)).status).toBe(401);
    expect((await httpsGet(`${server.url}/metrics`, tls.cert, 'forged')).status).toBe(401);
    expect((await httpsGet(`${server.url}/metrics`, tls.cert, 'someone-else')).status).toBe(403);
    expect(reviews).toEqual([
      'tokenreviews',
      'subjectaccessreviews',
      'tokenreviews',
      'tokenreviews',
      'subjectaccessreviews',
    ]);
  });

  it('leaves /healthz, /livez and /readyz open', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await httpsGet(`${server.url}${path}`, tls.cert);
      expect([path, res.status, res.body]).toEqual([path, 200, 'ok']);
    }
    expect(reviews).toEqual([]);
  });

  it('does not answer plain HTTP on the secure port', async () => {
    await expect(fetch(`${server.url.replace('https:', 'http:')}/readyz`)).rejects.toThrow();
  });
});
