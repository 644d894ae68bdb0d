// A real Prometheus (built by test/e2e/cluster/build-prometheus.sh, optional) scraping a test target, and its HTTP API.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freeLoopbackPort } from './kube-scheduler.ts';

/** Where build-prometheus.sh puts the binary (BERTH_E2E_PROMETHEUS overrides). */
export const prometheusBin =
  process.env.BERTH_E2E_PROMETHEUS ??
  join(
    process.env.BERTH_E2E_CACHE ?? join(homedir(), '.cache/berth-e2e'),
    'prometheus-v0.316.0/prometheus',
  );

/** Whether the Prometheus binary has been built. */
export function havePrometheus(): boolean {
  return existsSync(prometheusBin);
}

/** One scrape job: a ServiceMonitor endpoint's settings in Prometheus' own terms. */
export interface ScrapeJob {
  name: string;
  target: string;
  scheme: 'http' | 'https';
  path: string;
  /** A file holding the bearer token (the endpoint's bearerTokenFile); none: no token. */
  bearerTokenFile?: string;
  /** tls_config.insecure_skip_verify (the endpoint's tlsConfig.insecureSkipVerify). */
  insecureSkipVerify?: boolean;
}

/** A target as /api/v1/targets reports it. */
export interface TargetHealth {
  job: string;
  health: string;
  lastError: string;
}

/** A running Prometheus on a free loopback port, scraping every second. */
export class Prometheus {
  private readonly child: ChildProcess;
  readonly url: string;

  private constructor(child: ChildProcess, url: string) {
    this.child = child;
    this.url = url;
  }

  /** Writes the config for `jobs` in `dir` and starts Prometheus with its data in `dir`. */
  static async start(dir: string, jobs: ScrapeJob[]): Promise<Prometheus> {
    mkdirSync(join(dir, 'prometheus-data'), { recursive: true });
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '1s' },
      scrape_configs: jobs.map((j) => ({
        job_name: j.name,
        scheme: j.scheme,
        metrics_path: j.path,
        ...(j.bearerTokenFile === undefined
          ? {}
          : { authorization: { type: 'Bearer', credentials_file: j.bearerTokenFile } }),
        tls_config: { insecure_skip_verify: j.insecureSkipVerify ?? false },
        static_configs: [{ targets: [j.target] }],
      })),
    };
    const configFile = join(dir, 'prometheus.yml');
    writeFileSync(configFile, stringify(config));
    const port = await freeLoopbackPort();
    const log = createWriteStream(join(dir, 'prometheus.log'));
    const child = spawn(
      prometheusBin,
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(dir, 'prometheus-data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    return new Prometheus(child, `http://127.0.0.1:${port}`);
  }

  /** Whether the process is still running. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** GETs an API path and returns its `data`; throws on anything but a success answer. */
  async api<T>(path: string): Promise<T> {
    const res = await fetch(`${this.url}${path}`, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { status?: string; data?: T; error?: string };
    if (body.status !== 'success') throw new Error(`${path}: ${body.error ?? res.status}`);
    return body.data as T;
  }

  /** Instant query: each series' labels and value. */
  async query(q: string): Promise<{ metric: Record<string, string>; value: number }[]> {
    const data = await this.api<{
      result: { metric: Record<string, string>; value: [number, string] }[];
    }>(`/api/v1/query?query=${encodeURIComponent(q)}`);
    return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  }

  /** The active targets' health and last scrape error, by job. */
  async targets(): Promise<TargetHealth[]> {
    const data = await this.api<{
      activeTargets: { labels: { job: string }; health: string; lastError: string }[];
    }>('/api/v1/targets?state=active');
    return data.activeTargets.map((t) => ({
      job: t.labels.job,
      health: t.health,
      lastError: t.lastError,
    }));
  }

  /** SIGTERM, SIGKILL after 5 s; resolves once it has exited. */
  async stop(): Promise<void> {
    if (!this.running) return;
    const exited = new Promise((resolve) => this.child.once('close', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
