// The end-to-end bench's binding watch on a real kube-apiserver: only pods bound after it starts count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchBound } from '../../bench/e2e/bindings.ts';
import { Api } from './support/api.ts';
import { useCluster } from './support/cluster.ts';
import { namespace, pod } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'bindings';

async function bind(api: Api, name: string): Promise<void> {
  await api.ok('POST', `/api/v1/namespaces/${ns}/pods/${name}/binding`, {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name, namespace: ns },
    target: { apiVersion: 'v1', kind: 'Node', name: 'somewhere' },
  });
}

describe('bench binding watch', () => {
  const cluster = useCluster('bench-bindings');
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
        async () => ({ ok: watch.boundAt.has('later'), seen: [...watch.boundAt.keys()] }),
        { timeoutMs: 10_000, intervalMs: 20 },
      );
      // Watch events come in resourceVersion order: the warm-up pod's update came before.
      expect([...watch.boundAt.keys()]).toEqual(['later']);
    } finally {
      watch.stop();
    }
  });
});
