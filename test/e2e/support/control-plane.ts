// A throwaway control plane (etcd, kube-apiserver, kwok): up.sh / down.sh in a fresh temp dir, plus raw etcd access.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlPlaneRelease } from './kube-builds.ts';
import { Kubectl } from './kubectl.ts';
import { clusterScripts as scriptsDir } from './paths.ts';

/** Clusters started by this process and not yet stopped (stopped on exit as a last resort). */
const live = new Set<Cluster>();
process.once('exit', () => {
  for (const cluster of live) {
    spawnSync('bash', [join(scriptsDir, 'down.sh'), cluster.dir], { stdio: 'ignore' });
  }
});

interface ScriptResult {
  code: number;
  output: string;
}

function runScript(
  script: string,
  dir: string,
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<ScriptResult> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [join(scriptsDir, script), dir],
      {
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 16 << 20,
        env: { ...process.env, ...env },
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^export ([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) env[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  }
  return env;
}

/** How to start a control plane beyond the defaults. */
export interface ClusterOptions {
  /** An audit.k8s.io/v1 Policy (YAML): kube-apiserver logs what it selects to DIR/audit.log. */
  auditPolicy?: string;
  /**
   * The Kubernetes minor whose kube-apiserver to run (its pinned patch, built once by
   * `build.sh --kube`); default the pinned K8S_VERSION. etcd and kwok are the main set's.
   */
  release?: ControlPlaneRelease;
  /**
   * kube-controller-manager controllers to run (kube's names, e.g. `resourceclaim-controller`):
   * up.sh then starts kube-controller-manager with only these. Default none (no controller
   * manager). Needs the pinned K8S_VERSION's kube-apiserver (no `release`).
   */
  controllers?: string[];
  /** kube-controller-manager's client QPS (burst twice that); default kube's 20 (burst 30). */
  controllerManagerQps?: number;
  /**
   * More kube-controller-manager flags (with `controllers`), e.g.
   * `--feature-gates=GenericWorkload=true,WorkloadWithJob=true`. Each one `--name=value` word.
   */
  controllerManagerFlags?: string[];
  /**
   * More kube-apiserver flags, e.g. `--feature-gates=GenericWorkload=true` (kept for restarts).
   * Each must be one `--name=value` word.
   */
  apiserverFlags?: string[];
}

/** One control plane (etcd, kube-apiserver, kwok, optionally kube-controller-manager) whose state and logs live in `dir`. */
export class Cluster {
  readonly dir: string;
  /** How long `up` took, in ms (0 before it finished). */
  upMs = 0;
  private env: Record<string, string> | undefined;

  /** Creates a fresh temp dir for a cluster named after `label`; nothing is started yet. */
  constructor(readonly label: string) {
    this.dir = mkdtempSync(join(tmpdir(), `berth-e2e-${label}-`));
  }

  private value(key: string): string {
    const v = this.env?.[key];
    if (v === undefined) throw new Error(`cluster ${this.dir} is not up (no ${key} in its env)`);
    return v;
  }

  /** Admin kubeconfig (bearer token in system:masters). */
  get kubeconfig(): string {
    return this.value('KUBECONFIG');
  }

  /** `https://127.0.0.1:PORT` of kube-apiserver. */
  get apiserverUrl(): string {
    return this.value('APISERVER_URL');
  }

  /** etcd's client URL (its gRPC gateway serves /v3/kv/* as JSON). */
  get etcdUrl(): string {
    return `http://127.0.0.1:${this.value('ETCD_CLIENT_PORT')}`;
  }

  /** Directory of the cached control-plane binaries (etcd, kube-apiserver, kube-scheduler, kwok). */
  get binDir(): string {
    return this.value('BERTH_E2E_BIN');
  }

  /** Directory of this cluster's kube-apiserver and the kube-scheduler of the same release. */
  get kubeBinDir(): string {
    return this.env?.BERTH_E2E_KUBE_BIN ?? this.binDir;
  }

  /** The Kubernetes tag kube-apiserver was built from, e.g. `v1.37.2`. */
  get kubeVersion(): string {
    return this.value('K8S_VERSION');
  }

  /** A kubectl bound to this cluster's kubeconfig. */
  get kubectl(): Kubectl {
    return new Kubectl(this.kubeconfig);
  }

  /** kube-apiserver's audit log (JSON lines); written only when started with an audit policy. */
  get auditLog(): string {
    return join(this.dir, 'audit.log');
  }

  /** kube-controller-manager's log (only when started with `controllers`). */
  get controllerManagerLog(): string {
    return join(this.dir, 'kube-controller-manager.log');
  }

  /** The control plane's processes by name (etcd, kube-apiserver, kwok, kube-controller-manager), from DIR/pids. */
  pids(): Record<string, number> {
    const pids: Record<string, number> = {};
    for (const line of readFileSync(join(this.dir, 'pids'), 'utf8').split('\n')) {
      const [name, pid] = line.trim().split(/\s+/);
      if (name !== undefined && name !== '' && pid !== undefined) pids[name] = Number(pid);
    }
    return pids;
  }

  /**
   * Starts etcd, kube-apiserver and kwok with up.sh; throws with up.sh's output on failure.
   * With `auditPolicy` (an audit.k8s.io/v1 Policy as YAML), kube-apiserver audits what it
   * selects to {@link auditLog}; with `release`, that release's kube-apiserver runs.
   */
  async up(options: ClusterOptions = {}): Promise<void> {
    live.add(this);
    const env: Record<string, string> = {};
    if (options.auditPolicy !== undefined) {
      const file = join(this.dir, 'audit-policy.requested.yaml');
      writeFileSync(file, options.auditPolicy);
      env.BERTH_E2E_AUDIT_POLICY = file;
    }
    if (options.release !== undefined) env.BERTH_E2E_KUBE = options.release;
    if (options.controllers !== undefined)
      env.BERTH_E2E_CONTROLLERS = options.controllers.join(',');
    if (options.controllerManagerQps !== undefined)
      env.BERTH_E2E_KCM_QPS = String(options.controllerManagerQps);
    if (options.controllerManagerFlags !== undefined)
      env.BERTH_E2E_KCM_FLAGS = options.controllerManagerFlags.join(' ');
    if (options.apiserverFlags !== undefined)
      env.BERTH_E2E_APISERVER_FLAGS = options.apiserverFlags.join(' ');
    // A release not built yet is built first (build.sh --kube): allow for a cold build.
    const timeoutMs = options.release === undefined ? 180_000 : 30 * 60_000;
    const started = Date.now();
    const r = await runScript('up.sh', this.dir, timeoutMs, env);
    this.upMs = Date.now() - started;
    if (r.code !== 0) throw new Error(`up.sh ${this.dir} failed (exit ${r.code}):\n${r.output}`);
    this.env = parseEnvFile(readFileSync(join(this.dir, 'env'), 'utf8'));
  }

  /**
   * Restarts kube-apiserver on the same port and etcd; resolves once it is ready again.
   * `stopGraceSeconds` (default 3) is how long it may drain before SIGKILL: 0 kills it at
   * once, dropping every watch together with the listener.
   */
  async restartApiserver(stopGraceSeconds?: number): Promise<void> {
    const env: Record<string, string> =
      stopGraceSeconds === undefined
        ? {}
        : { BERTH_E2E_APISERVER_STOP_GRACE: String(stopGraceSeconds) };
    const r = await runScript('restart-apiserver.sh', this.dir, 120_000, env);
    if (r.code !== 0)
      throw new Error(`restart-apiserver.sh ${this.dir} failed (exit ${r.code}):\n${r.output}`);
  }

  /** Stops every process of the cluster (idempotent); removes the dir unless `keep`. */
  async down(keep = false): Promise<void> {
    const r = await runScript('down.sh', this.dir, 60_000);
    live.delete(this);
    if (r.code !== 0) throw new Error(`down.sh ${this.dir} failed (exit ${r.code}):\n${r.output}`);
    if (!keep) rmSync(this.dir, { recursive: true, force: true });
  }

  /** Calls an etcd v3 JSON gateway endpoint (e.g. `kv/range`) with `body`. */
  async etcd(endpoint: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.etcdUrl}/v3/${endpoint}`, {
      method: 'POST',
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`etcd ${endpoint}: HTTP ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** etcd's current revision (the resourceVersion any new write will exceed). */
  async etcdRevision(): Promise<number> {
    const r = await this.etcd('kv/range', { key: b64('/registry/'), count_only: true });
    return Number((r.header as { revision?: string } | undefined)?.revision);
  }

  /**
   * Deletes a pod behind kube-apiserver's back, straight from etcd (works while the
   * apiserver is down). Returns how many keys were deleted (0 or 1).
   */
  async deletePodInEtcd(namespace: string, name: string): Promise<number> {
    const r = await this.etcd('kv/deleterange', {
      key: b64(`/registry/pods/${namespace}/${name}`),
    });
    return Number(r.deleted ?? 0);
  }

  /** Compacts etcd's history up to its current revision, so older revisions are gone. */
  async compactEtcd(): Promise<number> {
    const revision = await this.etcdRevision();
    await this.etcd('kv/compaction', { revision: String(revision), physical: true });
    return revision;
  }
}

function b64(s: string): string {
  return Buffer.from(s).toString('base64');
}
