// berth and kube-scheduler bind their own pods onto the same small nodes at once, without overcommit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { createPaced } from './support/arrivals.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { clusterOvercommits, repeatedScheduledEvents } from './support/invariants.ts';
import { type KubeScheduler, startKubeScheduler } from './support/kube-scheduler.ts';
import { type PodJson, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, namespace, pod, pods, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'shared';
const nodeNames = ['sh-0', 'sh-1', 'sh-2', 'sh-3'];
// Each node holds 20 pods of 100m (cpu is the only tight resource): 80 in all.
const slots = 80;
const small = { cpu: '100m', memory: '64Mi' };
const isBerths = (p: PodJson) => p.spec.schedulerName === 'berth';

/** Pods neither bound nor marked unschedulable yet (still being decided). */
function undecided(ps: PodJson[]): string[] {
  return ps
    .filter((p) => p.spec.nodeName === undefined && podScheduledCondition(p)?.status !== 'False')
    .map((p) => p.metadata.name);
}

describe('berth and kube-scheduler on the same nodes', () => {
  const cluster = useCluster('shared');
  let berth: BerthRun;
  let kube: KubeScheduler;
  let api: Api;

  beforeAll(async () => {
    const k = cluster().kubectl;
    api = new Api(cluster().kubeconfig);
    await k.apply(
      toYaml([
        namespace(ns),
        ...nodeNames.map((n) => kwokNode(n, { cpu: '2', memory: '8Gi', pods: 110 })),
      ]),
    );
    kube = startKubeScheduler(cluster());
    berth = await startBerth(cluster(), { name: 'berth' });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
    await kube?.stop();
    api?.close();
  });

  it('both bind interleaved arrivals onto every node at once (60 of 80 slots)', async () => {
    const k = cluster().kubectl;
    // Alternating arrivals, 20/s: each scheduler places pods next to the other's fresh ones.
    const mixed = Array.from({ length: 60 }, (_, i) =>
      i % 2 === 0
        ? pod(`b-${i / 2}`, ns, small)
        : pod(`k-${(i - 1) / 2}`, ns, { ...small, schedulerName: null }),
    );
    const created = await createPaced(api, ns, mixed, 20);
    expect(created.failed).toEqual([]);
    const left = await waitFor('all 60 pods bound', async () => {
      berth.checkAlive();
      const open = (await k.pods(ns)).filter((p) => !p.spec.nodeName).map((p) => p.metadata.name);
      return { ok: open.length === 0, seen: open };
    });
    expect(left).toEqual([]);
    const ps = await k.pods(ns);
    const mixedNodes = nodeNames.filter((n) => {
      const here = ps.filter((p) => p.spec.nodeName === n);
      return here.some(isBerths) && here.some((p) => !isBerths(p));
    });
    // Both spread by least allocation, so the nodes are really shared.
    expect(mixedNodes.length).toBeGreaterThanOrEqual(3);
    expect(await clusterOvercommits(k)).toEqual([]);
  });

  it('berth fills the last 20 slots exactly, counting kube-scheduler’s pods', async () => {
    const k = cluster().kubectl;
    await k.create(toYaml(pods('bt', ns, 25, small)));
    const open = await waitFor('berth to decide its 25 new pods', async () => {
      berth.checkAlive();
      const ours = (await k.pods(ns)).filter((p) => p.metadata.name.startsWith('bt-'));
      const o = undecided(ours);
      return { ok: ours.length === 25 && o.length === 0, seen: o };
    });
    expect(open).toEqual([]);
    const ps = await k.pods(ns);
    expect(ps.filter((p) => p.spec.nodeName !== undefined)).toHaveLength(slots);
    expect(await clusterOvercommits(k)).toEqual([]);
  });

  it('kube-scheduler then finds no room either (its view agrees that the nodes are full)', async () => {
    const k = cluster().kubectl;
    await k.create(toYaml(pods('kt', ns, 5, { ...small, schedulerName: null })));
    const open = await waitFor('kube-scheduler to decide its 5 new pods', async () => {
      const theirs = (await k.pods(ns)).filter((p) => p.metadata.name.startsWith('kt-'));
      const o = undecided(theirs);
      return { ok: theirs.length === 5 && o.length === 0, seen: o };
    });
    expect(open).toEqual([]);
    expect(
      (await k.pods(ns)).filter((p) => p.metadata.name.startsWith('kt-') && p.spec.nodeName),
    ).toEqual([]);
  });

  it('ends with every pod bound once or pending with a reason, no node over capacity', async () => {
    const k = cluster().kubectl;
    const ps = await k.pods(ns);
    expect(ps).toHaveLength(60 + 25 + 5);
    expect(ps.filter((p) => p.spec.nodeName !== undefined)).toHaveLength(slots);
    const pending = ps.filter((p) => p.spec.nodeName === undefined);
    expect(pending).toHaveLength(10);
    for (const p of pending) {
      const c = podScheduledCondition(p);
      expect(c, p.metadata.name).toMatchObject({ status: 'False', reason: 'Unschedulable' });
      expect(c?.message, p.metadata.name).toContain('Insufficient cpu');
    }
    expect(await clusterOvercommits(k)).toEqual([]);
  });

  it('each scheduler reported only its own pods, each Scheduled at most once', async () => {
    const k = cluster().kubectl;
    const byName = new Map((await k.pods(ns)).map((p) => [p.metadata.name, p]));
    const events = await k.events(ns);
    expect(repeatedScheduledEvents(events)).toEqual({});
    const crossed = events.filter((e) => {
      const p = byName.get(String(e.regarding?.name));
      if (p === undefined || e.reportingController === undefined) return false;
      return (e.reportingController === 'berth') !== isBerths(p);
    });
    expect(crossed.map((e) => [e.reportingController, e.regarding?.name, e.reason])).toEqual([]);
    // Each scheduler binds only its own pods: no Binding of berth's ever met a bound pod.
    expect(berth.logs().filter((e) => e.msg === 'bind failed')).toEqual([]);
  });

  it('berth is still running and stops on SIGTERM', async () => {
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
  });
});
