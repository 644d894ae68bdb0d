// A KubeConfig for a test server on loopback: one cluster, a bearer token, one context.
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
