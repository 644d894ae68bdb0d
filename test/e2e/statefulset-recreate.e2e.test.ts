// A pod deleted and recreated under the same name while its bind is in flight is a new pod (new uid).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { clusterOvercommits } from './support/invariants.ts';
import type { PodJson } from './support/kubectl.ts';
import { kwokNode, namespace, pod, pods, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'recreate';
const podCount = 30;
const recreateCount = 10;
// The first generation fits only on `old` nodes, the second only on `new` nodes and is five
// times larger: a bind chosen for an old pod that lands on its successor breaks the
// successor's nodeSelector and overfills an old node (30 × 100m = 3 of 4 cpu before).
const oldSpec = { cpu: '100m', memory: '64Mi', nodeSelector: { role: 'old' } };
const newSpec = {
  cpu: '500m',
  memory: '64Mi',
  nodeSelector: { role: 'new' },
  labels: { generation: '2' },
};

/** One pod deleted and recreated under its name. */
interface Recreation {
  name: string;
  oldUid: string;
  newUid: string;
  /** The node the old pod had when the API deleted it (undefined: its bind was still in flight). */
  oldNodeAtDelete: string | undefined;
}

describe('a pod recreated under the same name while its bind is in flight', () => {
  const cluster = useCluster('recreate');
  let berth: BerthRun;
  let api: Api;
  const recreated: Recreation[] = [];

  beforeAll(async () => {
    const k = cluster().kubectl;
    api = new Api(cluster().kubeconfig);
    await k.apply(
      toYaml([
        namespace(ns),
        ...['old-0', 'old-1'].map((n) =>
          kwokNode(n, { cpu: '2', memory: '8Gi', labels: { role: 'old' } }),
        ),
        ...['new-0', 'new-1'].map((n) =>
          kwokNode(n, { cpu: '3', memory: '8Gi', labels: { role: 'new' } }),
        ),
      ]),
    );
    // 5 writes/s with no burst: 30 binds take 6 s, so most are still queued when we strike.
    berth = await startBerth(cluster(), {
      name: 'berth',
      args: ['--qps', '5', '--burst', '1', '--record', join(cluster().dir, 'recreate.jsonl')],
    });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
    api?.close();
  });

  it('deletes and recreates pods whose binds are still queued', async () => {
    const k = cluster().kubectl;
    await k.create(toYaml(pods('web', ns, podCount, oldSpec)));
    // Berth is binding (so every pod has been decided and assumed), but most binds wait.
    await waitFor(
      'berth to bind its first 3 pods',
      async () => {
        berth.checkAlive();
        const n = (await k.pods(ns)).filter((p) => p.spec.nodeName !== undefined).length;
        return { ok: n >= 3, seen: n };
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    const unbound = (await k.pods(ns)).filter((p) => p.spec.nodeName === undefined);
    const victims = unbound.slice(-recreateCount);
    await Promise.all(
      victims.map(async (old) => {
        const name = old.metadata.name;
        const deleted = await api.deletePod(ns, name, old.metadata.uid);
        expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
        const fresh = await api.createPod(ns, pod(name, ns, newSpec));
        recreated.push({
          name,
          oldUid: String(old.metadata.uid),
          newUid: String(fresh.metadata.uid),
          oldNodeAtDelete: deleted.body.spec?.nodeName,
        });
      }),
    );
    const inFlight = recreated.filter((r) => r.oldNodeAtDelete === undefined);
    process.stderr.write(
      `[e2e] recreate: ${inFlight.length}/${recreated.length} pods recreated while still unbound\n`,
    );
    expect(recreated).toHaveLength(recreateCount);
    // The race was really run: (nearly) all were deleted before their bind reached the API.
    expect(inFlight.length).toBeGreaterThanOrEqual(recreateCount - 2);
    for (const r of recreated) expect(r.newUid).not.toBe(r.oldUid);
  });

  it('binds every pod, recreated ones included (the Binding names the new uid)', async () => {
    const k = cluster().kubectl;
    const left = await waitFor(
      `all ${podCount} pods bound`,
      async () => {
        berth.checkAlive();
        const ps = await k.pods(ns);
        const open = ps.filter((p) => p.spec.nodeName === undefined).map((p) => p.metadata.name);
        return { ok: ps.length === podCount && open.length === 0, seen: open };
      },
      { timeoutMs: 45_000 },
    );
    expect(left).toEqual([]);
  });

  it('binds each recreated pod, with its new uid, to a node chosen for it', async () => {
    const ps = new Map((await cluster().kubectl.pods(ns)).map((p) => [p.metadata.name, p]));
    const wrong: Record<string, unknown>[] = [];
    for (const r of recreated) {
      const p = ps.get(r.name) as PodJson;
      expect(p.metadata.uid).toBe(r.newUid);
      // A node of the old generation can only have come from the old pod's decision.
      if (!p.spec.nodeName?.startsWith('new-'))
        wrong.push({ pod: r.name, node: p.spec.nodeName, oldNodeAtDelete: r.oldNodeAtDelete });
    }
    expect(wrong).toEqual([]);
    for (const p of ps.values()) {
      const prefix = p.metadata.labels?.generation === '2' ? 'new-' : 'old-';
      expect(p.spec.nodeName, p.metadata.name).toMatch(new RegExp(`^${prefix}`));
    }
  });

  it('puts no node over its allocatable cpu, memory or pod count', async () => {
    expect(await clusterOvercommits(cluster().kubectl)).toEqual([]);
  });

  it('reports one Scheduled event per recreated pod, for its new uid, and none for the old', async () => {
    const k = cluster().kubectl;
    const nodeOf = new Map((await k.pods(ns)).map((p) => [p.metadata.name, p.spec.nodeName]));
    const seen = await waitFor(
      'one Scheduled event for each recreated pod',
      async () => {
        const scheduled = (await k.events(ns)).filter((e) => e.reason === 'Scheduled');
        const per = recreated.map((r) => ({
          pod: r.name,
          forNew: scheduled.filter((e) => e.regarding?.uid === r.newUid).map((e) => e.note ?? ''),
          forOld: scheduled.filter((e) => e.regarding?.uid === r.oldUid).map((e) => e.note ?? ''),
        }));
        return { ok: per.every((p) => p.forNew.length >= 1), seen: per };
      },
      { timeoutMs: 30_000 },
    );
    for (const p of seen) {
      expect(p.forNew, p.pod).toHaveLength(1);
      expect(p.forNew[0], p.pod).toContain(`${ns}/${p.pod} to ${nodeOf.get(p.pod)}`);
      const old = recreated.find((r) => r.name === p.pod);
      if (old?.oldNodeAtDelete === undefined) expect(p.forOld, p.pod).toEqual([]);
    }
  });

  it('is still running, and stops on SIGTERM', async () => {
    expect(berth.exitStatus, berth.tail()).toBeUndefined();
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
  });
});
