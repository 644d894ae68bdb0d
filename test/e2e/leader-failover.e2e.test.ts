// Leader election on a real API server: the Lease elector itself, then two `berth run` failing over.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  kubeLeaseApi,
  type LeaderElectionConfig,
  LeaseElector,
} from '../../src/adapters/kube/leader-election.ts';
import { Api, type WatchEvent } from './support/api.ts';
import { type BerthRun, fastLeaseFlags, startBerth } from './support/berth.ts';
import { chartAccessWithLeases } from './support/chart-access.ts';
import { useCluster } from './support/cluster.ts';
import {
  clusterOvercommits,
  doubleBindSuccesses,
  type RecordLine,
  readRecord,
  recordEvents,
  repeatedScheduledEvents,
} from './support/invariants.ts';
import { type PodJson, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, namespace, pods, toYaml } from './support/manifests.ts';
import { delay, waitFor } from './support/wait.ts';

const leaseNamespace = 'kube-system';
/*
 * berthIdentity: berth runs as the chart's ServiceAccount plus Leases in kube-system. Each
 * scenario elects on a Lease of its own name that berth creates, and the test counts
 * transitions from that creation; the chart grants no Lease create (it renders its one Lease,
 * and berth with the chart's identity taking that Lease is helm.e2e.test.ts's install test).
 */
const leasesPath = `/apis/coordination.k8s.io/v1/namespaces/${leaseNamespace}/leases`;
const sixDigits = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
/** Short timings keep the test quick: lease 4 s, renew deadline 3 s, retry 1 s. */
const fast = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 1_000 };

interface LeaseJson {
  metadata: { name: string; resourceVersion: string };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    leaseTransitions?: number;
    acquireTime?: string;
    renewTime?: string;
  };
}

/** A LeaseElector in this process, with what its callbacks and log said. */
interface Candidate {
  identity: string;
  elector: LeaseElector;
  started: number;
  stopped: string[];
  leaders: string[];
  logs: string[];
}

function candidate(kubeconfig: string, identity: string, lease: string): Candidate {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const logs: string[] = [];
  const config: LeaderElectionConfig = {
    namespace: leaseNamespace,
    name: lease,
    identity,
    ...fast,
  };
  const c: Candidate = {
    identity,
    elector: new LeaseElector({
      api: kubeLeaseApi(kc, fast.renewDeadlineMs),
      config,
      logger: pino({ level: 'info' }, { write: (line: string) => logs.push(line) }),
      callbacks: {
        onStartedLeading: () => {
          c.started++;
        },
        onStoppedLeading: (reason) => c.stopped.push(reason),
        onNewLeader: (holder) => c.leaders.push(holder),
      },
    }),
    started: 0,
    stopped: [],
    leaders: [],
    logs,
  };
  c.elector.start();
  return c;
}

