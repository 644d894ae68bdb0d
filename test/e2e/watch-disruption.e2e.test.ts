// berth survives a kube-apiserver restart: it relists after 410 Gone and misses nothing that changed.
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { clusterOvercommits, readRecord, recordEvents } from './support/invariants.ts';
import { podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, namespace, pod, pods, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'watch';

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe('a kube-apiserver restart under a running berth', () => {
  const cluster = useCluster('watch');
  let berth: BerthRun;
  let record: string;
  /** The pods collection's resourceVersion just before the outage. */
  let rvBefore = '';
  /** What kube-apiserver answered to a watch resuming from `rvBefore` after the outage. */
  let resumeAnswer = '';
  let deletedInEtcd = 0;

  beforeAll(async () => {
    const k = cluster().kubectl;
    record = join(cluster().dir, 'watch.record.jsonl');
    await k.apply(
      toYaml([
        namespace(ns),
        kwokNode('w-0', { cpu: '8', memory: '16Gi' }),
        kwokNode('w-1', { cpu: '8', memory: '16Gi' }),
        // Room for exactly one 1-cpu pod.
        kwokNode('w-solo', { cpu: '1', memory: '2Gi', labels: { role: 'solo' } }),
      ]),
    );
    berth = await startBerth(cluster(), {
      name: 'berth',
      args: ['--record', record],
    });
    const solo = { cpu: '1', memory: '256Mi', nodeSelector: { role: 'solo' } };
    await k.create(toYaml([pod('filler', ns, solo)]));
    await waitFor('filler bound to w-solo', async () => {
      berth.checkAlive();
      const node = (await k.pod(ns, 'filler'))?.spec.nodeName;
      return { ok: node === 'w-solo', seen: node };
    });
    await k.create(toYaml([pod('waiter', ns, solo)]));
    await waitFor('waiter marked Unschedulable', async () => {
      berth.checkAlive();
      const c = podScheduledCondition(await k.pod(ns, 'waiter'));
      return { ok: c?.status === 'False', seen: c };
    });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('goes through the outage: pods created before and after it, one deleted during it', async () => {
    const c = cluster();
    const k = c.kubectl;
    await k.create(toYaml(pods('before', ns, 5)));
    rvBefore = (await k.raw<{ metadata: { resourceVersion: string } }>('/api/v1/pods?limit=1'))
      .metadata.resourceVersion;
    const port = Number(new URL(c.apiserverUrl).port);
    // Killed outright: with a graceful stop the old apiserver keeps serving open watches
    // for its grace period after closing its listener, and would deliver the deletion below.
    const restarted = c.restartApiserver(0);
    try {
      await waitFor(
        'kube-apiserver to stop listening',
        async () => ({
          ok: !(await listening(port)),
          seen: 'still listening',
        }),
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      // While berth cannot see anything: free w-solo behind the apiserver's back, and compact
      // etcd so that no watch can resume from before this point.
      deletedInEtcd = await c.deletePodInEtcd(ns, 'filler');
      await c.compactEtcd();
    } finally {
      await restarted;
    }
    expect(deletedInEtcd).toBe(1);
    await k.create(toYaml(pods('after', ns, 10)));
    expect(berth.exitStatus, berth.tail()).toBeUndefined();
  });

  it('answers a watch resuming from before the outage with 410 Gone (Expired)', async () => {
    const r = await cluster().kubectl.run(
      ['get', '--raw', `/api/v1/pods?watch=1&resourceVersion=${rvBefore}&timeoutSeconds=1`],
      { allowFailure: true },
    );
    resumeAnswer = `${r.stdout}${r.stderr}`;
    expect(resumeAnswer).toMatch(/"code":410|too old resource version|Expired|Gone/);
  });

  it('schedules every pod created before and after the outage, without a restart', async () => {
    const k = cluster().kubectl;
    const left = await waitFor(
      'before-* and after-* bound',
      async () => {
        berth.checkAlive();
        const ps = (await k.pods(ns)).filter((p) => /^(before|after)-/.test(p.metadata.name));
        const unbound = ps.filter((p) => !p.spec.nodeName).map((p) => p.metadata.name);
        return { ok: ps.length === 15 && unbound.length === 0, seen: unbound };
      },
      { timeoutMs: 90_000 },
    );
    expect(left).toEqual([]);
    expect(berth.exitStatus, berth.tail()).toBeUndefined();
  });

  it('uses the capacity freed while it was disconnected', async () => {
    const k = cluster().kubectl;
    expect(await k.pod(ns, 'filler')).toBeUndefined();
    const node = await waitFor(
      'waiter bound to w-solo',
      async () => {
        berth.checkAlive();
        const p = await k.pod(ns, 'waiter');
        return { ok: p?.spec.nodeName !== undefined, seen: p?.spec.nodeName ?? p?.status };
      },
      { timeoutMs: 90_000 },
    );
    expect(node).toBe('w-solo');
  });

  it('puts no node over capacity', async () => {
    expect(await clusterOvercommits(cluster().kubectl)).toEqual([]);
  });

  it('also rides out a graceful restart: pods created right after it are scheduled', async () => {
    const c = cluster();
    const k = c.kubectl;
    await k.create(toYaml(pods('graceful-before', ns, 3)));
    await c.restartApiserver();
    await k.create(toYaml(pods('graceful-after', ns, 3)));
    const left = await waitFor(
      'graceful-* bound',
      async () => {
        berth.checkAlive();
        const ps = (await k.pods(ns)).filter((p) => p.metadata.name.startsWith('graceful-'));
        const unbound = ps.filter((p) => !p.spec.nodeName).map((p) => p.metadata.name);
        return { ok: ps.length === 6 && unbound.length === 0, seen: unbound };
      },
      { timeoutMs: 90_000 },
    );
    expect(left).toEqual([]);
    expect(berth.exitStatus, berth.tail()).toBeUndefined();
    expect(await clusterOvercommits(k)).toEqual([]);
  });

  it('relisted pods after the outage (its record shows a second pod resync)', async () => {
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
    const lines = readRecord(record);
    const podResyncs = recordEvents(lines, 'ResyncDone').filter((l) => l.event?.kind === 'Pod');
    expect(podResyncs.length).toBeGreaterThanOrEqual(2);
    const relistLogs = berth
      .logs()
      .filter((e) => /410|gone|expired|too old|relist/i.test(JSON.stringify(e)));
    process.stderr.write(
      `[e2e] watch: berth log lines about the relist:\n${relistLogs
        .slice(0, 10)
        .map((e) => JSON.stringify(e))
        .join('\n')}\n`,
    );
  });
});
