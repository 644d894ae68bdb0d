// A fresh control plane with kwok (or static) nodes and pods for one end-to-end bench run.
import { Api, waitForReadyNodes } from '../../test/e2e/support/api.ts';
import { Cluster, type ClusterOptions } from '../../test/e2e/support/control-plane.ts';
import { kwokNode, type Manifest, namespace } from '../../test/e2e/support/manifests.ts';
import { waitFor } from '../../test/e2e/support/wait.ts';

/** The namespace every bench pod lives in. */
export const benchNamespace = 'bench';

/** A started control plane and a client for it. */
export interface BenchCluster {
  cluster: Cluster;
  api: Api;
  /** The control plane's processes still running (kwok left out once stopped for static nodes). */
  pids(): Record<string, number>;
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
  /**
   * Static nodes, as scheduler_perf's: kwok is stopped before the nodes are made, so nothing
   * heartbeats them; their status is the one they are created with (`node` must carry it).
   */
  staticNodes?: boolean;
}

/** Stops kwok (SIGTERM by its pid) and waits until it is gone. */
async function stopKwok(cluster: Cluster): Promise<void> {
  const pid = cluster.pids().kwok;
  if (pid === undefined) return;
  process.kill(pid, 'SIGTERM');
  await waitFor(
    'kwok to exit',
    async () => {
      try {
        process.kill(pid, 0);
        return { ok: false, seen: 'running' };
      } catch {
        return { ok: true, seen: 'gone' };
      }
    },
    { timeoutMs: 10_000, intervalMs: 100 },
  );
}

/**
 * Throws unless node `name` kept the status it was created with (the API server keeps a
 * node's status on create; on update only nodes/status changes it).
 */
async function checkStatusKept(api: Api, name: string, sent: Manifest): Promise<void> {
  const got = await api.ok<{ status?: unknown }>('GET', `/api/v1/nodes/${name}`);
  const want = JSON.stringify((sent.status as { allocatable?: unknown }).allocatable);
  const kept = JSON.stringify((got.status as { allocatable?: unknown } | undefined)?.allocatable);
  if (kept !== want)
    throw new Error(`node ${name}: status.allocatable ${kept}, created with ${want}`);
}

const defaultNode = (i: number) => kwokNode(`node-${i}`, { cpu: '4', memory: '16Gi', pods: 110 });

/**
 * Starts etcd, kube-apiserver and kwok in a fresh dir, creates the bench namespace and
 * `nodes` kwok nodes (`options.node`, by default 4 cpu, 16Gi, 110 pods), and waits until
 * kwok reports all Ready; with `options.staticNodes`, stops kwok first and checks the
 * nodes kept the status they were created with. `options.auditPolicy` turns on kube-apiserver's audit log and
 * `options.controllers` kube-controller-manager (see {@link Cluster.up}).
 */
export async function upWithNodes(
  label: string,
  nodes: number,
  options: BenchClusterOptions = {},
): Promise<BenchCluster> {
  const { node = defaultNode, staticNodes = false, ...clusterOptions } = options;
  const cluster = new Cluster(label);
  await cluster.up(clusterOptions);
  const api = new Api(cluster.kubeconfig, 64);
  const down = async (keep = process.env.BERTH_BENCH_KEEP !== undefined) => {
    api.close();
    await cluster.down(keep);
  };
  const pids = () => {
    const all = cluster.pids();
    if (staticNodes) delete all.kwok;
    return all;
  };
  try {
    if (staticNodes) await stopKwok(cluster);
    await api.ok('POST', '/api/v1/namespaces', namespace(benchNamespace));
    const manifests = Array.from({ length: nodes }, (_, i) => node(i));
    await createAll(api, '/api/v1/nodes', manifests);
    const first = manifests[0];
    if (staticNodes && first !== undefined)
      await checkStatusKept(api, (first.metadata as { name: string }).name, first);
    await waitForReadyNodes(api, nodes, { timeoutMs: 300_000, intervalMs: 1_000 });
  } catch (error) {
    await down(true);
    throw error;
  }
  return { cluster, api, pids, down };
}
