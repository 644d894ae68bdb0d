// DRA device binding conditions with berth on a real API server under the chart's RBAC, the test playing the driver: a pod binds only once its device's condition is True; a binding-failure condition leaves it unbound and its claim released; the recording replays.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  type BindingSite,
  bindingPod,
  claimReservedFor,
  createBindingSite,
  driverSets,
  failAndWatch,
} from './support/dra-binding.ts';
import { eventsAbout } from './support/kubectl.ts';
import { waitFor } from './support/wait.ts';

const site: BindingSite = {
  ns: 'dra-bindcond',
  node: 'bc-node',
  driver: 'fabric.example.com',
  schedulerName: 'berth',
};
const { ns, node } = site;

describe('DRA binding conditions with berth (chart RBAC, kube-apiserver 1.37.2)', () => {
  const cluster = useCluster('dra-binding-conditions');
  let admin: Api;
  let berth: BerthRun | undefined;
  let record = '';

  const getPod = (name: string) =>
    admin.ok<{ metadata: { uid: string }; spec: { nodeName?: string } }>(
      'GET',
      `/api/v1/namespaces/${ns}/pods/${name}`,
    );

  beforeAll(async () => {
    const c = cluster();
    admin = new Api(c.kubeconfig);
    await createBindingSite(admin, site, ['c-ok', 'c-fail']);
    record = join(c.dir, 'binding-conditions.record.jsonl');
    berth = await startBerth(c, { name: 'berth-bindcond', args: ['--record', record] });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL', 5_000);
    admin?.close();
  });

  it('holds the pod unbound after writing its claim, until the driver sets the condition True; then binds it', async () => {
    await admin.createPod(ns, bindingPod(site, 'p-ok', 'c-ok'));
    const written = await claimReservedFor(admin, site, 'c-ok', 'p-ok');
    expect(written.status?.allocation?.devices.results[0]).toMatchObject({
      bindingConditions: ['Attached'],
      bindingFailureConditions: ['AttachFailed'],
    });
    // bindsToNode: the allocation is limited to the node it was made for.
    expect(written.status?.allocation?.nodeSelector).toEqual({
      nodeSelectorTerms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] },
      ],
    });
    expect(written.status?.allocation?.allocationTimestamp).toMatch(/Z$/);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await getPod('p-ok')).spec.nodeName).toBeUndefined();
    const events = await cluster().kubectl.events(ns);
    expect(eventsAbout(events, 'p-ok', 'BindingConditionsPending').map((e) => e.note)).toContain(
      `waiting for binding conditions for device on node ${node}`,
    );
    await driverSets(admin, site, 'c-ok', {
      type: 'Attached',
      reason: 'Attached',
      message: 'attached to the node',
    });
    await waitFor('p-ok bound', async () => {
      const p = await getPod('p-ok');
      return { ok: p.spec.nodeName === node, seen: p.spec };
    });
  });

  it('on a binding failure leaves the pod unbound, takes it out of the claim and deallocates the claim', async () => {
    await admin.createPod(ns, bindingPod(site, 'p-fail', 'c-fail'));
    await claimReservedFor(admin, site, 'c-fail', 'p-fail');
    const states = await failAndWatch(admin, site, 'c-fail');
    // The driver's write, kube's Unreserve (the allocation and the failure stay), the
    // next cycle's PostFilter deallocation (status.devices cleared with it).
    expect(states.slice(0, 3)).toEqual([
      'allocated holders=1 failed',
      'allocated holders=0 failed',
      'free holders=0',
    ]);
    expect((await getPod('p-fail')).spec.nodeName).toBeUndefined();
    const notes = await waitFor('the FailedScheduling Events of p-fail', async () => {
      const events = eventsAbout(await cluster().kubectl.events(ns), 'p-fail', 'FailedScheduling');
      const seen = events.map((e) => e.note ?? '');
      return { ok: seen.some((n) => n.includes('deallocation of ResourceClaim completed')), seen };
    });
    expect(notes).toContain(
      'running PreBind plugin "DynamicResources": device binding failed: claim=c-fail, reason=NoPort, message="no free fabric port"',
    );
  });

  it('berth replay reproduces every recorded decision', async () => {
    await berth?.stop('SIGTERM', 10_000);
    berth = undefined;
    const r = await berthCommand(['replay', record, '--json', '--allow-unsealed']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { placements: Record<string, string> };
    expect(summary.placements[`${ns}/p-ok`]).toBe(node);
    expect(summary.placements[`${ns}/p-fail`]).toBeUndefined();
  });
});
