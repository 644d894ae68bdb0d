// berth run's status server on a real cluster, scraped over HTTPS with a token: health endpoints, and metrics that match what it scheduled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSamples, type Sample } from '../support/prometheus-text.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { httpsGet } from './support/https-get.ts';
import { freeLoopbackPort } from './support/kube-scheduler.ts';
import { kwokNode, namespace, pods, toYaml } from './support/manifests.ts';
import { serviceAccountToken } from './support/scraper.ts';
import { waitFor } from './support/wait.ts';

const ns = 'metrics';
const schedulable = 50;
const unschedulable = 5;

/** One scrape: the sum of the samples named `name` whose labels include `labels` (0 if none). */
class Scrape {
  constructor(readonly samples: Sample[]) {}

  value(name: string, labels: Record<string, string> = {}): number {
    return this.matching(name, labels).reduce((sum, s) => sum + s.value, 0);
  }

  matching(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
  }
}

describe('metrics and health of berth run on a real cluster', () => {
  const cluster = useCluster('metrics');
  let berth: BerthRun;
  let url: string;
  /** A token of a ServiceAccount bound to kube's built-in system:monitoring ClusterRole. */
  let token: string;

  const get = (path: string) => httpsGet(`${url}${path}`, { token });
  const scrape = async () => {
    const res = await get('/metrics');
    expect(res.status).toBe(200);
    return new Scrape(parseSamples(res.body));
  };

  beforeAll(async () => {
    const k = cluster().kubectl;
    await k.apply(
      toYaml([
        namespace(ns),
        ...['m1', 'm2', 'm3'].map((n) => kwokNode(n, { cpu: '4', memory: '8Gi', pods: 110 })),
      ]),
    );
    token = await serviceAccountToken(k, ns, 'prometheus', 'system:monitoring');
    berth = await startBerth(cluster(), {
      name: 'berth',
      args: [
        '--bind-address',
        '127.0.0.1',
        '--secure-port',
        String(await freeLoopbackPort()),
        '--metrics-bind-address',
        '0',
        '--leader-elect=false',
      ],
    });
    const line = await berth.waitForLog(
      'status server listening',
      (e) => e.msg === 'status server listening',
    );
    url = String((line as Record<string, unknown>).url);
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('logs the HTTPS URL of the port it bound and is ready once the lists are in', async () => {
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:[1-9]\d*$/);
    // startBerth waited for the "scheduling" line: both initial lists are done.
    for (const path of ['/readyz', '/livez', '/healthz']) {
      const res = await httpsGet(`${url}${path}`);
      expect([path, res.status, res.body]).toEqual([path, 200, 'ok']);
    }
    // Authorization comes before routing, as in kube: system:monitoring grants no /nothing.
    expect((await get('/nothing')).status).toBe(403);
    expect((await httpsGet(`${url}/metrics`)).status).toBe(401);
  });

  it('serves kube-scheduler’s metrics in Prometheus text format before any pod', async () => {
    const res = await get('/metrics');
    expect(res.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    const s = new Scrape(parseSamples(res.body));
    expect(s.value('berth_leader')).toBe(1);
    expect(s.matching('scheduler_preemption_attempts_total')).toHaveLength(1);
    expect(s.value('scheduler_preemption_attempts_total')).toBe(0);
    expect(s.matching('scheduler_pending_pods').map((x) => x.labels.queue)).toEqual([
      'active',
      'backoff',
      'unschedulable',
      'gated',
    ]);
    expect(s.value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(s.value('berth_log_events_total', { type: 'ResyncDone' })).toBeGreaterThanOrEqual(2);
  });

  it('counts what it scheduled: 50 bound on the first attempt, 5 parked as unschedulable', async () => {
    const k = cluster().kubectl;
    await k.create(
      toYaml([
        ...pods('fits', ns, schedulable, { cpu: '100m', memory: '64Mi' }),
        ...pods('huge', ns, unschedulable, { cpu: '16', memory: '64Mi' }),
      ]),
    );
    await waitFor('50 pods bound', async () => {
      berth.checkAlive();
      const bound = (await k.pods(ns)).filter((p) => p.spec.nodeName !== undefined);
      return { ok: bound.length === schedulable, seen: bound.length };
    });
    // The watch may show a pod bound before berth has the bind's answer: poll until settled.
    const s = await waitFor('the metrics to show every bind and the parked pods', async () => {
      berth.checkAlive();
      const now = await scrape();
      const seen = {
        scheduled: now.value('scheduler_schedule_attempts_total', {
          result: 'scheduled',
          profile: 'berth',
        }),
        parked: now.value('scheduler_pending_pods', { queue: 'unschedulable' }),
        sli: now.value('scheduler_pod_scheduling_sli_duration_seconds_count'),
      };
      return {
        ok: seen.scheduled === schedulable && seen.parked === unschedulable && seen.sli === 50,
        seen: { seen, berth: berth.tail(5) },
      };
    }).then(scrape);

    const attempts = (result: string) =>
      s.value('scheduler_schedule_attempts_total', { result, profile: 'berth' });
    expect(attempts('scheduled')).toBe(schedulable);
    expect(attempts('unschedulable')).toBeGreaterThanOrEqual(unschedulable);
    expect(attempts('error')).toBe(0);
    const duration = 'scheduler_scheduling_attempt_duration_seconds';
    expect(s.value(`${duration}_count`, { result: 'scheduled' })).toBe(schedulable);
    expect(s.value(`${duration}_count`, { result: 'unschedulable' })).toBe(
      attempts('unschedulable'),
    );
    expect(
      s
        .matching(`${duration}_bucket`, { result: 'scheduled' })
        .map((x) => x.labels.le)
        .slice(0, 4),
    ).toEqual(['0.001', '0.002', '0.004', '0.008']);

    expect(s.value('scheduler_pending_pods', { queue: 'unschedulable' })).toBe(unschedulable);
    expect(s.value('scheduler_pending_pods', { queue: 'active' })).toBe(0);
    expect(s.value('scheduler_pending_pods', { queue: 'gated' })).toBe(0);

    const sli = 'scheduler_pod_scheduling_sli_duration_seconds';
    expect(s.value(`${sli}_count`)).toBe(schedulable);
    expect(s.value(`${sli}_count`, { attempts: '1' })).toBe(schedulable);
    expect(s.value(`${sli}_sum`)).toBeGreaterThan(0);
    expect(s.value('scheduler_pod_scheduling_attempts_count')).toBe(schedulable);
    expect(s.value('scheduler_pod_scheduling_attempts_sum')).toBe(schedulable);

    const incoming = (queue: string, event: string) =>
      s.value('scheduler_queue_incoming_pods_total', { queue, event });
    expect(incoming('active', 'UnschedulablePodAdd')).toBe(schedulable + unschedulable);
    expect(incoming('unschedulable', 'ScheduleAttemptFailure')).toBe(attempts('unschedulable'));

    const decisions = (type: string) => s.value('berth_decisions_total', { type });
    expect(decisions('PodReserved')).toBe(schedulable);
    expect(decisions('BindRequested')).toBe(schedulable);
    expect(decisions('PodUnschedulable')).toBe(attempts('unschedulable'));
    expect(decisions('CycleFailed')).toBe(0);
    expect(s.value('berth_decisions_total')).toBe(2 * schedulable + attempts('unschedulable'));
    expect(s.value('berth_bind_results_total', { result: 'succeeded' })).toBe(schedulable);
    expect(s.value('berth_bind_results_total', { result: 'failed' })).toBe(0);
    expect(s.value('berth_log_events_total', { type: 'BindSucceeded' })).toBe(schedulable);
    expect(s.value('berth_log_events_total', { type: 'PodReserved' })).toBe(schedulable);
  });

  it('stops cleanly on SIGTERM and closes the status server', async () => {
    const exit = await berth.stop('SIGTERM');
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
    await expect(httpsGet(`${url}/healthz`)).rejects.toThrow();
  });
});
