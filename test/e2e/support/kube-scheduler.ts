// The real kube-scheduler as a reference: started against a test cluster, stopped by pid.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Cluster } from './control-plane.ts';
import { httpsGet, type ServedResponse } from './https-get.ts';
import { type ControlPlaneRelease, kubeBuild } from './kube-builds.ts';

export type { ServedResponse } from './https-get.ts';

/** A running kube-scheduler (scheduler name `default-scheduler`). */
export interface KubeScheduler {
  logPath: string;
  /** `https://127.0.0.1:PORT` when started with `securePort`, else undefined. */
  servingUrl: string | undefined;
  /**
   * GETs `path` (e.g. `/metrics`) from the serving port, anonymously and without checking its
   * self-signed certificate (`curl -k`). Rejects when the scheduler has no serving port.
   */
  get(path: string): Promise<ServedResponse>;
  /** The process id. */
  pid: number;
  /** SIGTERM, then SIGKILL after 5 s; resolves when it has exited. */
  stop(): Promise<void>;
}

/** Options of `startKubeScheduler`; by default no serving port and no leader election. */
export interface KubeSchedulerOptions {
  /**
   * Serve HTTPS on 127.0.0.1:PORT (self-signed certificate in the cluster dir), with
   * /metrics readable anonymously next to the health paths.
   */
  securePort?: number;
  /** Elect a leader through the Lease `namespace/name` (kube's default timings: 15 s, 10 s, 2 s). */
  leaderElection?: { namespace: string; name: string };
  /** KubeSchedulerConfiguration's `percentageOfNodesToScore` (left out, i.e. adaptive, by default). */
  percentageOfNodesToScore?: number;
  /** Base name of the config and log files in the cluster dir (default `kube-scheduler`). */
  name?: string;
  /** Client rate limit (`clientConnection.qps`/`burst`); default 50/100, as kube's defaults. */
  qps?: number;
  burst?: number;
  /** klog verbosity (`-v`), e.g. 2 to log each preemption and victim; default kube's. */
  verbosity?: number;
  /**
   * Run that release's kube-scheduler binary (its pinned patch, built once by `build.sh
   * --kube`), e.g. 1.35 as the oracle of berth's `--emulated-version 1.35`; default the
   * cluster's own release (the pinned K8S_VERSION unless the cluster was started with another).
   */
  release?: ControlPlaneRelease;
  /** kube's own `--emulated-version` (KEP-4330), e.g. `1.35`; default none (the binary's). */
  emulatedVersion?: string;
  /** `--feature-gates`, e.g. `['GenericWorkload=true']`; default none (the release's defaults). */
  featureGates?: string[];
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

function leaderElectionYaml(election: KubeSchedulerOptions['leaderElection']): string[] {
  if (election === undefined) return ['leaderElection:', '  leaderElect: false'];
  return [
    'leaderElection:',
    '  leaderElect: true',
    '  resourceLock: leases',
    `  resourceNamespace: ${election.namespace}`,
    `  resourceName: ${election.name}`,
  ];
}

function servingFlags(cluster: Cluster, securePort: number | undefined): string[] {
  if (securePort === undefined) return ['--secure-port=0'];
  // No authentication/authorization kubeconfig: every request is anonymous, and only the
  // always-allowed paths are authorized, /metrics among them.
  return [
    `--secure-port=${securePort}`,
    '--bind-address=127.0.0.1',
    `--cert-dir=${join(cluster.dir, 'kube-scheduler-certs')}`,
    '--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics',
  ];
}

/** The kube-scheduler binary `opts` select on `cluster`. */
export function kubeSchedulerBinary(cluster: Cluster, opts: KubeSchedulerOptions = {}): string {
  const dir = opts.release === undefined ? cluster.kubeBinDir : kubeBuild(opts.release).binDir;
  return join(dir, 'kube-scheduler');
}

/** Writes the KubeSchedulerConfiguration `opts` describe to NAME.yaml in the cluster dir; returns its path. */
export function writeKubeSchedulerConfig(
  cluster: Cluster,
  opts: KubeSchedulerOptions = {},
): string {
  const configPath = join(cluster.dir, `${opts.name ?? 'kube-scheduler'}.yaml`);
  writeFileSync(
    configPath,
    [
      'apiVersion: kubescheduler.config.k8s.io/v1',
      'kind: KubeSchedulerConfiguration',
      'clientConnection:',
      `  kubeconfig: ${cluster.kubeconfig}`,
      `  qps: ${opts.qps ?? 50}`,
      `  burst: ${opts.burst ?? 100}`,
      ...leaderElectionYaml(opts.leaderElection),
      ...(opts.percentageOfNodesToScore === undefined
        ? []
        : [`percentageOfNodesToScore: ${opts.percentageOfNodesToScore}`]),
      '',
    ].join('\n'),
  );
  return configPath;
}

/** The flags after `--config` that `opts` select (emulated version, verbosity, feature gates). */
export function kubeSchedulerFlags(opts: KubeSchedulerOptions): string[] {
  return [
    ...(opts.verbosity === undefined ? [] : [`-v=${opts.verbosity}`]),
    ...(opts.emulatedVersion === undefined ? [] : [`--emulated-version=${opts.emulatedVersion}`]),
    ...(opts.featureGates === undefined ? [] : [`--feature-gates=${opts.featureGates.join(',')}`]),
  ];
}

/**
 * Starts the cluster's kube-scheduler binary (or `release`'s), logging to `kube-scheduler.log` (or
 * `NAME.log`) in the cluster dir. With no options: leader election off, no serving port and
 * kube's adaptive percentage of nodes to score.
 */
export function startKubeScheduler(
  cluster: Cluster,
  opts: KubeSchedulerOptions = {},
): KubeScheduler {
  const base = opts.name ?? 'kube-scheduler';
  const configPath = writeKubeSchedulerConfig(cluster, opts);
  const logPath = join(cluster.dir, `${base}.log`);
  const log = createWriteStream(logPath);
  const child: ChildProcess = spawn(
    kubeSchedulerBinary(cluster, opts),
    [
      `--config=${configPath}`,
      ...servingFlags(cluster, opts.securePort),
      ...kubeSchedulerFlags(opts),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const servingUrl =
    opts.securePort === undefined ? undefined : `https://127.0.0.1:${opts.securePort}`;
  return {
    logPath,
    servingUrl,
    pid: child.pid ?? -1,
    get(path) {
      if (servingUrl === undefined)
        return Promise.reject(new Error('kube-scheduler was started without a serving port'));
      return httpsGet(`${servingUrl}${path}`);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
