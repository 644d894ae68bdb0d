// Tests DirectHttp against a real local HTTP server: credentials, bodies, API errors, timeouts and watch streams.
import {
  createServer,
  Agent as HttpAgent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { localKubeConfig } from '../../../test/support/local-kubeconfig.ts';
import { berthVersion } from '../version.ts';
import { ApiStatusError, describeApiError } from './api-error.ts';
import { DirectHttp, type DirectWatchHandlers } from './direct-http.ts';
import { ListFormatError } from './list-splitter.ts';
import { FencedWriteError } from './write-fence.ts';

/** What the server saw of one request (the last one on its path). */
interface Seen {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
  /** The connection went away before the response was finished (client gave up or aborted). */
  hungUp: boolean;
}

type Route = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

const seen = new Map<string, Seen>();

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** One watch event as the API server frames it: a JSON object and a newline. */
function line(event: unknown): string {
  return `${JSON.stringify(event)}\n`;
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(text);
}

function status(code: number, reason: string, message: string) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
}

const conflictMessage =
  'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned';

const streamed = [
  { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '6' } } },
  { type: 'MODIFIED', object: { metadata: { name: 'b', resourceVersion: '7' } } },
  { type: 'DELETED', object: { metadata: { name: 'c', resourceVersion: '8' } } },
  { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } },
  { type: 'ADDED', object: { metadata: { name: 'ünïcode-é', resourceVersion: '10' } } },
];

/** Answers of `/held` wait here until the test lets them go. */
const held: (() => void)[] = [];

const routes: Record<string, Route> = {
  '/held': (_req, res) => {
    held.push(() => sendJson(res, 200, { kind: 'Pod' }));
  },
  '/api/v1/namespaces/ns/pods/p/binding': (_req, res) => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end('{"kind":"Status","status":"Success","code":201}');
  },
  '/api/v1/namespaces/ns/pods/patched': (_req, res) => sendJson(res, 200, { kind: 'Pod' }),
  '/k8s/version': (_req, res) => sendJson(res, 200, { gitVersion: 'v1.31.0' }),
  '/api/v1/namespaces/ns/pods/conflict/binding': (_req, res) =>
    sendJson(res, 409, status(409, 'Conflict', conflictMessage)),
  '/api/v1/namespaces/ns/pods/broken': (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('upstream exploded');
  },
  // Never answers.
  '/api/v1/namespaces/ns/pods/hang': () => {},
  // Headers and half a body, then silence.
  '/api/v1/namespaces/ns/pods/stall': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"kind":"Pod",');
  },
  // Events split across chunks at awkward places, with noise the client must skip.
  '/api/v1/namespaces/stream/pods': async (_req, res) => {
    const [a, b, c, bookmark, wide] = streamed.map(line) as [
      string,
      string,
      string,
      string,
      string,
    ];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(a.slice(0, 17));
    await sleep(15);
    res.write(a.slice(17) + b + c.slice(0, 10));
    await sleep(15);
    res.write(`${c.slice(10)}\nnot json at all\n{"no":"type"}\n`);
    await sleep(15);
    res.write(bookmark);
    await sleep(15);
    // Cut in the middle of a two-byte UTF-8 character.
    const bytes = Buffer.from(wide, 'utf8');
    const cut = bytes.indexOf(0xc3) + 1;
    res.write(bytes.subarray(0, cut));
    await sleep(15);
    res.end(bytes.subarray(cut));
  },
  '/api/v1/namespaces/gone/pods': (_req, res) =>
    sendJson(res, 410, status(410, 'Expired', 'too old resource version: 5 (120)')),
  '/api/v1/namespaces/forbidden/pods': (_req, res) =>
    sendJson(res, 403, status(403, 'Forbidden', 'pods is forbidden')),
  // One event every 10 ms until the client goes away.
  '/api/v1/namespaces/endless/pods': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let n = 0;
    const tick = () =>
      res.write(line({ type: 'ADDED', object: { metadata: { name: `p${n++}` } } }));
    tick();
    const timer = setInterval(tick, 10);
    res.on('close', () => clearInterval(timer));
  },
  // Three events in one chunk, then the stream stays open.
  '/api/v1/namespaces/burst/pods': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(streamed.slice(0, 3).map(line).join(''));
  },
  // One event, then the connection is reset mid-stream.
  '/api/v1/namespaces/cut/pods': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(line(streamed[0]));
    setTimeout(() => req.socket.destroy(), 20);
  },
  // A watch that never gets its headers.
  '/api/v1/namespaces/silent/pods': () => {},
  // A list sent in two parts: the rest only once the client has handed over the first item.
  '/api/v1/namespaces/listed/pods': async (_req, res) => {
    const text = JSON.stringify(listed);
    const cut = text.indexOf('"b"');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(text.slice(0, cut));
    await firstItemHandedOver.promise;
    res.end(text.slice(cut));
  },
  // Half a list, then the connection is reset.
  '/api/v1/namespaces/cutlist/pods': (req, res) => {
    const text = JSON.stringify(listed);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(text.slice(0, text.indexOf('"b"')));
    setTimeout(() => req.socket.destroy(), 20);
  },
  '/api/v1/namespaces/html/pods': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>a proxy says hello</html>');
  },
};

