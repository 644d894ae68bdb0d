// Pins how Pod and Node sources ask for protobuf (a body berth cannot decode makes them list JSON from then on) and how a Pod list comes in two parts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import protobuf from 'protobufjs/minimal.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { listenOnLoopback, localKubeConfig } from '../../../test/support/local-kubeconfig.ts';
import { describeApiError } from './api-error.ts';
import type { KubeClients } from './config.ts';
import { DirectHttp } from './direct-http.ts';
import { nodeSource, objectSource, podSource } from './list-watch.ts';
import { ProtoFormatError } from './protobuf/decode.ts';

/** The Accept header of every request, in order. */
const accepts: string[] = [];
/** The query of every request, in order. */
const queries: URLSearchParams[] = [];
/** When set, a pending-pod list at an exact version is answered with this status code. */
let exactRefusal: number | undefined;
/** Pods per page of the JSON answers (all at once unless set). */
let jsonPageSize: number | undefined;

/** The JSON list the fake server keeps: one pod bound to a node, two pending. */
const storedPods = [
  { metadata: { name: 'a' }, spec: { nodeName: 'n1' } },
  { metadata: { name: 'b' }, spec: {} },
  { metadata: { name: 'c' }, spec: {} },
];

/** The stored pods a field selector picks (`spec.nodeName!=` or `spec.nodeName=`). */
function selected(fieldSelector: string | null) {
  if (fieldSelector === 'spec.nodeName!=') return storedPods.filter((p) => p.spec.nodeName);
  if (fieldSelector === 'spec.nodeName=') return storedPods.filter((p) => !p.spec.nodeName);
  return storedPods;
}
/** What the server answers the next protobuf-accepting request with. */
let protobufAnswer: Buffer | undefined;
/** The status code of that answer (200 unless set). */
let protobufCode = 200;

function handle(req: IncomingMessage, res: ServerResponse): void {
  const accept = req.headers.accept ?? '';
  accepts.push(accept);
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  queries.push(query);
  if (exactRefusal !== undefined && query.get('resourceVersionMatch') === 'Exact') {
    res.writeHead(exactRefusal, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', code: exactRefusal, message: 'not at that version' }));
    return;
  }
  if (accept.startsWith('application/vnd.kubernetes.protobuf') && protobufAnswer !== undefined) {
    res.writeHead(protobufCode, { 'content-type': 'application/vnd.kubernetes.protobuf' });
    res.end(protobufAnswer);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  const all = selected(query.get('fieldSelector'));
  const from = Number(query.get('continue') ?? 0);
  const to = jsonPageSize === undefined ? all.length : from + jsonPageSize;
  // Versions: 5 for a list from the cache (and its pages), 7 for one of the current state.
  const resourceVersion = query.get('resourceVersion') === '0' || from > 0 ? '5' : '7';
  res.end(
    JSON.stringify({
      kind: 'List',
      metadata: { resourceVersion, ...(to < all.length ? { continue: String(to) } : {}) },
      items: all.slice(from, to),
    }),
  );
}

let server: Server;
let clients: KubeClients;

beforeAll(async () => {
  server = createServer(handle);
  const http = new DirectHttp(localKubeConfig(await listenOnLoopback(server)));
  // The sources use only the lean HTTP client.
  clients = { http } as KubeClients;
});

afterAll(async () => {
  clients.http.destroy();
  await new Promise((r) => server.close(r));
});

async function listNames(source: ReturnType<typeof podSource>) {
  const names: unknown[] = [];
  const meta = await source.list({ fromCache: true }, (item) =>
    names.push((item as { metadata: { name: unknown } }).metadata.name),
  );
  return { names, meta };
}

/** A meta/v1 Status in kube's protobuf envelope, as kube-apiserver writes an error. */
function protobufStatus(code: number, reason: string, message: string): Buffer {
  const status = protobuf.Writer.create();
  status.uint32(18).string('Failure').uint32(26).string(message).uint32(34).string(reason);
  status.uint32(48).int32(code);
  const envelope = protobuf.Writer.create();
  envelope
    .uint32(10)
    .bytes(protobuf.Writer.create().uint32(10).string('v1').uint32(18).string('Status').finish());
  envelope.uint32(18).bytes(status.finish());
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), envelope.finish()]);
}

