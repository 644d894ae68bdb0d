// Pins how Pod and Node sources ask for protobuf, and that a body berth cannot decode makes them list JSON from then on.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import protobuf from 'protobufjs/minimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, localKubeConfig } from '../../../test/support/local-kubeconfig.ts';
import { describeApiError } from './api-error.ts';
import type { KubeClients } from './config.ts';
import { DirectHttp } from './direct-http.ts';
import { nodeSource, objectSource, podSource } from './list-watch.ts';
import { ProtoFormatError } from './protobuf/decode.ts';

/** The Accept header of every request, in order. */
const accepts: string[] = [];
/** What the server answers the next protobuf-accepting request with. */
let protobufAnswer: Buffer | undefined;
/** The status code of that answer (200 unless set). */
let protobufCode = 200;

function handle(req: IncomingMessage, res: ServerResponse): void {
  const accept = req.headers.accept ?? '';
  accepts.push(accept);
  if (accept.startsWith('application/vnd.kubernetes.protobuf') && protobufAnswer !== undefined) {
    res.writeHead(protobufCode, { 'content-type': 'application/vnd.kubernetes.protobuf' });
    res.end(protobufAnswer);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      kind: 'List',
      metadata: { resourceVersion: '5' },
      items: [{ metadata: { name: 'a' } }],
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
    expect(again).toEqual({ names: ['a'], meta: { resourceVersion: '5' } });
    expect(accepts).toEqual([
      'application/vnd.kubernetes.protobuf, application/json',
      'application/json',
    ]);
    // Another source (another reflector) still starts with protobuf.
    await listNames(nodeSource(clients)).catch(() => undefined);
    expect(accepts[2]).toBe('application/vnd.kubernetes.protobuf, application/json');
  });
});
