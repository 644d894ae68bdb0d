// /metrics over HTTPS with delegated authn/authz on a real cluster, as the chart installs it: Prometheus scrapes with a ServiceAccount token; no token 401, no grant 403, /readyz open.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSamples } from '../support/prometheus-text.ts';
import { type BerthRun, startBerthAsConfigured } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  chartDir,
  Helm,
  parseObjects,
  serviceMonitorCrd,
  tokenKubeconfig,
} from './support/helm.ts';
import { httpsGet } from './support/https-get.ts';
import { freeLoopbackPort } from './support/kube-scheduler.ts';
import { type Manifest, namespace, toYaml } from './support/manifests.ts';
import { havePrometheus, Prometheus, prometheusBin } from './support/prometheus.ts';
import { serviceAccountToken } from './support/scraper.ts';
import { waitFor } from './support/wait.ts';

const releaseNs = 'berth-system';
const monitoringNs = 'monitoring';

/** The ServiceMonitor endpoint fields the scrape follows. */
interface Endpoint {
  port: string;
  path: string;
  scheme: 'http' | 'https';
  bearerTokenFile?: string;
  tlsConfig?: { insecureSkipVerify?: boolean };
}

describe('berth’s /metrics over HTTPS with TokenReview and SubjectAccessReview (chart install)', () => {
  const cluster = useCluster('secure-metrics');
  let berth: BerthRun;
  let url: string;
  let endpoint: Endpoint;
  /** Tokens: bound to the chart's metrics-reader ClusterRole, and bound to nothing. */
  let scraperToken: string;
  let strangerToken: string;
  let prometheus: Prometheus | undefined;

  beforeAll(async () => {
    const c = cluster();
    const k = c.kubectl;
    const version = await k.raw<{ gitVersion: string }>('/version');
    const helm = new Helm(
      join(c.binDir, 'helm'),
      c.kubeconfig,
      join(c.dir, 'helm'),
      version.gitVersion,
    );
    await k.apply(toYaml([serviceMonitorCrd(), namespace(monitoringNs)]));
    await k.run([
      'wait',
      '--for=condition=Established',
      'crd/servicemonitors.monitoring.coreos.com',
      '--timeout=30s',
    ]);
    // The chart as a user installs it, with its Prometheus's ServiceAccount as reader.
    await helm.run([
      'install',
      'berth',
      chartDir,
      '--namespace',
      releaseNs,
      '--create-namespace',
      '--set',
      'replicaCount=1',
      '--set',
      'metrics.serviceMonitor.enabled=true',
      '--set',
      `metrics.reader.subjects[0].name=prometheus`,
      '--set',
      `metrics.reader.subjects[0].namespace=${monitoringNs}`,
    ]);
    const installed = parseObjects(
      (await helm.run(['get', 'manifest', 'berth', '-n', releaseNs])).stdout,
    );
    const monitor = installed.find((o) => o.kind === 'ServiceMonitor') as
      | (Manifest & { spec: { endpoints: Endpoint[] } })
      | undefined;
    endpoint = monitor?.spec.endpoints[0] as Endpoint;
    scraperToken = await serviceAccountToken(k, monitoringNs, 'prometheus');
    strangerToken = await serviceAccountToken(k, monitoringNs, 'stranger');

    // berth with the chart's ServiceAccount token and config file, on a free loopback port.
    const berthToken = (await k.run(['create', 'token', 'berth', '-n', releaseNs])).stdout.trim();
    const configMap = await k.getJson<{ data: Record<string, string> }>([
      'configmap',
      'berth',
      '-n',
      releaseNs,
    ]);
    const configFile = join(c.dir, 'chart-config.yaml');
    writeFileSync(configFile, configMap.data['config.yaml'] ?? '');
    const port = await freeLoopbackPort();
    berth = startBerthAsConfigured(
      tokenKubeconfig(c.kubeconfig, berthToken, 'berth-chart-sa'),
      configFile,
      c.dir,
      'berth-secure',
      ['--leader-elect=false', '--bind-address', '127.0.0.1', '--secure-port', String(port)],
    );
    const line = await berth.waitForLog(
      'status server listening',
      (e) => e.msg === 'status server listening',
    );
    url = String((line as { url?: unknown }).url);
    await berth.waitForLog('"msg":"scheduling"', (e) => e.msg === 'scheduling', 90_000);
  }, 180_000);

  afterAll(async () => {
    await prometheus?.stop();
    await berth?.stop('SIGKILL');
  });

  it('the chart’s ServiceMonitor scrapes port https with a bearer token, skipping verification of the self-signed certificate', () => {
    expect(endpoint).toMatchObject({
      port: 'https',
      path: '/metrics',
      scheme: 'https',
      bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
      tlsConfig: { insecureSkipVerify: true },
    });
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('Prometheus scrapes /metrics with the reader’s ServiceAccount token: up is 1 and berth’s metrics are stored', async () => {
    const c = cluster();
    const tokenFile = join(c.dir, 'prometheus.token');
    writeFileSync(tokenFile, scraperToken, { mode: 0o600 });
    const target = url.replace('https://', '');
    const insecureSkipVerify = endpoint.tlsConfig?.insecureSkipVerify ?? false;
    if (!havePrometheus()) {
      // No Prometheus built (test/e2e/cluster/build-prometheus.sh): the same scrape with node's client.
      process.stderr.write(
        `[e2e] secure-metrics: ${prometheusBin} not built; scraping with node's https client\n`,
      );
      const res = await httpsGet(`${url}${endpoint.path}`, { token: scraperToken });
      expect(res.status, res.body).toBe(200);
      expect(
        parseSamples(res.body).filter((s) => s.name === 'scheduler_pending_pods'),
      ).toHaveLength(4);
      return;
    }
    const job = { target, scheme: endpoint.scheme, path: endpoint.path, insecureSkipVerify };
    prometheus = await Prometheus.start(join(c.dir, 'prometheus'), [
      { ...job, name: 'berth', bearerTokenFile: tokenFile },
      { ...job, name: 'berth-anonymous' },
    ]);
    const prom = prometheus;
    const up = await waitFor(
      'Prometheus to scrape berth with the token (up == 1)',
      async () => {
        if (!prom.running) throw new Error('Prometheus exited; see prometheus/prometheus.log');
        const r = await prom.query('up{job="berth"}').catch(() => []);
        return { ok: r[0]?.value === 1, seen: r };
      },
      { timeoutMs: 60_000 },
    );
    expect(up).toHaveLength(1);
    const pending = await waitFor('scheduler_pending_pods in Prometheus', async () => {
      const r = await prom.query('scheduler_pending_pods{job="berth"}');
      return { ok: r.length === 4, seen: r };
    });
    expect(pending.map((s) => s.metric.queue).sort()).toEqual([
      'active',
      'backoff',
      'gated',
      'unschedulable',
    ]);
    const anonymous = await waitFor('the anonymous job’s scrape to fail', async () => {
      const t = (await prom.targets()).find((x) => x.job === 'berth-anonymous');
      return { ok: t?.health === 'down', seen: t };
    });
    expect(anonymous?.lastError).toMatch(/401 Unauthorized/);
  });

  it('answers 401 without a token or with a forged one, and 403 to a token without the grant', async () => {
    const noToken = await httpsGet(`${url}/metrics`);
    expect([noToken.status, JSON.parse(noToken.body).reason]).toEqual([401, 'Unauthorized']);
    expect((await httpsGet(`${url}/metrics`, { token: `${scraperToken}x` })).status).toBe(401);
    const stranger = await httpsGet(`${url}/metrics`, { token: strangerToken });
    expect(stranger.status).toBe(403);
    expect(JSON.parse(stranger.body).message).toMatch(
      /^forbidden: User "system:serviceaccount:monitoring:stranger" cannot get path "\/metrics"/,
    );
    expect(stranger.body).not.toContain('scheduler_');
  });

  it('keeps /readyz, /livez and /healthz open without a token', async () => {
    for (const path of ['/readyz', '/livez', '/healthz']) {
      const res = await httpsGet(`${url}${path}`);
      expect(`${path} ${res.status} ${res.body}`).toBe(`${path} 200 ok`);
    }
  });

  it('made every review with the chart’s own ServiceAccount (system:auth-delegator), none failed', () => {
    const failed = berth.logs().filter((e) => /Review failed/.test(String(e.msg)));
    expect(failed).toEqual([]);
    expect(berth.stdout).not.toMatch(/forbidden|\b403\b/i);
  });
});