describe('list sources and protobuf', () => {
  it('an error answered in protobuf reads as the Status it carries', async () => {
    protobufAnswer = protobufStatus(403, 'Forbidden', 'pods is forbidden: no list for you');
    protobufCode = 403;
    try {
      const err = await listNames(podSource(clients)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(describeApiError(err)).toMatchObject({
        code: 403,
        message: 'pods is forbidden: no list for you',
      });
    } finally {
      protobufCode = 200;
      protobufAnswer = undefined;
    }
  });

  it('Pods and Nodes ask for protobuf first, other kinds for JSON only', async () => {
    accepts.length = 0;
    protobufAnswer = undefined;
    await listNames(podSource(clients));
    await listNames(nodeSource(clients));
    await listNames(objectSource(clients, 'Service'));
    expect(accepts).toEqual([
      'application/vnd.kubernetes.protobuf, application/json',
      'application/vnd.kubernetes.protobuf, application/json',
      'application/vnd.kubernetes.protobuf, application/json',
      'application/json',
    ]);
  });

  it('an undecodable protobuf list fails once, saying so, and the source lists JSON after', async () => {
    accepts.length = 0;
    // The prefix, then a field with wire type 7.
    protobufAnswer = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0f]);
    const source = podSource(clients);
    const err = await listNames(source).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ProtoFormatError);
    expect((err as Error).message).toMatch(/listing \/api\/v1\/pods as JSON from now on/);
    const again = await listNames(source);
    expect(again).toEqual({ names: ['a', 'b', 'c'], meta: { resourceVersion: '5' } });
    expect(accepts).toEqual([
      'application/vnd.kubernetes.protobuf, application/json',
      'application/json',
      'application/json',
    ]);
    // Another source (another reflector) still starts with protobuf.
    await listNames(nodeSource(clients)).catch(() => undefined);
    expect(accepts[3]).toBe('application/vnd.kubernetes.protobuf, application/json');
  });
});

describe('the Pod list in two parts', () => {
  beforeEach(() => {
    protobufAnswer = undefined;
  });

  /** Starts a list with `source`, noting the names and where `onAssignedListed` came. */
  function startList(fromCache: boolean, source = podSource(clients)) {
    const seen: unknown[] = [];
    const done = source.list(
      { fromCache },
      (item) => seen.push((item as { metadata: { name: unknown } }).metadata.name),
      () => seen.push('|'),
    );
    return { seen, done };
  }

  async function listWithMark(fromCache: boolean) {
    const { seen, done } = startList(fromCache);
    return { seen, meta: await done };
  }

  const asked = () =>
    queries.map((q) =>
      ['fieldSelector', 'resourceVersion', 'resourceVersionMatch', 'continue', 'limit']
        .map((k) => `${k}=${q.get(k) ?? ''}`)
        .join(' '),
    );

  it('lists the bound pods, says so, then the pending ones exactly at the same version', async () => {
    queries.length = 0;
    const { seen, meta } = await listWithMark(true);
    expect(seen).toEqual(['a', '|', 'b', 'c']);
    expect(meta).toEqual({ resourceVersion: '5' });
    expect(asked()).toEqual([
      'fieldSelector=spec.nodeName!= resourceVersion=0 resourceVersionMatch= continue= limit=500',
      // In one answer: pages would wait behind the first binds.
      'fieldSelector=spec.nodeName= resourceVersion=5 resourceVersionMatch=Exact continue= limit=',
    ]);
  });

  it('the first list asks for the pending pods only once `pendingAfter` settles; a relist does not wait', async () => {
    let nodesListed = () => {};
    const pendingAfter = new Promise<void>((resolve) => {
      nodesListed = resolve;
    });
    queries.length = 0;
    const first = startList(true, podSource(clients, { pendingAfter }));
    await new Promise((r) => setTimeout(r, 50));
    expect(first.seen).toEqual(['a', '|']);
    expect(queries).toHaveLength(1);
    nodesListed();
    await first.done;
    expect(first.seen).toEqual(['a', '|', 'b', 'c']);
    // A relist with `pendingAfter` never settling still completes.
    const stuck = startList(false, podSource(clients, { pendingAfter: new Promise(() => {}) }));
    await expect(stuck.done).resolves.toEqual({ resourceVersion: '7' });
  });

  it('a relist asks for the current state; continued pages keep their selector', async () => {
    queries.length = 0;
    jsonPageSize = 1;
    try {
      const { seen, meta } = await listWithMark(false);
      expect(seen).toEqual(['a', '|', 'b', 'c']);
      expect(meta).toEqual({ resourceVersion: '7' });
      expect(asked()).toEqual([
        'fieldSelector=spec.nodeName!= resourceVersion= resourceVersionMatch= continue= limit=500',
        'fieldSelector=spec.nodeName= resourceVersion=7 resourceVersionMatch=Exact continue= limit=500',
        'fieldSelector=spec.nodeName= resourceVersion= resourceVersionMatch= continue=1 limit=500',
      ]);
    } finally {
      jsonPageSize = undefined;
    }
  });

  it('a server that refuses the exact list gets every pod listed again; the watch starts from that', async () => {
    for (const code of [400, 410]) {
      queries.length = 0;
      exactRefusal = code;
      try {
        const { seen, meta } = await listWithMark(true);
        expect(seen).toEqual(['a', '|', 'a', 'b', 'c']);
        expect(meta).toEqual({ resourceVersion: '7' });
        expect(asked()[2]).toBe(
          'fieldSelector= resourceVersion= resourceVersionMatch= continue= limit=500',
        );
      } finally {
        exactRefusal = undefined;
      }
    }
  });

  it('a server error on the pending part fails the list (the reflector lists again)', async () => {
    exactRefusal = 503;
    try {
      const err = await listWithMark(true).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(describeApiError(err).code).toBe(503);
    } finally {
      exactRefusal = undefined;
    }
  });
});
