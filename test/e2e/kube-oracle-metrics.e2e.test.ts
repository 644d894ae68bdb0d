// kube-scheduler (the pinned release, 1.37.2) as the oracle for berth run: one workload each, then their scheduler_ metrics and Leases side by side.
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSamples, type Sample } from '../support/prometheus-text.ts';
import { Api } from './support/api.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { chartAccessWithLeases } from './support/chart-access.ts';
import { useCluster } from './support/cluster.ts';
import {
  freeLoopbackPort,
  type KubeScheduler,
  startKubeScheduler,
} from './support/kube-scheduler.ts';
import { type PodJson, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, namespace, pods, toYaml } from './support/manifests.ts';
import { delay, waitFor } from './support/wait.ts';

const ns = 'oracle';
/** Pods of each scheduler that fit, and that cannot fit anywhere (64 cpu on 4-cpu nodes). */
const fitting = 20;
const unfitting = 3;
const leaseNamespace = 'default';
type Side = 'berth' | 'kube';
const sides: readonly Side[] = ['berth', 'kube'];
const leaseNames: Record<Side, string> = { berth: 'berth', kube: 'kube-scheduler' };
const profiles: Record<Side, string> = { berth: 'berth', kube: 'default-scheduler' };
const sixDigits = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const holderShape = new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_${uuid}$`);

/** One metric family of a scrape: its `# TYPE` and the samples that belong to it. */
interface Family {
  type: string;
  samples: Sample[];
}
type Families = Map<string, Family>;

/** The families of a text exposition by name; a histogram owns its _bucket/_sum/_count. */
function familiesOf(text: string): Families {
  const families: Families = new Map();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm))
    families.set(m[1] as string, { type: m[2] as string, samples: [] });
  for (const s of parseSamples(text)) {
    const owner = families.get(s.name) ?? families.get(s.name.replace(/_(bucket|sum|count)$/, ''));
    owner?.samples.push(s);
  }
  return families;
}

/** What must match between the two: type, label names and (histograms) the `le` bounds. */
interface Shape {
  type: string;
  labels: string[];
  /** Each distinct list of `le` bounds among the histogram's series (one list expected). */
  bucketLists: string[];
  series: number;
}

function shapeOf(family: Family): Shape {
  const labels = new Set<string>();
  const bounds = new Map<string, string[]>();
  for (const s of family.samples) {
    const isBucket = family.type === 'histogram' && s.name.endsWith('_bucket');
    for (const k of Object.keys(s.labels)) if (!(isBucket && k === 'le')) labels.add(k);
    if (!isBucket) continue;
    const series = JSON.stringify(Object.entries(s.labels).filter(([k]) => k !== 'le'));
    bounds.set(series, [...(bounds.get(series) ?? []), s.labels.le ?? '?']);
  }
  const bucketLists = [...new Set([...bounds.values()].map((l) => l.join(',')))];
  const series = new Set(family.samples.map((s) => JSON.stringify([s.name, s.labels]))).size;
  return { type: family.type, labels: [...labels].sort(), bucketLists, series };
}

/** Differences of shape that fail the test, and notes on what could not be compared. */
function compareShapes(name: string, berth: Family, kube: Family | undefined) {
  const problems: string[] = [];
  const notes: string[] = [];
  if (kube === undefined) return { problems: [`kube-scheduler exposes no ${name}`], notes };
  const b = shapeOf(berth);
  const k = shapeOf(kube);
  if (b.type !== k.type) problems.push(`TYPE: berth ${b.type}, kube ${k.type}`);
  if (b.series === 0 || k.series === 0) {
    notes.push(`no series on the ${b.series === 0 ? 'berth' : 'kube'} side: labels not compared`);
  } else if (b.labels.join() !== k.labels.join()) {
    problems.push(`label names: berth {${b.labels}}, kube {${k.labels}}`);
  }
  if (b.type === 'histogram' && k.type === 'histogram') {
    for (const [side, s] of [['berth', b] as const, ['kube', k] as const])
      if (s.bucketLists.length > 1)
        problems.push(`${side} has ${s.bucketLists.length} bucket lists`);
    const [bb, kb] = [b.bucketLists[0], k.bucketLists[0]];
    if (bb !== undefined && kb !== undefined && bb !== kb)
      problems.push(`le buckets: berth [${bb}], kube [${kb}]`);
  }
  return { problems, notes };
}

