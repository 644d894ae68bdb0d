// One keep-alive TLS pool per TLS identity instead of a connection per request (DirectHttp's agents).
import { Agent } from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';

type TlsOptions = Agent['options'];

const idleSocketMs = 30_000;

/**
 * Connections kept to the API server, so at most this many requests in flight (HTTP/1.1 has
 * one per connection). Requests beyond this wait in the agent for a free socket: opening one
 * TLS connection per concurrent request cost both berth and the API server more CPU than the
 * requests themselves (a burst of 2,000 binds opened hundreds). Too few caps a burst at this
 * many binds per bind round trip, and a round trip grows under load: at 500 nodes × 3,000
 * pods 32 held berth to 624–690 pods/s, 96 gave 716–832 (five runs; 64: 696, 771; 128:
 * 704–847; 256: 669, with more CPU per pod for the handshakes).
 */
export const maxApiSockets = 96;

// Everything that decides who we are and whom we trust; a change (e.g. a rotated client
// certificate from an exec plugin) gets a fresh agent.
const identityKeys = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
] as const;

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  return false;
}

/**
 * Lets an agent replaced by a new TLS identity go without cutting requests still running on
 * it: its idle connections close now, busy ones after their request (the idle timeout).
 */
export function retireAgent(agent: Agent | undefined): void {
  if (agent === undefined) return;
  for (const sockets of Object.values(agent.freeSockets))
    for (const socket of sockets ?? []) socket.destroy();
}

/** Whether two agents' TLS options name the same identity and trust (buffers by content). */
export function sameTlsIdentity(a: TlsOptions, b: TlsOptions): boolean {
  return identityKeys.every((k) => sameValue(a[k], b[k]));
}

/** Whether `agent` is a plain `https.Agent` (not a proxy's subclass): only those are shared. */
export function isPlainHttpsAgent(agent: unknown): agent is Agent {
  return agent instanceof Agent && agent.constructor === Agent;
}

/**
 * `current` when it has `fresh`'s TLS identity; otherwise retires it and returns a new
 * keep-alive agent with `fresh`'s TLS options and at most `maxApiSockets` connections.
 */
export function sharedAgent(current: Agent | undefined, fresh: Agent): Agent {
  if (current !== undefined && sameTlsIdentity(current.options, fresh.options)) return current;
  retireAgent(current);
  // Idle sockets are closed after 30 s, well before the API server's own idle timeout, so a
  // request rarely lands on a connection the server is closing.
  return new Agent({
    ...fresh.options,
    secureContext: secureContextOf(fresh.options),
    keepAlive: true,
    timeout: idleSocketMs,
    maxSockets: maxApiSockets,
  });
}

/**
 * One TLS context (CA, client certificate and key parsed once) for all of an agent's
 * connections: without it each connection builds its own, ~2 ms of CPU apiece, and berth opens
 * a dozen at start-up. Options it cannot use are left to each connection, which then fails
 * the request with the TLS error as it would have.
 */
export function secureContextOf(options: TlsOptions): SecureContext | undefined {
  try {
    return createSecureContext(options);
  } catch {
    return undefined;
  }
}
