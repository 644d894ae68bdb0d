// Tests DirectHttp over real TLS: connections opened after the first resume its TLS session.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localKubeConfig } from '../../../test/support/local-kubeconfig.ts';
import { selfSigned } from '../../../test/support/tls-certs.ts';
import { DirectHttp } from './direct-http.ts';

let dir: string;
let server: Server;
let http: DirectHttp;
/** Whether each TLS connection the server accepted resumed a session, in order. */
const resumed: boolean[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'berth-tls-'));
  selfSigned(dir, 'server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1');
  const cert = readFileSync(join(dir, 'server.crt'));
  server = createServer({ cert, key: readFileSync(join(dir, 'server.key')) }, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.includes('watch=true'))
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
    else res.end('{"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a"}}]}');
  });
  server.on('secureConnection', (socket: TLSSocket) => resumed.push(socket.isSessionReused()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const kc = localKubeConfig(`https://127.0.0.1:${port}`, { caData: cert.toString('base64') });
  http = new DirectHttp(kc);
});

afterAll(async () => {
  http.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

/** Opens a watch and waits for its first event. */
async function watchOnce(): Promise<{ abort(): void }> {
  let got: () => void = () => {};
  const first = new Promise<void>((r) => {
    got = r;
  });
  const handle = await http.watch('/api/v1/pods', {}, { onEvent: () => got(), onClose: () => {} });
  await first;
  return handle;
}

describe('DirectHttp over TLS', () => {
  it('lists started together after one request resume its TLS session', async () => {
    await http.request('GET', '/api/v1/nodes?limit=1', undefined, { timeoutMs: 5_000 });
    const lists = ['/api/v1/pods', '/api/v1/nodes', '/api/v1/services'].map((path) =>
      http.list(path, {}, { timeoutMs: 5_000 }, () => {}),
    );
    await Promise.all(lists);
    // The first request's connection is reused by one list; the other two resume its session.
    expect(resumed.splice(0)).toEqual([false, true, true]);
  });

  it('watches open a connection each and resume a TLS session', async () => {
    const a = await watchOnce();
    const b = await watchOnce();
    const c = await watchOnce();
    for (const w of [a, b, c]) w.abort();
    // Even the first watch resumes the session of the request before it.
    expect(resumed.splice(0)).toEqual([true, true, true]);
  });
});
