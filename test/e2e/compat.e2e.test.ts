// berth against each pinned Kubernetes release's API server (1.35, 1.36, 1.37): installed with the Helm chart, two replicas on one Lease, scheduling, preemption and a gang.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BerthRun } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  type ChartInstall,
  compatNode,
  compatPod,
  compatReleases,
  installChart,
  leaseHolder,
  priorityClass,
  startChartBerth,
  waitForLeader,
  waitForRunning,
} from './support/compat.ts';
import { namespace, toYaml } from './support/manifests.ts';
import { podGroup, scheduled } from './support/scenario-gang.ts';
import { delay, waitFor } from './support/wait.ts';

const ns = 'compat';

/** The leg's nodes: two for plain pods, one to preempt on, three for a gang, one with room for half a pair. */
const nodes = [
  compatNode('basic-0', 'basic', '2'),
  compatNode('basic-1', 'basic', '2'),
  compatNode('preempt-0', 'preempt', '1'),
  compatNode('gang-0', 'gang', '1'),
  compatNode('gang-1', 'gang', '1'),
  compatNode('gang-2', 'gang', '1'),
  compatNode('half-0', 'half', '1'),
];

function log(line: string): void {
  process.stderr.write(`[e2e] compat: ${line}\n`);
}

for (const release of compatReleases(process.env.BERTH_E2E_COMPAT_RELEASES)) {
  describe(`berth on a Kubernetes ${release} API server, installed with the chart`, () => {
    const cluster = useCluster(`compat-${release}`, { release });
    let install: ChartInstall;
    let leader: BerthRun;
    let standby: BerthRun;
    let firstHolder = '';
    let t0 = 0;

    beforeAll(async () => {
      const c = cluster();
      t0 = Date.now() - c.upMs;
      log(`${release}: control plane ${c.kubeVersion} up in ${c.upMs} ms`);
      install = await installChart(c);
      await c.kubectl.apply(
        toYaml([
          namespace(ns),
          priorityClass('compat-low', 10),
          priorityClass('compat-high', 1000),
          ...nodes,
        ]),
      );
      leader = await startChartBerth(c, install, 'berth-a');
      firstHolder = await waitForLeader(c, leader);
      standby = await startChartBerth(c, install, 'berth-b');
      await standby.waitForLog('starting', (e) => e.msg === 'starting');
    }, 240_000);

    afterAll(() => {
      log(`${release}: leg took ${Date.now() - t0} ms (control plane start included, stop not)`);
    });

    it('is served by the pinned release, and the standby does not take the Lease from the leader', async () => {
      const c = cluster();
      const version = await c.kubectl.raw<{ gitVersion: string }>('/version');
      expect(version.gitVersion).toBe(c.kubeVersion);
      expect(version.gitVersion.startsWith(`v${release}.`)).toBe(true);
      await delay(3_000);
      standby.checkAlive();
      expect(await leaseHolder(c)).toBe(firstHolder);
      expect(standby.stdout).not.toContain('became the leader');
    });

    it('binds plain pods over the nodes that fit them', async () => {
      const c = cluster();
      const names = ['web-0', 'web-1', 'web-2', 'web-3'];
      await c.kubectl.create(
        toYaml(names.map((n) => compatPod(n, ns, { pool: 'basic', cpu: '500m' }))),
      );
      const placed = await waitForRunning(c, ns, names, leader);
      expect(new Set(placed.values())).toEqual(new Set(['basic-0', 'basic-1']));
    });

    it('preempts: a high-priority pod evicts the low-priority one filling its only node', async () => {
      const c = cluster();
      const opts = { pool: 'preempt', cpu: '800m' };
      await c.kubectl.create(
        toYaml([compatPod('low', ns, { ...opts, priorityClassName: 'compat-low' })]),
      );
      await waitForRunning(c, ns, ['low'], leader);
      await c.kubectl.create(
        toYaml([compatPod('high', ns, { ...opts, priorityClassName: 'compat-high' })]),
      );
      const placed = await waitForRunning(c, ns, ['high'], leader);
      expect(placed.get('high')).toBe('preempt-0');
      expect(await c.kubectl.pod(ns, 'low')).toBeUndefined();
    });

    it('places a PodGroup all together, and none of a pair that only half fits', async () => {
      const c = cluster();
      const trio = ['trio-0', 'trio-1', 'trio-2'];
      const pair = ['pair-0', 'pair-1'];
      await c.kubectl.create(toYaml([podGroup(ns, 'trio', 3), podGroup(ns, 'pair', 2)]));
      await c.kubectl.create(
        toYaml([
          ...trio.map((n) => compatPod(n, ns, { pool: 'gang', cpu: '1', group: 'trio' })),
          ...pair.map((n) => compatPod(n, ns, { pool: 'half', cpu: '1', group: 'pair' })),
        ]),
      );
      const placed = await waitForRunning(c, ns, trio, leader);
      expect(new Set(placed.values()).size).toBe(3);
      const waiting = await waitFor(
        'both members of pair told PodScheduled=False Unschedulable',
        async () => {
          const ps = (await c.kubectl.pods(ns)).filter((p) => pair.includes(p.metadata.name));
          const told = ps.filter((p) => scheduled(p)?.reason === 'Unschedulable');
          return { ok: told.length === 2, seen: ps.map((p) => [p.spec.nodeName, scheduled(p)]) };
        },
      );
      expect(waiting).toHaveLength(2);
      await delay(3_000);
      for (const name of pair)
        expect((await c.kubectl.pod(ns, name))?.spec.nodeName).toBe(undefined);
    });

    it('hands over: the leader stops on SIGTERM, the standby takes the Lease and schedules', async () => {
      const c = cluster();
      expect(await leader.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      const holder = await waitForLeader(c, standby);
      expect(holder).not.toBe(firstHolder);
      await c.kubectl.create(toYaml([compatPod('after', ns, { pool: 'basic', cpu: '100m' })]));
      await waitForRunning(c, ns, ['after'], standby);
    });

    it("made no request the chart's RBAC refused", () => {
      for (const run of [leader, standby]) expect(run.stdout).not.toMatch(/forbidden|\b403\b/i);
    });
  });
}
