// Reuses TLS connections across API calls (client-node 1.4 opens a new one per request).
import { Agent } from 'node:https';
import { Observable, type ObservableMiddleware } from '@kubernetes/client-node';

type TlsOptions = Agent['options'];

const idleSocketMs = 30_000;

function tlsIdentity(o: TlsOptions): string {
  // Everything that decides who we are and whom we trust; a change (e.g. a rotated client
  // certificate from an exec plugin) gets a fresh agent.
  return JSON.stringify([
    o.ca,
    o.cert,
    o.key,
    o.pfx,
    o.passphrase,
    o.rejectUnauthorized,
    o.servername,
  ]);
}

/**
 * A middleware that swaps the fresh `https.Agent` client-node builds for every request
 * (`KubeConfig.applySecurityAuthentication`) for one shared keep-alive agent with the same
 * TLS options, so that binds and reports do not each pay a TCP + TLS handshake. Proxy
 * agents and plain-HTTP clusters are left alone.
 */
export function keepAliveMiddleware(): ObservableMiddleware {
  let shared: { identity: string; agent: Agent } | undefined;
  return {
    pre: (ctx) => {
      const agent = ctx.getAgent();
      if (agent instanceof Agent && agent.constructor === Agent) {
        const identity = tlsIdentity(agent.options);
        if (shared?.identity !== identity) {
          shared?.agent.destroy();
          // Idle sockets are closed after 30 s, well before the API server's own idle
          // timeout, so a request rarely lands on a connection the server is closing.
          const options = { ...agent.options, keepAlive: true, timeout: idleSocketMs };
          shared = { identity, agent: new Agent(options) };
        }
        ctx.setAgent(shared.agent);
      }
      return new Observable(Promise.resolve(ctx));
    },
    post: (rsp) => new Observable(Promise.resolve(rsp)),
  };
}
