// A KubeConfig for a test server on loopback: one cluster, a bearer token, one context.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/**
 * A KubeConfig pointing at `server` with bearer token `token`. An `http:` server is allowed
 * by skipping TLS verification (client-node refuses it otherwise); an `https:` one is
 * trusted through `caData` (PEM, base64).
 */
export function localKubeConfig(server: string, opts: { token?: string; caData?: string } = {}) {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      opts.caData === undefined
        ? { name: 'c', server, skipTLSVerify: true }
        : { name: 'c', server, caData: opts.caData },
    ],
    users: [{ name: 'u', token: opts.token ?? 'secret-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

/** Starts `server` on a free loopback port and resolves with its `http://127.0.0.1:PORT` URL. */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
