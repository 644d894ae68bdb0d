// Tests that DirectHttp's agent rule shares one keep-alive agent per TLS identity.
import { Agent as HttpAgent } from 'node:http';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { isPlainHttpsAgent, maxApiSockets, sharedAgent } from './keep-alive.ts';

/** What DirectHttp does with the agent each credentials read gives: share plain ones. */
function agentSharer() {
  let shared: Agent | undefined;
  return (agent: unknown) => {
    if (!isPlainHttpsAgent(agent)) return agent;
    shared = sharedAgent(shared, agent);
    return shared;
  };
}

async function agentAfter(share: ReturnType<typeof agentSharer>, agent: unknown) {
  return share(agent);
}

describe('sharedAgent', () => {
  it('replaces per-request agents with one shared keep-alive agent', async () => {
    const m = agentSharer();
    const a = await agentAfter(m, new Agent({ ca: 'CA', rejectUnauthorized: true }));
    const b = await agentAfter(m, new Agent({ ca: 'CA', rejectUnauthorized: true }));
    expect(a).toBe(b);
    expect((a as Agent).options.keepAlive).toBe(true);
    expect((a as Agent).options.ca).toBe('CA');
    (a as Agent).destroy();
  });

  it('compares certificates by content and caps the connections', async () => {
    const m = agentSharer();
    const a = await agentAfter(m, new Agent({ ca: Buffer.from('CA'), cert: [Buffer.from('c')] }));
    const b = await agentAfter(m, new Agent({ ca: Buffer.from('CA'), cert: [Buffer.from('c')] }));
    expect(a).toBe(b);
    expect((a as Agent).maxSockets).toBe(maxApiSockets);
    const c = await agentAfter(m, new Agent({ ca: Buffer.from('other CA') }));
    expect(c).not.toBe(a);
    (c as Agent).destroy();
  });

  it('parses the TLS options once, into a context all its connections share', async () => {
    const m = agentSharer();
    const a = (await agentAfter(m, new Agent({ ca: rootCertificates[0] }))) as Agent;
    expect(a.options.secureContext?.context).toBeDefined();
    // Options TLS cannot use are left to each connection, which fails its request with why.
    const b = (await agentAfter(m, new Agent({ cert: 'not a certificate', key: 'k' }))) as Agent;
    expect(b).not.toBe(a);
    expect(b.options.secureContext).toBeUndefined();
    expect(b.options.cert).toBe('not a certificate');
    b.destroy();
  });

  it('builds a new agent when the TLS identity changes (rotated client certificate)', async () => {
    const m = agentSharer();
    const a = await agentAfter(m, new Agent({ cert: 'one', key: 'k' }));
    const b = await agentAfter(m, new Agent({ cert: 'two', key: 'k' }));
    expect(a).not.toBe(b);
    expect((b as Agent).options.cert).toBe('two');
    (b as Agent).destroy();
  });

  it('retires the old agent without cutting its busy connections', async () => {
    const m = agentSharer();
    const a = (await agentAfter(m, new Agent({ cert: 'one', key: 'k' }))) as Agent;
    const idle = {
      destroyed: false,
      destroy() {
        this.destroyed = true;
      },
    };
    const busy = {
      destroyed: false,
      destroy() {
        this.destroyed = true;
      },
    };
    (a.freeSockets as Record<string, unknown[]>)['fake:443:'] = [idle];
    (a.sockets as Record<string, unknown[]>)['fake:443:'] = [busy];
    const b = await agentAfter(m, new Agent({ cert: 'two', key: 'k' }));
    expect(b).not.toBe(a);
    expect(idle.destroyed).toBe(true);
    expect(busy.destroyed).toBe(false);
    (b as Agent).destroy();
  });

  it('leaves other agents (plain HTTP, proxies) alone', async () => {
    const m = agentSharer();
    const http = new HttpAgent();
    expect(await agentAfter(m, http)).toBe(http);
    class ProxyAgent extends Agent {}
    const proxy = new ProxyAgent();
    expect(await agentAfter(m, proxy)).toBe(proxy);
  });
});
