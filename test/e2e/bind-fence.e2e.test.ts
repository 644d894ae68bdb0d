// The chart's bind fence on a real API server: a Binding from a replica that does not hold the Lease is refused (403), one from the holder goes through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { chartAccess, chartRelease } from './support/chart-access.ts';
import { useCluster } from './support/cluster.ts';
import type { PodJson } from './support/kubectl.ts';
import { kwokNode, namespace, pods, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'fence';
const node = 'fence-n';
/** The chart's Lease with default values: the scheduler name, in the release namespace. */
const lease = { namespace: chartRelease.namespace, name: 'berth' };
const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${lease.namespace}/leases/${lease.name}`;

function binding(pod: string, annotations?: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: pod, namespace: ns, ...(annotations === undefined ? {} : { annotations }) },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  };
}

/** The annotations berth puts on a Binding under leader election, as `holder`. */
const fencedBy = (holder: string, leaseName = `${lease.namespace}/${lease.name}`) => ({
  'berth.dev/lease': leaseName,
  'berth.dev/holder': holder,
});

describe('the bind fence (chart ValidatingAdmissionPolicy, Lease held by replica-b)', () => {
  const cluster = useCluster('bind-fence');
  let admin: Api;
  let berth: Api;

  const bind = (pod: string, annotations?: Record<string, string>, query = '') =>
    berth.request<{ message?: string }>(
      'POST',
      `/api/v1/namespaces/${ns}/pods/${pod}/binding${query}`,
      binding(pod, annotations),
    );
  const podNow = (name: string) =>
    admin.ok<PodJson>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);

  beforeAll(async () => {
    const c = cluster();
    const chart = await chartAccess(c);
    admin = new Api(c.kubeconfig);
    berth = new Api(chart.kubeconfig);
    await c.kubectl.apply(toYaml([namespace(ns), kwokNode(node, { cpu: '8', memory: '16Gi' })]));
    // No scheduler is called `nobody`: only this test binds these pods.
    const created = pods('p', ns, 5, { schedulerName: 'nobody' });
    await Promise.all(created.map((p) => admin.createPod(ns, p)));
    const now = new Date().toISOString().replace('Z', '000Z');
    await admin.ok('PATCH', leasePath, {
      spec: { holderIdentity: 'replica-b', leaseDurationSeconds: 15, renewTime: now },
    });
    // The API server loads the policy and reads the Lease from informers: wait (dry runs,
    // nothing bound) until the holder's bind is admitted and another replica's is refused —
    // before the policy is loaded every bind is admitted, so the first alone proves nothing.
    await waitFor('the policy to see replica-b hold the Lease', async () => {
      const holder = await bind('p-0', fencedBy('replica-b'), '?dryRun=All');
      const other = await bind('p-0', fencedBy('replica-a'), '?dryRun=All');
      return {
        ok: holder.status === 201 && other.status === 403,
        seen: [holder.status, other.status],
      };
    });
  });

  afterAll(() => {
    admin?.close();
    berth?.close();
  });

  it('refuses a bind from a replica that does not hold the Lease, with the fence message', async () => {
    const r = await bind('p-0', fencedBy('replica-a'));
    expect(r.status).toBe(403);
    expect(r.body.message).toContain(
      'berth bind fence: the replica that sent this bind does not hold Lease berth-system/berth',
    );
    expect((await podNow('p-0')).spec.nodeName).toBeUndefined();
  });

  it("admits the holder's bind; the pod keeps the annotations (which replica bound it)", async () => {
    const r = await bind('p-1', fencedBy('replica-b'));
    expect(r.status).toBe(201);
    const p = await podNow('p-1');
    expect(p.spec.nodeName).toBe(node);
    expect(p.metadata.annotations?.['berth.dev/holder']).toBe('replica-b');
  });

  it('leaves Bindings alone that name no Lease, or another Lease (leader election off, other releases)', async () => {
    expect((await bind('p-2')).status).toBe(201);
    expect((await bind('p-3', fencedBy('replica-a', 'elsewhere/other'))).status).toBe(201);
  });

  it('refuses every fenced bind once the Lease is released (holder empty)', async () => {
    await admin.ok('PATCH', leasePath, { spec: { holderIdentity: '' } });
    await waitFor('the policy to see the Lease released', async () => {
      const r = await bind('p-4', fencedBy('replica-b'), '?dryRun=All');
      return { ok: r.status === 403, seen: r.status };
    });
    expect((await bind('p-4', fencedBy('replica-b'))).status).toBe(403);
    expect((await podNow('p-4')).spec.nodeName).toBeUndefined();
  });
});
