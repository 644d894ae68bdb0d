// The end-to-end bench's binding watch and audit-log reader on a real kube-apiserver.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLatencies, podAuditPolicy } from '../../bench/e2e/audit-latency.ts';
import { watchBound } from '../../bench/e2e/bindings.ts';
import { Api } from './support/api.ts';
import { auditedRequests } from './support/audit-policy.ts';
import { useCluster } from './support/cluster.ts';
import { namespace, pod } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'bindings';

/** POSTs a Binding of pod `name` to `node`; resolves with the answer's status code. */
async function bindTo(api: Api, name: string, node: string): Promise<number> {
  const r = await api.request('POST', `/api/v1/namespaces/${ns}/pods/${name}/binding`, {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name, namespace: ns },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  });
  return r.status;
}

/** Binds pod `name`; throws unless the API server accepted it. */
async function bind(api: Api, name: string): Promise<void> {
  const status = await bindTo(api, name, 'somewhere');
  if (status !== 201) throw new Error(`binding ${name}: HTTP ${status}`);
}

describe('bench binding watch', () => {
  const cluster = useCluster('bench-bindings', { auditPolicy: podAuditPolicy(ns) });
  let api: Api;

  beforeAll(async () => {
    api = new Api(cluster().kubeconfig);
    await api.ok('POST', '/api/v1/namespaces', namespace(ns));
  });
  afterAll(() => api?.close());

  it('leaves out a pod bound before it started, even when that pod is updated later', async () => {
    // The steady bench's warm-up pod: bound before the watch, then its status changes (kwok
    // marks it Running). Counting it let a run stop one pod early and report it unbound.
    await api.createPod(ns, pod('warm-up', ns, { schedulerName: 'nobody' }));
    await bind(api, 'warm-up');
    const watch = await watchBound(api, ns);
    try {
      await api.ok('PATCH', `/api/v1/namespaces/${ns}/pods/warm-up`, {
        metadata: { labels: { touched: 'yes' } },
      });
      await api.createPod(ns, pod('later', ns, { schedulerName: 'nobody' }));
      await bind(api, 'later');
      await waitFor(
        'the later binding to be seen',
        async () => ({ ok: watch.doneAt.has('later'), seen: [...watch.doneAt.keys()] }),
        { timeoutMs: 10_000, intervalMs: 20 },
      );
      // Watch events come in resourceVersion order: the warm-up pod's update came before.
      expect([...watch.doneAt.keys()]).toEqual(['later']);
    } finally {
      watch.stop();
    }
  });

  it("reads each pod's create and successful bind from kube-apiserver's audit log", async () => {
    const names = ['audited-0', 'audited-1', 'audited-unbound'];
    for (const name of names) await api.createPod(ns, pod(name, ns, { schedulerName: 'nobody' }));
    await bind(api, 'audited-0');
    await bind(api, 'audited-1');
    // A second bind of a bound pod is refused (409) and must not replace the first.
    expect(await bindTo(api, 'audited-1', 'elsewhere')).toBe(409);
    const read = () => auditLatencies(readFileSync(cluster().auditLog, 'utf8'), names);
    // ResponseComplete is logged as the request finishes, possibly just after the answer.
    await waitFor(
      'both bindings in the audit log',
      async () => ({ ok: read().schedulerMs.length === 2, seen: read() }),
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const r = read();
    expect(r.unbound).toBe(1);
    expect(r.malformed).toBe(0);
    for (const [i, share] of r.schedulerMs.entries()) {
      // Created, then bound by this test a few requests later: well under 10 s, and after.
      expect(share).toBeGreaterThan(0);
      expect(share).toBeLessThan(10_000);
      expect(r.bindMs[i]).toBeGreaterThan(0);
      expect(r.createToBoundMs[i]).toBeCloseTo(share + (r.bindMs[i] as number), 6);
    }
    // Node heartbeats, watches and reads are not logged: only creates of pods and bindings here.
    const logged = new Set(
      auditedRequests(cluster().auditLog).map((e) => {
        const { resource, namespace, subresource } = e.objectRef;
        return `${e.verb} ${namespace}/${resource}${subresource ? `/${subresource}` : ''}`;
      }),
    );
    expect([...logged].sort()).toEqual([`create ${ns}/pods`, `create ${ns}/pods/binding`]);
  });
});