const listed = {
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '42', continue: 'next-page' },
  items: [
    { metadata: { name: 'a', creationTimestamp: '2025-01-01T00:00:00Z' }, spec: { x: '}"]' } },
    { metadata: { name: 'b' } },
  ],
};

/** Resolved by the list test when the first item reached it. */
const firstItemHandedOver = (() => {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
})();

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://local');
  const record: Seen = {
    method: req.method ?? '',
    url,
    headers: req.headers,
    body: '',
    hungUp: false,
  };
  seen.set(url.pathname, record);
  res.on('close', () => {
    if (!res.writableFinished) record.hungUp = true;
  });
  const chunks: Buffer[] = [];
  req.on('data', (b: Buffer) => chunks.push(b));
  req.on('end', () => {
    record.body = Buffer.concat(chunks).toString('utf8');
    const route = routes[url.pathname];
    if (route === undefined) sendJson(res, 404, status(404, 'NotFound', 'no route'));
    else void route(req, res);
  });
}

function listen(s: Server): Promise<number> {
  return new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)),
  );
}

function closeServer(s: Server): Promise<void> {
  s.closeAllConnections();
  return new Promise((resolve) => s.close(() => resolve()));
}

/** Records what a watch hands over. */
function recorder() {
  const events: Array<[string, unknown]> = [];
  const closes: unknown[] = [];
  const handlers: DirectWatchHandlers = {
    onEvent: (type, object) => events.push([type, object]),
    onClose: (err) => closes.push(err),
  };
  return { events, closes, handlers };
}