/** The sum of the samples called `name` whose labels include `labels` (0 if none). */
function sum(families: Families, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const f of families.values())
    for (const s of f.samples)
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        total += s.value;
  return total;
}

/** The distinct values of `label` among the samples called `name`, sorted and joined. */
function labelValues(families: Families, name: string, label: string): string {
  const values = new Set<string>();
  for (const f of families.values())
    for (const s of f.samples)
      if (s.name === name && s.labels[label] !== undefined) values.add(s.labels[label]);
  return [...values].sort().join(',');
}

/** One figure read from both scrapes, with the value both must show (if it is known). */
interface Figure {
  name: string;
  berth: number | string;
  kube: number | string;
  expected?: number | string;
}

/** The figures both schedulers should agree on after the workload, read from both scrapes. */
function figures(scrapes: Record<Side, Families>): Figure[] {
  const per = (read: (f: Families, profile: string) => number | string) => ({
    berth: read(scrapes.berth, profiles.berth),
    kube: read(scrapes.kube, profiles.kube),
  });
  const attempts = (result: string) =>
    per((f, profile) => sum(f, 'scheduler_schedule_attempts_total', { result, profile }));
  const duration = (result: string) =>
    per((f, profile) =>
      sum(f, 'scheduler_scheduling_attempt_duration_seconds_count', { result, profile }),
    );
  const pending = (queue: string) => per((f) => sum(f, 'scheduler_pending_pods', { queue }));
  const sli = 'scheduler_pod_scheduling_sli_duration_seconds';
  const list: Figure[] = [
    {
      name: 'schedule_attempts_total{result=scheduled}',
      ...attempts('scheduled'),
      expected: fitting,
    },
    { name: 'schedule_attempts_total{result=error}', ...attempts('error'), expected: 0 },
    { name: 'schedule_attempts_total{result=unschedulable}', ...attempts('unschedulable') },
    {
      name: 'attempt_duration_seconds_count{result=scheduled}',
      ...duration('scheduled'),
      expected: fitting,
    },
    { name: 'attempt_duration_seconds_count{result=unschedulable}', ...duration('unschedulable') },
    { name: 'pending_pods{queue=unschedulable}', ...pending('unschedulable'), expected: unfitting },
    { name: 'pending_pods{queue=active}', ...pending('active'), expected: 0 },
    { name: 'pending_pods{queue=backoff}', ...pending('backoff'), expected: 0 },
    { name: 'pending_pods{queue=gated}', ...pending('gated'), expected: 0 },
    {
      name: 'pod_scheduling_sli_duration_seconds_count',
      ...per((f) => sum(f, `${sli}_count`)),
      expected: fitting,
    },
    {
      name: 'pod_scheduling_sli_duration_seconds{attempts} values',
      ...per((f) => labelValues(f, `${sli}_count`, 'attempts')),
      expected: '1',
    },
    {
      name: 'pod_scheduling_attempts_count',
      ...per((f) => sum(f, 'scheduler_pod_scheduling_attempts_count')),
      expected: fitting,
    },
    {
      name: 'pod_scheduling_attempts_sum',
      ...per((f) => sum(f, 'scheduler_pod_scheduling_attempts_sum')),
      expected: fitting,
    },
    {
      name: 'preemption_attempts_total',
      ...per((f) => sum(f, 'scheduler_preemption_attempts_total')),
    },
    {
      name: 'preemption_victims_count',
      ...per((f) => sum(f, 'scheduler_preemption_victims_count')),
    },
  ];
  const incoming = 'scheduler_queue_incoming_pods_total';
  const keys = new Set<string>();
  for (const side of sides)
    for (const s of scrapes[side].get(incoming)?.samples ?? [])
      keys.add(JSON.stringify([s.labels.queue, s.labels.event]));
  for (const key of [...keys].sort()) {
    const [queue, event] = JSON.parse(key) as [string, string];
    list.push({
      name: `queue_incoming_pods_total{queue=${queue},event=${event}}`,
      ...per((f) => sum(f, incoming, { queue, event })),
    });
  }
  return list;
}

/** Whether every figure with an expected value shows it on both sides. */
function settled(list: Figure[]): boolean {
  return list.every(
    (f) => f.expected === undefined || (f.berth === f.expected && f.kube === f.expected),
  );
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
}

