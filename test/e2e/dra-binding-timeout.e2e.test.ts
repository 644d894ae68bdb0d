// DRA binding conditions that never come true, with berth on a real API server under the chart's RBAC: the bind gives up at DynamicResourcesArgs' bindingTimeout (3 s here), the pod is told, and its claim is unreserved and then deallocated as timed out.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  type BindingSite,
  bindingPod,
  createBindingSite,
  watchClaim,
} from './support/dra-binding.ts';
import { eventsAbout } from './support/kubectl.ts';
import { waitFor } from './support/wait.ts';

const site: BindingSite = {
  ns: 'dra-bindtimeout',
  node: 'bt-node',
  driver: 'fabric.example.com',
  schedulerName: 'berth',
};

describe('DRA binding timeout with berth (chart RBAC, kube-apiserver 1.37.2)', () => {
  const cluster = useCluster('dra-binding-timeout');
  let admin: Api;
  let berth: BerthRun | undefined;

  beforeAll(async () => {
    const c = cluster();
    admin = new Api(c.kubeconfig);
    await createBindingSite(admin, site, ['c-slow']);
    const config = join(c.dir, 'bindcond-config.json');
    writeFileSync(
      config,
      JSON.stringify({
        apiVersion: 'kubescheduler.config.k8s.io/v1',
        kind: 'KubeSchedulerConfiguration',
        profiles: [
          {
            schedulerName: 'berth',
            pluginConfig: [{ name: 'DynamicResources', args: { bindingTimeout: '3s' } }],
          },
        ],
      }),
    );
    berth = await startBerth(c, { name: 'berth-bindtimeout', args: ['--config', config] });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL', 5_000);
    admin?.close();
  });

  it('gives up after bindingTimeout, tells the pod, unreserves and then deallocates the claim', async () => {
    const started = Date.now();
    const states = await watchClaim(
      admin,
      site,
      'c-slow',
      async () => void (await admin.createPod(site.ns, bindingPod(site, 'p-slow', 'c-slow'))),
      'free holders=0',
    );
    const tookMs = Date.now() - started;
    // PreBind's finalizer update, its allocation with the pod, the timeout's Unreserve, and
    // the next cycle's deallocation (allocationTimestamp + 3 s has passed).
    expect(states.slice(0, 4)).toEqual([
      'free holders=0',
      'allocated holders=1',
      'allocated holders=0',
      'free holders=0',
    ]);
    expect(tookMs).toBeGreaterThanOrEqual(3000);
    const p = await admin.ok<{ spec: { nodeName?: string } }>(
      'GET',
      `/api/v1/namespaces/${site.ns}/pods/p-slow`,
    );
    expect(p.spec.nodeName).toBeUndefined();
    const notes = await waitFor('the FailedScheduling Events of p-slow', async () => {
      const events = eventsAbout(
        await cluster().kubectl.events(site.ns),
        'p-slow',
        'FailedScheduling',
      );
      const seen = events.map((e) => e.note ?? '');
      return { ok: seen.some((n) => n.includes('deallocation of ResourceClaim completed')), seen };
    });
    expect(notes).toContain(
      'running PreBind plugin "DynamicResources": device binding timeout: context deadline exceeded',
    );
  });
});
