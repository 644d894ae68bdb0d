// A fresh control plane with kwok nodes and pods for one end-to-end bench run.
import { Api, waitForReadyNodes } from '../../test/e2e/support/api.ts';
import { Cluster, type ClusterOptions } from '../../test/e2e/support/control-plane.ts';
import { kwokNode, type Manifest, namespace } from '../../test/e2e/support/manifests.ts';

/** The namespace every bench pod lives in. */
export const benchNamespace = 'bench';

/** A started control plane and a client for it. */
export interface BenchCluster {
  cluster: Cluster;
  api: Api;
  /** Stops the control plane and closes the client (the dir is kept when `keep`). */
  down(keep?: boolean): Promise<void>;
}

/** POSTs `objects` to `path`, `parallel` at a time; throws on the first refusal. */
export async function createAll(
  api: Api,
  path: string,
  objects: Manifest[],
  parallel = 48,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const object = objects[next++];
      await api.ok('POST', path, object);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** How to start a bench cluster: the control plane's options, and the nodes' shape. */
export interface BenchClusterOptions extends ClusterOptions {
  /** Node `i`'s manifest; default a kwok node `node-i` with 4 cpu, 16Gi and 110 pods. */
  node?: (i: number) => Manifest;
}

const defaultNode = (i: number) => kwokNode(`node-${i}`, { cpu: '4', memory: '16Gi', pods: 110 });

/**
 * Starts etcd, kube-apiserver and kwok in a fresh dir, creates the bench namespace and
 * `nodes` kwok nodes (`options.node`, by default 4 cpu, 16Gi, 110 pods), and waits until
 * kwok reports all Ready. `options.auditPolicy` turns on kube-apiserver's audit log and
 * `options.controllers` kube-controller-manager (see {@link Cluster.up}).
 */
export async function upWithNodes(
  label: string,
  nodes: number,
  options: BenchClusterOptions = {},
): Promise<BenchCluster> {
  const { node = defaultNode, ...clusterOptions } = options;
  const cluster = new Cluster(label);
  await cluster.up(clusterOptions);
  const api = new Api(cluster.kubeconfig, 64);
  const down = async (keep = process.env.BERTH_BENCH_KEEP !== undefined) => {
    api.close();
    await cluster.down(keep);
  };
  try {
    await api.ok('POST', '/api/v1/namespaces', namespace(benchNamespace));
    const manifests = Array.from({ length: nodes }, (_, i) => node(i));
    await createAll(api, '/api/v1/nodes', manifests);
    await waitForReadyNodes(api, nodes, { timeoutMs: 300_000, intervalMs: 1_000 });
  } catch (error) {
    await down(true);
    throw error;
  }
  return { cluster, api, down };
}