/** The parts of a Lease compared here. */
interface LeaseJson {
  metadata: { name: string };
  spec?: Record<string, unknown>;
}

/** MicroTime text to epoch milliseconds (the digits past the third are dropped). */
function microTimeMs(text: unknown): number {
  return Date.parse(`${String(text).slice(0, 23)}Z`);
}

describe('kube-scheduler as the oracle for berth’s metrics and Lease', () => {
  const cluster = useCluster('kube-oracle');
  let api: Api;
  let berth: BerthRun;
  let kube: KubeScheduler;
  let berthUrl: string;
  let scrapes: Record<Side, Families> | undefined;

  const scrapeBerth = async () => {
    const res = await fetch(`${berthUrl}/metrics`);
    if (res.status !== 200) throw new Error(`berth /metrics: HTTP ${res.status}`);
    return familiesOf(await res.text());
  };
  const scrapeKube = async () => {
    const res = await kube.get('/metrics');
    if (res.status !== 200)
      throw new Error(`kube-scheduler /metrics: HTTP ${res.status} ${res.body}`);
    return familiesOf(res.body);
  };
  const scrapeBoth = async (): Promise<Record<Side, Families>> => ({
    berth: await scrapeBerth(),
    kube: await scrapeKube(),
  });
  const readLease = async (side: Side): Promise<LeaseJson | undefined> => {
    const path = `/apis/coordination.k8s.io/v1/namespaces/${leaseNamespace}/leases/${leaseNames[side]}`;
    const r = await api.request<LeaseJson>('GET', path);
    if (r.status === 404) return undefined;
    if (r.status !== 200) throw new Error(`GET lease ${leaseNames[side]}: HTTP ${r.status}`);
    return r.body;
  };

  beforeAll(async () => {
    api = new Api(cluster().kubeconfig);
    await cluster().kubectl.apply(
      toYaml([
        namespace(ns),
        ...['o1', 'o2', 'o3'].map((n) => kwokNode(n, { cpu: '4', memory: '8Gi', pods: 110 })),
      ]),
    );
    kube = startKubeScheduler(cluster(), {
      securePort: await freeLoopbackPort(),
      leaderElection: { namespace: leaseNamespace, name: leaseNames.kube },
    });
    // The chart's identity plus Leases in the lease namespace: this compares berth's Lease
    // with kube-scheduler's from creation on (transitions 0), and the chart grants no Lease
    // create (it renders its one Lease).
    const access = await chartAccessWithLeases(cluster(), leaseNamespace);
    berth = await startBerth(cluster(), {
      kubeconfig: access.kubeconfig,
      name: 'berth',
      args: [
        '--leader-elect=true',
        '--leader-elect-resource-namespace',
        leaseNamespace,
        '--leader-elect-resource-name',
        leaseNames.berth,
        '--metrics-bind-address',
        '127.0.0.1:0',
      ],
    });
    const line = await berth.waitForLog(
      'status server listening',
      (e) => e.msg === 'status server listening',
    );
    berthUrl = String((line as Record<string, unknown>).url);
    await waitFor('kube-scheduler to serve /metrics anonymously', async () => {
      const r = await kube.get('/metrics');
      return { ok: r.status === 200, seen: `${r.status} ${r.body.slice(0, 200)}` };
    });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
    await kube?.stop();
    api?.close();
  });

  it('both take their own Lease and lead', async () => {
    const holders = await waitFor('both Leases to be held', async () => {
      berth.checkAlive();
      const seen = {
        berth: (await readLease('berth'))?.spec?.holderIdentity,
        kube: (await readLease('kube'))?.spec?.holderIdentity,
      };
      return { ok: Boolean(seen.berth) && Boolean(seen.kube), seen };
    });
    expect(holders.berth).not.toBe(holders.kube);
    expect(sum(await scrapeBerth(), 'berth_leader')).toBe(1);
  });

  it('both schedule the same workload: the fitting pods bound, the rest parked, metrics agree', async () => {
    const k = cluster().kubectl;
    const huge = { cpu: '64', memory: '64Mi' };
    await k.create(
      toYaml([
        ...pods('b-fit', ns, fitting),
        ...pods('b-huge', ns, unfitting, huge),
        ...pods('k-fit', ns, fitting, { schedulerName: null }),
        ...pods('k-huge', ns, unfitting, { ...huge, schedulerName: null }),
      ]),
    );
    const open = (ps: PodJson[]) =>
      ps
        .filter((p) =>
          p.metadata.name.includes('-fit-')
            ? p.spec.nodeName === undefined
            : podScheduledCondition(p)?.status !== 'False',
        )
        .map((p) => p.metadata.name);
    const left = await waitFor('every pod decided by its scheduler', async () => {
      berth.checkAlive();
      const o = open(await k.pods(ns));
      return { ok: o.length === 0, seen: o };
    });
    expect(left).toEqual([]);
    const bound = (await k.pods(ns)).filter((p) => p.spec.nodeName !== undefined);
    expect(bound.filter((p) => p.spec.schedulerName === 'berth')).toHaveLength(fitting);
    expect(bound.filter((p) => p.spec.schedulerName === 'default-scheduler')).toHaveLength(fitting);

    // The watch shows a bind before each scheduler has counted it, and kube parks a pod in
    // backoffQ when an event arrived during its attempt: poll until both have settled.
    let last: Figure[] = [];
    try {
      await waitFor(
        'both schedulers’ metrics to show the workload',
        async () => {
          berth.checkAlive();
          scrapes = await scrapeBoth();
          last = figures(scrapes);
          return { ok: settled(last), seen: last };
        },
        { timeoutMs: 90_000, intervalMs: 1_000 },
      );
    } catch (error) {
      console.log(`[e2e] kube-oracle: not settled: ${(error as Error).message.split('\n')[0]}`);
    }
    const rows = last.map((f) => [
      f.name,
      String(f.berth),
      String(f.kube),
      f.expected === undefined ? '' : String(f.expected),
      f.berth === f.kube ? 'same' : 'DIFFERENT',
    ]);
    console.log(
      `[e2e] kube-oracle: values after ${fitting} fitting + ${unfitting} unfitting pods each\n${table(['figure', 'berth', 'kube', 'expected', 'verdict'], rows)}`,
    );
    const wrong = last
      .filter((f) => f.expected !== undefined && (f.berth !== f.expected || f.kube !== f.expected))
      .map((f) => `${f.name}: expected ${f.expected}, berth ${f.berth}, kube ${f.kube}`);
    expect(wrong).toEqual([]);
  });

  it('every scheduler_ family berth exposes, kube exposes with the same type, label names and buckets', async () => {
    const s = scrapes ?? (await scrapeBoth());
    const names = [...s.berth.keys()].filter((n) => n.startsWith('scheduler_')).sort();
    expect(names.length).toBeGreaterThan(0);
    const rows: string[][] = [];
    const problems: string[] = [];
    for (const name of names) {
      const berthFamily = s.berth.get(name) as Family;
      const kubeFamily = s.kube.get(name);
      const result = compareShapes(name, berthFamily, kubeFamily);
      problems.push(...result.problems.map((p) => `${name}: ${p}`));
      const b = shapeOf(berthFamily);
      const bounds = b.bucketLists[0]?.split(',') ?? [];
      rows.push([
        name,
        kubeFamily === undefined ? `${b.type} / -` : `${b.type} / ${kubeFamily.type}`,
        `{${b.labels}}`,
        bounds.length === 0 ? '' : `${bounds.length}: ${bounds[0]} … ${bounds.at(-2)}`,
        [...result.problems, ...result.notes].join('; ') || 'same',
      ]);
    }
    const kubeOnly = [...s.kube.keys()].filter(
      (n) => n.startsWith('scheduler_') && !s.berth.has(n),
    );
    console.log(
      `[e2e] kube-oracle: berth's scheduler_ families against kube-scheduler ${cluster().kubeVersion}\n${table(['family', 'type berth / kube', 'label names', 'le buckets', 'verdict'], rows)}\n` +
        `kube-scheduler's scheduler_ families berth does not expose: ${kubeOnly.sort().join(', ')}`,
    );
    expect(problems).toEqual([]);
  });

  it('the two Leases have the same shape: five spec fields, 15 s, six-digit MicroTimes, <hostname>_<uuid>', async () => {
    const first = { berth: await readLease('berth'), kube: await readLease('kube') };
    const rows: string[][] = [];
    for (const side of sides) {
      const spec = first[side]?.spec ?? {};
      rows.push([
        side,
        ...[
          'holderIdentity',
          'leaseDurationSeconds',
          'acquireTime',
          'renewTime',
          'leaseTransitions',
        ].map((k) => String(spec[k])),
        Object.keys(spec).sort().join(','),
      ]);
    }
    console.log(
      `[e2e] kube-oracle: Leases ${leaseNamespace}/${leaseNames.berth} and ${leaseNamespace}/${leaseNames.kube}\n${table(['side', 'holderIdentity', 'duration', 'acquireTime', 'renewTime', 'transitions', 'spec fields'], rows)}`,
    );
    const kubeSpec = first.kube?.spec ?? {};
    const berthSpec = first.berth?.spec ?? {};
    expect(Object.keys(berthSpec).sort()).toEqual(Object.keys(kubeSpec).sort());
    for (const spec of [berthSpec, kubeSpec]) {
      expect(spec.leaseDurationSeconds).toBe(15);
      expect(spec.leaseTransitions).toBe(0);
      expect(spec.acquireTime).toMatch(sixDigits);
      expect(spec.renewTime).toMatch(sixDigits);
      expect(spec.holderIdentity).toMatch(holderShape);
    }

    // Both renew every retryPeriod (2 s), keeping holder, acquireTime and transitions.
    const times: Record<Side, string[]> = { berth: [], kube: [] };
    const drift: string[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (times.berth.length < 4 || times.kube.length < 4)) {
      berth.checkAlive();
      for (const side of sides) {
        const spec = (await readLease(side))?.spec ?? {};
        for (const key of ['holderIdentity', 'acquireTime', 'leaseTransitions'])
          if (spec[key] !== first[side]?.spec?.[key])
            drift.push(
              `${side} ${key}: ${String(first[side]?.spec?.[key])} -> ${String(spec[key])}`,
            );
        const renewTime = String(spec.renewTime);
        if (times[side].at(-1) !== renewTime) times[side].push(renewTime);
      }
      await delay(200);
    }
    const periods = (ts: string[]) =>
      ts.slice(1).map((t, i) => microTimeMs(t) - microTimeMs(ts[i]));
    const gaps = { berth: periods(times.berth), kube: periods(times.kube) };
    console.log(
      `[e2e] kube-oracle: renew periods (ms) berth ${gaps.berth.join(', ')}; kube ${gaps.kube.join(', ')}\n` +
        `berth renewTimes ${times.berth.join(' ')}\nkube renewTimes  ${times.kube.join(' ')}`,
    );
    expect(drift).toEqual([]);
    for (const side of sides) {
      expect(times[side].length, side).toBeGreaterThanOrEqual(3);
      for (const t of times[side]) expect(t, side).toMatch(sixDigits);
      for (const gap of gaps[side]) {
        expect(gap, side).toBeGreaterThanOrEqual(1_500);
        expect(gap, side).toBeLessThanOrEqual(5_000);
      }
    }
  });

  it('SIGTERM releases both Leases the same way: no holder, 1 s, acquireTime = renewTime', async () => {
    const before = { berth: await readLease('berth'), kube: await readLease('kube') };
    const exit = await berth.stop('SIGTERM');
    await kube.stop();
    expect(exit, berth.tail()).toEqual({ code: 0, signal: null });
    const after = { berth: await readLease('berth'), kube: await readLease('kube') };
    const rows = sides.map((side) => {
      const spec = after[side]?.spec ?? {};
      return [
        side,
        JSON.stringify(spec.holderIdentity),
        String(spec.leaseDurationSeconds),
        String(spec.acquireTime),
        String(spec.renewTime),
        String(spec.leaseTransitions),
        Object.keys(spec).sort().join(','),
      ];
    });
    console.log(
      `[e2e] kube-oracle: Leases after SIGTERM\n${table(['side', 'holderIdentity', 'duration', 'acquireTime', 'renewTime', 'transitions', 'spec fields'], rows)}`,
    );
    const berthSpec = after.berth?.spec ?? {};
    const kubeSpec = after.kube?.spec ?? {};
    expect(Object.keys(berthSpec).sort()).toEqual(Object.keys(kubeSpec).sort());
    for (const side of sides) {
      const spec = after[side]?.spec ?? {};
      expect([side, spec.holderIdentity, spec.leaseDurationSeconds, spec.leaseTransitions]).toEqual(
        [side, '', 1, before[side]?.spec?.leaseTransitions],
      );
      expect(spec.acquireTime, side).toMatch(sixDigits);
      expect(spec.renewTime, side).toBe(spec.acquireTime);
    }
  });
});
