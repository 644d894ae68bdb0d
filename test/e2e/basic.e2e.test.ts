// berth run binds its pods on a real control plane and leaves other schedulers' pods alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditedRequests, createsAuditPolicy } from './support/audit-policy.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { clusterOvercommits } from './support/invariants.ts';
import { eventsAbout, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, namespace, pod, pods, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'basic';
const nodeNames = ['kwok-a', 'kwok-b', 'kwok-c'];

/** The API server audits the bindings and Events of `ns` (to see who sent them). */
const auditPolicy = createsAuditPolicy(ns, [
  { group: '', resources: ['pods/binding'] },
  { group: 'events.k8s.io', resources: ['events'] },
]);

describe('berth run on a real cluster', () => {
  const cluster = useCluster('basic', { auditPolicy });
  let berth: BerthRun;

  beforeAll(async () => {
    const k = cluster().kubectl;
    await k.apply(
      toYaml([
        namespace(ns),
        ...nodeNames.map((n) => kwokNode(n, { cpu: '4', memory: '8Gi', pods: 110 })),
      ]),
    );
    berth = await startBerth(cluster(), { name: 'berth' });
    await k.create(
      toYaml([
        ...pods('web', ns, 30, { cpu: '200m', memory: '128Mi' }),
        pod('other-0', ns, { schedulerName: null }),
        pod('other-1', ns, { schedulerName: 'default-scheduler' }),
      ]),
    );
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('binds all 30 of its pods to the kwok nodes, which run them', async () => {
    const k = cluster().kubectl;
    const bound = await waitFor('30 berth pods bound and Running', async () => {
      berth.checkAlive();
      const ours = (await k.pods(ns)).filter((p) => p.spec.schedulerName === 'berth');
      const pending = ours.filter((p) => !p.spec.nodeName || p.status?.phase !== 'Running');
      return {
        ok: ours.length === 30 && pending.length === 0,
        seen: pending.map((p) => ({
          pod: p.metadata.name,
          node: p.spec.nodeName,
          phase: p.status?.phase,
        })),
      };
    });
    expect(bound).toEqual([]);
    const ours = (await k.pods(ns)).filter((p) => p.spec.schedulerName === 'berth');
    for (const p of ours) expect(nodeNames).toContain(p.spec.nodeName);
    // LeastAllocated spreads identical pods over identical empty nodes.
    expect(new Set(ours.map((p) => p.spec.nodeName)).size).toBe(3);
  });

  it('puts no node over its allocatable cpu, memory or pod count', async () => {
    expect(await clusterOvercommits(cluster().kubectl)).toEqual([]);
  });

  it('leaves the default scheduler’s pods pending and untouched', async () => {
    const k = cluster().kubectl;
    for (const name of ['other-0', 'other-1']) {
      const p = await k.pod(ns, name);
      expect(p?.spec.schedulerName).toBe('default-scheduler');
      expect(p?.spec.nodeName).toBeUndefined();
      expect(p?.status?.phase).toBe('Pending');
      expect(podScheduledCondition(p)).toBeUndefined();
      expect((await k.events(ns)).filter((e) => e.regarding?.name === name)).toEqual([]);
    }
  });

  it('records one Scheduled event per bound pod naming its node', async () => {
    const k = cluster().kubectl;
    const ours = (await k.pods(ns)).filter((p) => p.spec.schedulerName === 'berth');
    const missing = await waitFor(
      'a Scheduled event for each berth pod',
      async () => {
        const events = await k.events(ns);
        const lacking = ours.filter(
          (p) => eventsAbout(events, p.metadata.name, 'Scheduled').length !== 1,
        );
        return { ok: lacking.length === 0, seen: lacking.map((p) => p.metadata.name) };
      },
      { timeoutMs: 30_000 },
    );
    expect(missing).toEqual([]);
    const events = await k.events(ns);
    for (const p of ours) {
      const [e] = eventsAbout(events, p.metadata.name, 'Scheduled');
      expect(e?.note).toContain(`${ns}/${p.metadata.name}`);
      expect(e?.note).toContain(p.spec.nodeName);
      expect(e?.type).toBe('Normal');
    }
  });

  it("names itself to the API server: its bindings and Events carry berth's User-Agent", async () => {
    const audited = auditedRequests(cluster().auditLog);
    const bindings = audited.filter((e) => e.objectRef.resource === 'pods');
    const events = audited.filter((e) => e.objectRef.resource === 'events');
    expect(bindings).toHaveLength(30);
    expect(events.length).toBeGreaterThanOrEqual(30);
    const agents = new Set(audited.map((e) => e.userAgent));
    expect([...agents]).toHaveLength(1);
    expect([...agents][0]).toMatch(/^berth\/\d+\.\d+\.\d+\S* \(linux\/\w+\) node\/\d+\./);
  });

  it('stops cleanly on SIGTERM with exit code 0 and nothing on stderr', async () => {
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
    expect(berth.stderr).toBe('');
  });
});
