// The compatibility leg's pieces: the chart installed with helm on one release's API server, berth run as it configures, and the leg's objects.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BerthRun, startBerthAsConfigured } from './berth.ts';
import type { Cluster } from './control-plane.ts';
import { chartDir, Helm, tokenKubeconfig } from './helm.ts';
import { type ControlPlaneRelease, controlPlaneReleases } from './kube-builds.ts';
import { freeLoopbackPort } from './kube-scheduler.ts';
import type { PodJson } from './kubectl.ts';
import { kwokNode, type Manifest, pod } from './manifests.ts';
import { podGroupCrdName } from './pod-group-crd.ts';
import { podGroupLabel } from './scenario-gang.ts';
import { waitFor } from './wait.ts';

/** The chart's release: every object is called `berth`, in `berth-system`. */
export const compatRelease = { name: 'berth', namespace: 'berth-system' } as const;

/** Label keeping each of the leg's pods to the nodes of its part. */
export const compatPoolLabel = 'berth-e2e/compat-pool';

/**
 * The releases the leg runs against: all pinned ones, or the comma-separated minors in `env`
 * (the value of BERTH_E2E_COMPAT_RELEASES, e.g. `1.35,1.37`); throws on a release not pinned.
 */
export function compatReleases(env: string | undefined): ControlPlaneRelease[] {
  if (env === undefined || env.trim() === '') return [...controlPlaneReleases];
  return env.split(',').map((text) => {
    const release = controlPlaneReleases.find((r) => r === text.trim());
    if (release === undefined)
      throw new Error(
        `BERTH_E2E_COMPAT_RELEASES: "${text}" is not one of ${controlPlaneReleases.join(', ')}`,
      );
    return release;
  });
}

/** What `installChart` leaves: berth's identity and config file as the chart installs them. */
export interface ChartInstall {
  helm: Helm;
  /** A kubeconfig with a token of the chart's ServiceAccount (not admin). */
  kubeconfig: string;
  /** The chart's ConfigMap `config.yaml`, as written to a file. */
  configFile: string;
}

/**
 * `helm install` of helm/berth (default values; its crds/ bring the PodGroup CRD) on
 * `cluster`, then a token of the chart's ServiceAccount and the chart's config file, as a
 * Deployment's pod would have them. Throws with helm's or kubectl's stderr on failure.
 */
export async function installChart(cluster: Cluster): Promise<ChartInstall> {
  const k = cluster.kubectl;
  const { name, namespace } = compatRelease;
  const helm = new Helm(
    join(cluster.binDir, 'helm'),
    cluster.kubeconfig,
    join(cluster.dir, 'helm'),
    cluster.kubeVersion,
  );
  await helm.run(['install', name, chartDir, '--namespace', namespace, '--create-namespace'], {
    timeoutMs: 120_000,
  });
  // berth lists PodGroups at start: the chart's CRD must be served by then.
  await k.run(['wait', '--for=condition=Established', `crd/${podGroupCrdName}`, '--timeout=30s'], {
    timeoutMs: 60_000,
  });
  const token = (
    await k.run(['create', 'token', name, '-n', namespace, '--duration=3600s'])
  ).stdout.trim();
  const configMap = await k.getJson<{ data: Record<string, string> }>([
    'configmap',
    name,
    '-n',
    namespace,
  ]);
  const configFile = join(cluster.dir, 'chart-config.yaml');
  writeFileSync(configFile, configMap.data['config.yaml'] ?? '');
  return {
    helm,
    kubeconfig: tokenKubeconfig(cluster.kubeconfig, token, 'berth-chart-sa'),
    configFile,
  };
}

/**
 * `berth run` with the chart's ServiceAccount and config file as they are (leader election
 * on the chart's Lease included); only the HTTPS server moves to a free loopback port.
 */
export async function startChartBerth(
  cluster: Cluster,
  install: ChartInstall,
  name: string,
): Promise<BerthRun> {
  const port = await freeLoopbackPort();
  return startBerthAsConfigured(install.kubeconfig, install.configFile, cluster.dir, name, [
    '--bind-address',
    '127.0.0.1',
    '--secure-port',
    String(port),
  ]);
}

/** The holder of the chart's Lease ('' when none). */
export async function leaseHolder(cluster: Cluster): Promise<string> {
  const lease = await cluster.kubectl.getJson<{ spec?: { holderIdentity?: string } }>([
    'lease',
    compatRelease.name,
    '-n',
    compatRelease.namespace,
  ]);
  return lease.spec?.holderIdentity ?? '';
}

/** Waits until `run` holds the chart's Lease (its identity in its own log); returns the holder. */
export function waitForLeader(cluster: Cluster, run: BerthRun, timeoutMs = 40_000) {
  return waitFor(
    `${run.name} to hold the Lease ${compatRelease.namespace}/${compatRelease.name}`,
    async () => {
      run.checkAlive();
      const holder = await leaseHolder(cluster);
      return { ok: holder !== '' && run.stdout.includes(holder), seen: holder };
    },
    { timeoutMs, intervalMs: 200 },
  );
}

/** Waits until every pod in `names` of `ns` is bound and Running; returns their nodes by name. */
export async function waitForRunning(
  cluster: Cluster,
  ns: string,
  names: string[],
  leader: BerthRun,
): Promise<Map<string, string>> {
  const seen = await waitFor(
    `${names.join(', ')} bound and Running`,
    async () => {
      leader.checkAlive();
      const ps = (await cluster.kubectl.pods(ns)).filter((p) => names.includes(p.metadata.name));
      const done = ps.filter((p) => p.spec.nodeName && p.status?.phase === 'Running');
      return { ok: done.length === names.length, seen: ps.map(placement) };
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  return new Map(seen.map((p): [string, string] => [p.pod, p.node ?? '']));
}

function placement(p: PodJson) {
  return { pod: p.metadata.name, node: p.spec.nodeName, phase: p.status?.phase };
}

/** A kwok node of pool `pool` with `cpu` and 4Gi. */
export function compatNode(name: string, pool: string, cpu: string): Manifest {
  return kwokNode(name, { cpu, memory: '4Gi', labels: { [compatPoolLabel]: pool } });
}

/** A berth pod kept to pool `pool`, with `cpu`, a PriorityClass and PodGroup label if given. */
export function compatPod(
  name: string,
  ns: string,
  opts: { pool: string; cpu: string; priorityClassName?: string; group?: string },
): Manifest {
  const p = pod(name, ns, {
    cpu: opts.cpu,
    nodeSelector: { [compatPoolLabel]: opts.pool },
    labels: opts.group === undefined ? {} : { [podGroupLabel]: opts.group },
  });
  if (opts.priorityClassName !== undefined)
    (p.spec as Record<string, unknown>).priorityClassName = opts.priorityClassName;
  return p;
}

/** A PriorityClass (cluster-scoped). */
export function priorityClass(name: string, value: number): Manifest {
  return { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value };
}