async function readLease(api: Api, name: string): Promise<LeaseJson | undefined> {
  const r = await api.request<LeaseJson>('GET', `${leasesPath}/${name}`);
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET lease ${name}: HTTP ${r.status}`);
  return r.body;
}

describe('leader election on a real API server', () => {
  const cluster = useCluster('leader');
  let api: Api;
  /** berth's kubeconfig: see berthIdentity. */
  let berthKubeconfig = '';
  beforeAll(async () => {
    api = new Api(cluster().kubeconfig);
    berthKubeconfig = (await chartAccessWithLeases(cluster(), leaseNamespace)).kubeconfig;
  });
  afterAll(() => {
    api?.close();
  });

  /** Starts berth A, waits until it holds the lease, then starts berth B as its standby. */
  async function startPair(scn: Scenario, timing: string[]) {
    const dir = cluster().dir;
    await cluster().kubectl.apply(
      toYaml([
        namespace(scn.ns),
        ...scn.nodes.map((n) =>
          kwokNode(n, { cpu: '8', memory: '32Gi', pods: 110, labels: { failover: scn.label } }),
        ),
      ]),
    );
    scn.records = {
      a: join(dir, `${scn.label}-a.record.jsonl`),
      b: join(dir, `${scn.label}-b.record.jsonl`),
    };
    const args = (record: string) => [
      '--scheduler-name',
      scn.schedulerName,
      '--leader-elect=true',
      '--leader-elect-resource-name',
      scn.lease,
      ...timing,
      '--record',
      record,
      // A low client rate keeps binds going long enough to stop the leader among them.
      '--qps',
      '20',
      '--burst',
      '20',
    ];
    const a = await startBerth(cluster(), {
      kubeconfig: berthKubeconfig, // see berthIdentity
      dir,
      name: `${scn.label}-a`,
      args: args(scn.records.a),
    });
    const held = await waitFor(
      `berth ${scn.label}-a to take the lease ${scn.lease}`,
      async () => {
        a.checkAlive();
        const holder = (await readLease(api, scn.lease))?.spec?.holderIdentity ?? '';
        return { ok: holder !== '', seen: holder };
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(a.stdout).toContain(held);
    const b = await startBerth(cluster(), {
      kubeconfig: berthKubeconfig, // see berthIdentity
      dir,
      name: `${scn.label}-b`,
      args: args(scn.records.b),
    });
    expect((await readLease(api, scn.lease))?.spec?.holderIdentity).toBe(held);
    return { a, b, holderA: held };
  }

  /** Creates `count` of the scenario's pods (`prefix-0` …) all at once through the API. */
  async function createBurst(scn: Scenario, prefix = 'p', count = scn.podCount): Promise<void> {
    const burst = pods(prefix, scn.ns, count, {
      cpu: '100m',
      memory: '64Mi',
      schedulerName: scn.schedulerName,
      nodeSelector: { failover: scn.label },
    });
    await Promise.all(burst.map((p) => api.createPod(scn.ns, p)));
  }

  /** `namespace/name → node` of the scenario's bound pods. */
  async function boundPods(scn: Scenario): Promise<Map<string, string>> {
    const ps = await cluster().kubectl.pods(scn.ns);
    return new Map(
      ps.filter((p) => p.spec.nodeName).map((p) => [keyOf(p), p.spec.nodeName as string]),
    );
  }

  /** Waits until at least `count` pods are bound, the leader still running; returns how many. */
  async function waitForBound(scn: Scenario, leader: BerthRun, count: number): Promise<number> {
    return waitFor(
      `at least ${count} pods bound by the leader`,
      async () => {
        leader.checkAlive();
        const n = (await boundPods(scn)).size;
        return { ok: n >= count, seen: n };
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
  }

  /** Waits until a holder other than `previous` (and not '') holds the lease; returns it. */
  async function waitForNewHolder(
    lease: string,
    previous: string,
    standby: BerthRun,
    timeoutMs: number,
  ): Promise<string> {
    return waitFor(
      `the standby to take the lease ${lease} from ${previous}`,
      async () => {
        standby.checkAlive();
        const holder = (await readLease(api, lease))?.spec?.holderIdentity ?? '';
        return { ok: holder !== '' && holder !== previous, seen: holder };
      },
      { timeoutMs, intervalMs: 100 },
    );
  }

  /**
   * Waits until every slot is filled and every pod left over is marked Unschedulable;
   * returns the time (ms since the epoch) it was first seen.
   */
  async function waitForAllDecided(scn: Scenario, leader: BerthRun): Promise<number> {
    await waitFor(
      `${scn.slots} pods bound and the other ${scn.podCount - scn.slots} marked Unschedulable`,
      async () => {
        leader.checkAlive();
        const ps = await cluster().kubectl.pods(scn.ns);
        const left = ps.filter((p) => p.spec.nodeName === undefined);
        const undecided = left.filter((p) => podScheduledCondition(p)?.status !== 'False');
        return {
          ok:
            ps.length === scn.podCount &&
            left.length === scn.podCount - scn.slots &&
            undecided.length === 0,
          seen: { bound: ps.length - left.length, undecided: undecided.length },
        };
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    return Date.now();
  }

  /**
   * What the API and both records say after a failover: no node overcommitted, no pod with
   * two Scheduled Events or two successful binds, and the standby decided nothing before it
   * led. Returns the binds the API refused the standby as conflicts (a pod the other had
   * bound): after a kill -9 there must be none, since the standby's watches had a whole
   * lease duration to catch up.
   */
  async function checkInvariants(scn: Scenario): Promise<string[]> {
    const k = cluster().kubectl;
    expect(await clusterOvercommits(k)).toEqual([]);
    expect((await boundPods(scn)).size).toBe(scn.slots);
    expect(repeatedScheduledEvents(await k.events(scn.ns))).toEqual({});
    const recordA = readRecord(scn.records.a);
    const recordB = readRecord(scn.records.b);
    expect(doubleBindSuccesses([recordA, recordB])).toEqual({});
    const conflicts = recordEvents(recordB, 'BindFailed').filter(
      (l) => l.event?.reason === 'Conflict',
    );
    expect(leadingAt(recordA)).toBeDefined();
    const led = leadingAt(recordB);
    expect(led).toBeDefined();
    const decidedBefore = recordB.filter(
      (l) =>
        (l.seq ?? 0) < (led?.seq ?? 0) &&
        ['PodReserved', 'BindRequested', 'BindSucceeded'].includes(l.event?.type ?? ''),
    );
    expect(decidedBefore).toEqual([]);
    expect(recordEvents(recordB, 'BindSucceeded').length).toBeGreaterThan(0);
    return conflicts.map((l) => String(l.event?.key));
  }

  describe('LeaseElector against kube-apiserver (lease 4 s, renew 3 s, retry 1 s)', () => {
    const lease = 'direct';
    const everyone: Candidate[] = [];
    let a: Candidate;
    let b: Candidate;
    afterAll(() => {
      for (const c of everyone) c.elector.stop();
    });
    const enlist = (c: Candidate) => {
      everyone.push(c);
      return c;
    };
    const why = (c: Candidate) => c.logs.slice(-10).join('');

    it('one acquires and renews with six-digit MicroTimes; the other waits', async () => {
      a = enlist(candidate(cluster().kubeconfig, 'elector-a', lease));
      await waitFor('elector-a to lead', async () => ({ ok: a.elector.leading, seen: why(a) }));
      b = enlist(candidate(cluster().kubeconfig, 'elector-b', lease));
      const first = await readLease(api, lease);
      expect(first?.spec).toMatchObject({
        holderIdentity: 'elector-a',
        leaseDurationSeconds: 4,
        leaseTransitions: 0,
      });
      expect(first?.spec?.acquireTime).toMatch(sixDigits);
      expect(first?.spec?.renewTime).toMatch(sixDigits);
      await delay(6_000); // longer than the lease: only a's renewals keep b out
      const later = await readLease(api, lease);
      expect(b.elector.leading, why(b)).toBe(false);
      expect(later?.spec?.holderIdentity).toBe('elector-a');
      expect(later?.spec?.acquireTime).toBe(first?.spec?.acquireTime);
      expect(Date.parse(later?.spec?.renewTime ?? '')).toBeGreaterThan(
        Date.parse(first?.spec?.renewTime ?? ''),
      );
      expect(b.leaders).toEqual(['elector-a']);
      expect(a.stopped).toEqual([]);
    });

    it('a standby takes over about leaseDuration after the leader stops without releasing', async () => {
      const stoppedAt = Date.now();
      a.elector.stop();
      await waitFor('elector-b to lead', async () => ({ ok: b.elector.leading, seen: why(b) }), {
        timeoutMs: 20_000,
        intervalMs: 50,
      });
      const takeoverMs = Date.now() - stoppedAt;
      console.log(`[e2e] leader-failover: elector takeover after a silent stop: ${takeoverMs} ms`);
      // a's last renewal was at most a retry period before the stop, and b waits a whole
      // lease from when it first saw that renewal, at its next try (jittered: at most 2.2 s
      // later); the try that finds it expired comes at most 2.2 s after the expiry.
      expect(takeoverMs).toBeGreaterThanOrEqual(fast.leaseDurationMs - fast.retryPeriodMs - 100);
      expect(takeoverMs).toBeLessThanOrEqual(
        fast.leaseDurationMs + 2 * 2.2 * fast.retryPeriodMs + 1_500,
      );
      expect((await readLease(api, lease))?.spec).toMatchObject({
        holderIdentity: 'elector-b',
        leaseTransitions: 1,
      });
      expect(a.stopped).toEqual([]);
    });

    it('release writes the lease free, and a waiting standby takes it within a retry', async () => {
      const c = enlist(candidate(cluster().kubeconfig, 'elector-c', lease));
      await delay(1_500); // c has seen b holding it
      expect(c.elector.leading).toBe(false);
      const from = (await readLease(api, lease))?.metadata.resourceVersion ?? '0';
      const seen: LeaseJson[] = [];
      const watch = api.watch<LeaseJson>(
        `${leasesPath}?fieldSelector=metadata.name%3D${lease}`,
        from,
        (e: WatchEvent<LeaseJson>) => {
          if (e.type === 'MODIFIED') seen.push(e.object);
        },
      );
      try {
        const releasedAt = Date.now();
        await b.elector.release();
        const releaseMs = Date.now() - releasedAt;
        await waitFor('elector-c to lead', async () => ({ ok: c.elector.leading, seen: why(c) }), {
          timeoutMs: 10_000,
          intervalMs: 50,
        });
        const takeoverMs = Date.now() - releasedAt;
        console.log(
          `[e2e] leader-failover: elector release took ${releaseMs} ms; takeover after release: ${takeoverMs} ms`,
        );
        expect(takeoverMs).toBeLessThanOrEqual(2.2 * fast.retryPeriodMs + 1_000);
        await waitFor('the watch to deliver c taking the lease', async () => ({
          ok: seen.some((l) => l.spec?.holderIdentity === 'elector-c'),
          seen: seen.map((l) => l.spec),
        }));
      } finally {
        watch.stop();
      }
      const holders = seen.map((l) => l.spec?.holderIdentity);
      const released = seen.find((l) => l.spec?.holderIdentity === '');
      expect(released?.spec).toMatchObject({ leaseDurationSeconds: 1, leaseTransitions: 1 });
      expect(released?.spec?.renewTime).toMatch(sixDigits);
      const freed = holders.indexOf('');
      expect(holders.slice(freed, freed + 2)).toEqual(['', 'elector-c']);
      expect((await readLease(api, lease))?.spec?.leaseTransitions).toBe(2);
      expect(b.stopped).toEqual([]);
      expect(b.elector.leading).toBe(false);
    });
  });

  describe('two berth run processes: kill -9 of the leader mid-burst (lease 4 s, retry 1 s)', () => {
    const scn = scenario('kill', 4, 360);
    let a: BerthRun;
    let b: BerthRun;
    let holderA = '';
    let boundAtKill = new Map<string, string>();
    afterAll(async () => {
      await a?.stop('SIGKILL');
      await b?.stop('SIGKILL');
    });

    it('the standby takes over within leaseDuration + retry and schedules the rest', async () => {
      ({ a, b, holderA } = await startPair(scn, fastLeaseFlags));
      await createBurst(scn);
      const bound = await waitForBound(scn, a, 60);
      const killedAt = Date.now();
      expect((await a.stop('SIGKILL')).signal).toBe('SIGKILL');
      boundAtKill = await boundPods(scn);
      const holderB = await waitForNewHolder(scn.lease, holderA, b, 20_000);
      const takeoverMs = Date.now() - killedAt;
      const doneMs = (await waitForAllDecided(scn, b)) - killedAt;
      const recordB = readRecord(scn.records.b);
      const firstBindMs = firstBindAfterLeading(recordB) - killedAt;
      console.log(
        `[e2e] leader-failover: kill -9 at ${bound} of ${scn.slots} bound (${boundAtKill.size} once dead); ` +
          `lease taken over after ${takeoverMs} ms, first bind by the standby after ${firstBindMs} ms, ` +
          `all ${scn.podCount} pods decided after ${doneMs} ms`,
      );
      expect(b.stdout).toContain(holderB);
      expect(boundAtKill.size).toBeLessThan(scn.slots);
      // The leader renewed at most a retry before it died; the standby waits a whole lease
      // from when it first saw that renewal (at most one jittered retry, 2.2 s, later) and
      // finds it expired at most one jittered retry after that.
      expect(takeoverMs).toBeGreaterThanOrEqual(4_000 - 1_000 - 500);
      expect(takeoverMs).toBeLessThanOrEqual(4_000 + 2 * 2_200 + 2_000);
      expect(firstBindMs).toBeLessThanOrEqual(4_000 + 2 * 2_200 + 3_000);
      const lease = await readLease(api, scn.lease);
      expect(lease?.spec?.leaseTransitions).toBe(1);
    });

    it('bound no pod twice, overcommitted no node, and kept every bind of the dead leader', async () => {
      expect(await checkInvariants(scn)).toEqual([]);
      const now = await boundPods(scn);
      for (const [key, node] of boundAtKill) expect(now.get(key), key).toBe(node);
      const exit = await b.stop('SIGTERM');
      expect(exit, b.tail()).toEqual({ code: 0, signal: null });
    });
  });

  describe('two berth run processes: SIGTERM of the leader (default timings)', () => {
    const scn = scenario('term', 2, 180);
    let a: BerthRun;
    let b: BerthRun;
    afterAll(async () => {
      await a?.stop('SIGKILL');
      await b?.stop('SIGKILL');
    });

    it('the leader releases the lease on SIGTERM and the standby takes over within seconds', async () => {
      let holderA: string;
      ({ a, b, holderA } = await startPair(scn, []));
      // The leader decides a burst at once and then binds it at its client rate; what it
      // has decided it still binds while draining. Pods that come after the SIGTERM are
      // the standby's to schedule, once it holds the lease.
      await createBurst(scn, 'p', 100);
      const bound = await waitForBound(scn, a, 40);
      const termAt = Date.now();
      const exited = a.stop('SIGTERM');
      await createBurst(scn, 'q', scn.podCount - 100);
      const exit = await exited;
      const exitMs = Date.now() - termAt;
      expect(exit, a.tail()).toEqual({ code: 0, signal: null });
      const released = a.logs().find((l) => l.msg === 'released the lease');
      expect(released, a.tail()).toBeDefined();
      const holderB = await waitForNewHolder(scn.lease, holderA, b, 20_000);
      const takeoverAt = Date.now();
      const doneMs = (await waitForAllDecided(scn, b)) - termAt;
      const firstBindMs = firstBindAfterLeading(readRecord(scn.records.b)) - termAt;
      const afterRelease = takeoverAt - Number(released?.time);
      console.log(
        `[e2e] leader-failover: SIGTERM at ${bound} of ${scn.slots} bound; leader drained and exited after ${exitMs} ms; ` +
          `lease taken over ${afterRelease} ms after its release (${takeoverAt - termAt} ms after SIGTERM), ` +
          `first bind by the standby after ${firstBindMs} ms, all ${scn.podCount} pods decided after ${doneMs} ms`,
      );
      expect(b.stdout).toContain(holderB);
      // Released: the standby's next retry (at most 2 s × 2.2) takes it, far inside the
      // 15 s it would wait for a lease that was not released.
      expect(afterRelease).toBeLessThanOrEqual(4_400 + 1_000);
      const conflicts = await checkInvariants(scn);
      console.log(
        `[e2e] leader-failover: binds refused as conflicts after SIGTERM: ${conflicts.length}`,
      );
    });
  });

  describe('a leader whose lease is taken from it', () => {
    const scn = scenario('usurp', 1, 10);
    let a: BerthRun;
    afterAll(async () => {
      await a?.stop('SIGKILL');
    });

    it('stops writing, records it, and exits 1 with one line', async () => {
      const dir = cluster().dir;
      await cluster().kubectl.apply(
        toYaml([
          namespace(scn.ns),
          kwokNode(scn.nodes[0] as string, { cpu: '8', memory: '32Gi', pods: 110 }),
        ]),
      );
      const record = join(dir, 'usurp.record.jsonl');
      a = await startBerth(cluster(), {
        kubeconfig: berthKubeconfig, // see berthIdentity
        dir,
        name: 'usurp',
        args: [
          '--scheduler-name',
          scn.schedulerName,
          '--leader-elect=true',
          '--leader-elect-resource-name',
          scn.lease,
          ...fastLeaseFlags,
          '--record',
          record,
        ],
      });
      await waitFor('berth holds the lease', async () => {
        const holder = (await readLease(api, scn.lease))?.spec?.holderIdentity ?? '';
        return { ok: holder.startsWith(`${hostname()}_`), seen: holder };
      });
      // Someone else writes the lease as its holder (as a second elector with a stale view,
      // or an operator, could): at its next renew berth sees another holder. berth renews
      // every second, so a renew may land between the read and the replace (409): read again.
      let takenAt = 0;
      for (let tries = 1; takenAt === 0; tries++) {
        const lease = (await readLease(api, scn.lease)) as LeaseJson;
        const at = Date.now();
        try {
          await cluster().kubectl.run(['replace', '-f', '-'], {
            input: JSON.stringify({
              apiVersion: 'coordination.k8s.io/v1',
              kind: 'Lease',
              metadata: {
                name: scn.lease,
                namespace: leaseNamespace,
                resourceVersion: lease.metadata.resourceVersion,
              },
              spec: { ...lease.spec, holderIdentity: 'usurper_1' },
            }),
          });
          takenAt = at;
        } catch (e) {
          if (tries >= 5 || !/Conflict/.test(String(e))) throw e;
        }
      }
      const exit = await a.exited;
      const exitMs = Date.now() - takenAt;
      console.log(`[e2e] leader-failover: lease taken away; berth exited ${exitMs} ms later`);
      expect(exit, a.tail()).toEqual({ code: 1, signal: null });
      expect(exitMs).toBeLessThanOrEqual(1_000 * 1.2 + 2_000);
      expect(a.stderr.trim()).toMatch(/^berth: lost the leader lease: /);
      expect(a.stderr.trim().split('\n')).toHaveLength(1);
      const events = readRecord(record).flatMap((l) => (l.event?.type ? [l.event.type] : []));
      expect(events.filter((t) => t === 'LeadershipChanged')).toHaveLength(2);
      expect(events.at(-1)).toBe('LeadershipChanged');
      // Nothing was written after: the lease still names the usurper.
      expect((await readLease(api, scn.lease))?.spec?.holderIdentity).toBe('usurper_1');
    });
  });
});

/** One failover scenario: its namespace, nodes, pods, scheduler name, lease and records. */
interface Scenario {
  label: string;
  ns: string;
  schedulerName: string;
  lease: string;
  nodes: string[];
  podCount: number;
  /** Pods that fit: every pod asks for 100m and nodes have 8 cpu, so 80 per node. */
  slots: number;
  records: { a: string; b: string };
}

/**
 * More pods than slots, so that a pod bound twice or a charge lost across the failover
 * shows up as an overcommitted node. Each scenario has its own scheduler name, lease and
 * labelled nodes, so the two never see each other's pods.
 */
function scenario(label: string, nodeCount: number, podCount: number): Scenario {
  return {
    label,
    ns: `failover-${label}`,
    schedulerName: `berth-${label}`,
    lease: `berth-${label}`,
    nodes: Array.from({ length: nodeCount }, (_, i) => `${label}-${i}`),
    podCount,
    slots: nodeCount * 80,
    records: { a: '', b: '' },
  };
}

const keyOf = (p: PodJson) => `${p.metadata.namespace}/${p.metadata.name}`;

/** The record line where this process became the leader. */
function leadingAt(record: RecordLine[]): RecordLine | undefined {
  return record.find((l) => l.event?.type === 'LeadershipChanged' && l.event.leading === true);
}

/** The time (ms since the epoch) of the first successful bind after leadership was won. */
function firstBindAfterLeading(record: RecordLine[]): number {
  const led = leadingAt(record)?.seq ?? Number.POSITIVE_INFINITY;
  const first = record.find((l) => l.event?.type === 'BindSucceeded' && (l.seq ?? 0) > led);
  return typeof first?.time === 'number' ? first.time : Number.NaN;
}