/** The rejection of `promise` (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

const poll = { timeout: 2000, interval: 5 };

let server: Server;
let port: number;
let http: DirectHttp;

beforeAll(async () => {
  server = createServer(handle);
  port = await listen(server);
  http = new DirectHttp(localKubeConfig(`http://127.0.0.1:${port}`));
});

afterAll(async () => {
  http.destroy();
  await closeServer(server);
});

describe('DirectHttp.request', () => {
  it('sends the body with credentials and JSON headers and resolves with the answer', async () => {
    const body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'p' },
      target: { kind: 'Node', name: 'nöde-1' },
    });
    const text = await http.request('POST', '/api/v1/namespaces/ns/pods/p/binding', body, {
      timeoutMs: 2000,
    });
    expect(text).toBe('{"kind":"Status","status":"Success","code":201}');
    const req = seen.get('/api/v1/namespaces/ns/pods/p/binding');
    expect(req?.method).toBe('POST');
    expect(req?.body).toBe(body);
    expect(req?.headers['content-type']).toBe('application/json');
    // Bytes, not characters: the body holds a non-ASCII name.
    expect(req?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length);
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers.authorization).toBe('Bearer secret-token');
    // Named as client-go names its programs, with berth's own version.
    expect(req?.headers['user-agent']).toBe(
      `berth/${berthVersion} (${process.platform}/${process.arch}) node/${process.versions.node}`,
    );
    expect(berthVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('asks the fence after every wait, immediately before a write goes out: a refused write never reaches the server, reads are never fenced', async () => {
    let refusal: string | undefined;
    let credentialsRead = () => {};
    const kc = localKubeConfig(`http://127.0.0.1:${port}`);
    // The credentials take a while (an exec plugin): leadership is lost meanwhile.
    kc.applyToHTTPSOptions = (o) =>
      new Promise<void>((resolve) => {
        credentialsRead = () => {
          o.headers = { ...o.headers, authorization: 'Bearer slow' };
          resolve();
        };
      });
    const fenced = new DirectHttp(kc, { fence: { refusal: () => refusal } });
    try {
      seen.delete('/api/v1/namespaces/ns/pods/patched');
      const write = fenced.request('PATCH', '/api/v1/namespaces/ns/pods/patched', '{}', {
        timeoutMs: 2000,
      });
      await sleep(5);
      refusal = 'not the leader (lost)';
      credentialsRead();
      const err = await rejection(write);
      expect(err).toBeInstanceOf(FencedWriteError);
      expect((err as Error).message).toBe(
        'PATCH /api/v1/namespaces/ns/pods/patched not sent: not the leader (lost)',
      );
      await sleep(20);
      expect(seen.has('/api/v1/namespaces/ns/pods/patched')).toBe(false);
      // Reads go on (a standby keeps its watches); writes go again once the fence allows.
      expect(await fenced.request('GET', '/k8s/version', undefined, { timeoutMs: 2000 })).toContain(
        'v1.31.0',
      );
      refusal = undefined;
      await fenced.request('PATCH', '/api/v1/namespaces/ns/pods/patched', '{}', {
        timeoutMs: 2000,
      });
      expect(seen.get('/api/v1/namespaces/ns/pods/patched')?.method).toBe('PATCH');
    } finally {
      fenced.destroy();
    }
  });

  it('asks the fence again when a write gets its socket: one queued behind a busy connection is not sent once leadership is gone', async () => {
    let refusal: string | undefined;
    const kc = localKubeConfig(`http://127.0.0.1:${port}`);
    // One connection only, as a saturated keep-alive pool: the second request waits for it.
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    kc.applyToHTTPSOptions = async (o) => {
      o.agent = agent;
    };
    const fenced = new DirectHttp(kc, { fence: { refusal: () => refusal } });
    try {
      const first = fenced.request('PATCH', '/held', '{}', { timeoutMs: 5000 });
      await vi.waitFor(() => expect(held).toHaveLength(1), poll);
      seen.delete('/api/v1/namespaces/ns/pods/patched');
      // Passes the first check (the fence allows it now), then waits for the socket.
      const second = fenced.request('PATCH', '/api/v1/namespaces/ns/pods/patched', '{}', {
        timeoutMs: 5000,
      });
      await sleep(20);
      refusal = 'no renew of the lease succeeded within the renew deadline';
      held.shift()?.();
      await first;
      const err = await rejection(second);
      expect(err).toBeInstanceOf(FencedWriteError);
      await sleep(20);
      expect(seen.has('/api/v1/namespaces/ns/pods/patched')).toBe(false);
    } finally {
      for (const release of held.splice(0)) release();
      fenced.destroy();
      agent.destroy();
    }
  });

  it('reads the credentials again once they are older than the TTL, and after a failure', async () => {
    let now = 0;
    let token = 'first';
    let broken = false;
    const kc = localKubeConfig(`http://127.0.0.1:${port}`);
    // As a token file or exec plugin would: what the kubeconfig gives changes over time.
    kc.applyToHTTPSOptions = async (o) => {
      if (broken) throw new Error('exec plugin failed');
      o.headers = { ...o.headers, authorization: `Bearer ${token}` };
    };
    const rotating = new DirectHttp(kc, { now: () => now, credentialsTtlMs: 1000 });
    const sentToken = async () => {
      await rotating.request('GET', '/k8s/version', undefined, { timeoutMs: 2000 });
      return seen.get('/k8s/version')?.headers.authorization;
    };
    try {
      expect(await sentToken()).toBe('Bearer first');
      token = 'second';
      now = 999;
      expect(await sentToken()).toBe('Bearer first');
      now = 1000;
      expect(await sentToken()).toBe('Bearer second');
      broken = true;
      now = 2500;
      await expect(sentToken()).rejects.toThrow('exec plugin failed');
      broken = false;
      token = 'third';
      // Not kept: the very next request reads them again.
      expect(await sentToken()).toBe('Bearer third');
    } finally {
      rotating.destroy();
    }
  });

  it('sends the given content type', async () => {
    const body = '{"metadata":{"labels":{"a":"b"}}}';
    await http.request('PATCH', '/api/v1/namespaces/ns/pods/patched', body, {
      timeoutMs: 2000,
      contentType: 'application/strategic-merge-patch+json',
    });
    const req = seen.get('/api/v1/namespaces/ns/pods/patched');
    expect(req?.method).toBe('PATCH');
    expect(req?.headers['content-type']).toBe('application/strategic-merge-patch+json');
    expect(req?.body).toBe(body);
  });

  it("keeps the server URL's path and sends no content headers without a body", async () => {
    const other = new DirectHttp(localKubeConfig(`http://127.0.0.1:${port}/k8s/`));
    try {
      const text = await other.request('GET', '/version', undefined, { timeoutMs: 2000 });
      expect(JSON.parse(text)).toEqual({ gitVersion: 'v1.31.0' });
      const req = seen.get('/k8s/version');
      expect(req?.headers['content-type']).toBeUndefined();
      expect(req?.headers.authorization).toBe('Bearer secret-token');
    } finally {
      other.destroy();
    }
  });

  it('rejects a 409 with the Status reason and message', async () => {
    const err = await rejection(
      http.request('POST', '/api/v1/namespaces/ns/pods/conflict/binding', '{}', {
        timeoutMs: 2000,
      }),
    );
    expect(err).toBeInstanceOf(ApiStatusError);
    expect(describeApiError(err)).toEqual({
      code: 409,
      reason: 'Conflict',
      message: conflictMessage,
      network: false,
    });
  });

  it('rejects a 500 with a non-JSON body', async () => {
    const err = await rejection(
      http.request('GET', '/api/v1/namespaces/ns/pods/broken', undefined, { timeoutMs: 2000 }),
    );
    const failure = describeApiError(err);
    expect(failure.code).toBe(500);
    expect(failure.network).toBe(false);
    expect(failure.message).toBe('upstream exploded');
  });

  it('times out when the server never answers, and drops the connection', async () => {
    const start = Date.now();
    const err = await rejection(
      http.request('GET', '/api/v1/namespaces/ns/pods/hang', undefined, { timeoutMs: 200 }),
    );
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(1000);
    expect(describeApiError(err)).toEqual({
      code: undefined,
      reason: undefined,
      message: 'request aborted (timed out)',
      network: true,
    });
    await expect.poll(() => seen.get('/api/v1/namespaces/ns/pods/hang')?.hungUp, poll).toBe(true);
  });

  it('times out when the answer stalls mid-body', async () => {
    const start = Date.now();
    const err = await rejection(
      http.request('GET', '/api/v1/namespaces/ns/pods/stall', undefined, { timeoutMs: 200 }),
    );
    expect(Date.now() - start).toBeLessThan(1000);
    expect(describeApiError(err).message).toBe('request aborted (timed out)');
  });

  it('rejects a refused connection as a network failure', async () => {
    const closed = createServer();
    const closedPort = await listen(closed);
    await closeServer(closed);
    const refused = new DirectHttp(localKubeConfig(`http://127.0.0.1:${closedPort}`));
    try {
      const err = await rejection(
        refused.request('GET', '/api/v1/nodes', undefined, { timeoutMs: 2000 }),
      );
      const failure = describeApiError(err);
      expect(failure.network).toBe(true);
      expect(failure.code).toBeUndefined();
      expect(failure.message).toContain('ECONNREFUSED');
    } finally {
      refused.destroy();
    }
  });
});

describe('DirectHttp.watch', () => {
  it('asks for a watch and hands over each event in order, however the stream is chunked', async () => {
    const { events, closes, handlers } = recorder();
    await http.watch(
      '/api/v1/namespaces/stream/pods',
      { resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 300, skipped: undefined },
      handlers,
    );
    await expect.poll(() => closes.length, poll).toBe(1);
    const req = seen.get('/api/v1/namespaces/stream/pods');
    expect(req?.method).toBe('GET');
    expect(req?.url.search).toBe(
      '?watch=true&resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=300',
    );
    expect(req?.headers.authorization).toBe('Bearer secret-token');
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['user-agent']).toMatch(/^berth\//);
    expect(events).toEqual(streamed.map((e) => [e.type, e.object]));
    await sleep(50);
    expect(closes).toEqual([null]);
  });

  it.each([
    [410, 'Gone'],
    [403, 'Forbidden'],
  ])('closes once with the status code when the watch is answered %i', async (code, reason) => {
    const { events, closes, handlers } = recorder();
    const path =
      code === 410 ? '/api/v1/namespaces/gone/pods' : '/api/v1/namespaces/forbidden/pods';
    await http.watch(path, { resourceVersion: '5' }, handlers);
    await expect.poll(() => closes.length, poll).toBe(1);
    await sleep(50);
    expect(closes).toHaveLength(1);
    expect(events).toEqual([]);
    const err = closes[0] as { statusCode?: unknown };
    expect(err.statusCode).toBe(code);
    const failure = describeApiError(err);
    expect(failure.code).toBe(code);
    expect(failure.reason).toBe(reason);
    expect(failure.network).toBe(false);
  });

  it('closes with a network error when the connection is cut mid-stream', async () => {
    const { events, closes, handlers } = recorder();
    await http.watch('/api/v1/namespaces/cut/pods', {}, handlers);
    await expect.poll(() => closes.length, poll).toBe(1);
    expect(events).toEqual([['ADDED', streamed[0]?.object]]);
    expect(closes[0]).not.toBeNull();
    expect(describeApiError(closes[0]).network).toBe(true);
    await sleep(50);
    expect(closes).toHaveLength(1);
  });

  it('abort() drops the connection without a close callback or further events', async () => {
    const { events, closes, handlers } = recorder();
    const watch = await http.watch('/api/v1/namespaces/endless/pods', {}, handlers);
    await expect.poll(() => events.length, poll).toBeGreaterThanOrEqual(2);
    watch.abort();
    const delivered = events.length;
    await expect.poll(() => seen.get('/api/v1/namespaces/endless/pods')?.hungUp, poll).toBe(true);
    await sleep(100);
    expect(closes).toEqual([]);
    expect(events).toHaveLength(delivered);
  });

  it('abort() from an event handler stops the rest of the chunk', async () => {
    const { events, closes, handlers } = recorder();
    let watch: { abort(): void } | undefined;
    watch = await http.watch(
      '/api/v1/namespaces/burst/pods',
      {},
      {
        onEvent: (type, object) => {
          handlers.onEvent(type, object);
          watch?.abort();
        },
        onClose: handlers.onClose,
      },
    );
    await expect.poll(() => events.length, poll).toBe(1);
    await expect.poll(() => seen.get('/api/v1/namespaces/burst/pods')?.hungUp, poll).toBe(true);
    await sleep(50);
    expect(events).toEqual([['ADDED', streamed[0]?.object]]);
    expect(closes).toEqual([]);
  });

  it('abort() before the answer arrives calls no close callback', async () => {
    const { events, closes, handlers } = recorder();
    const watch = await http.watch('/api/v1/namespaces/silent/pods', {}, handlers);
    await expect.poll(() => seen.has('/api/v1/namespaces/silent/pods'), poll).toBe(true);
    watch.abort();
    await expect.poll(() => seen.get('/api/v1/namespaces/silent/pods')?.hungUp, poll).toBe(true);
    await sleep(100);
    expect(closes).toEqual([]);
    expect(events).toEqual([]);
  });
});

describe('DirectHttp.list', () => {
  it('hands over each item while the rest of the list is still on the wire', async () => {
    const items: unknown[] = [];
    const page = await http.list(
      '/api/v1/namespaces/listed/pods',
      { limit: 500, resourceVersion: '0', continue: undefined },
      { timeoutMs: 5_000 },
      (item) => {
        items.push(item);
        // The server sends the second item only after this.
        if (items.length === 1) firstItemHandedOver.resolve();
      },
    );
    expect(items).toEqual(listed.items);
    expect(page).toEqual({ resourceVersion: '42', continue: 'next-page' });
    const asked = seen.get('/api/v1/namespaces/listed/pods');
    expect(asked?.url.search).toBe('?limit=500&resourceVersion=0');
    expect(asked?.headers.authorization).toBe('Bearer secret-token');
  });

  it('rejects a list cut short, after handing over the items that arrived', async () => {
    const items: unknown[] = [];
    const err = await rejection(
      http.list('/api/v1/namespaces/cutlist/pods', {}, { timeoutMs: 5_000 }, (i) => items.push(i)),
    );
    expect(items).toEqual([listed.items[0]]);
    expect(describeApiError(err).message).not.toBe('');
  });

  it('rejects an API error with its code, and a 2xx body that is not a list', async () => {
    const forbidden = await rejection(
      http.list('/api/v1/namespaces/forbidden/pods', {}, { timeoutMs: 5_000 }, () => {}),
    );
    expect(describeApiError(forbidden).code).toBe(403);
    const html = await rejection(
      http.list('/api/v1/namespaces/html/pods', {}, { timeoutMs: 5_000 }, () => {}),
    );
    expect(html).toBeInstanceOf(ListFormatError);
  });
});
