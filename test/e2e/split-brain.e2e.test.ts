// Split brain: a leader paused (SIGSTOP) past its lease, resumed after the standby took over, must write nothing that is accepted.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, fastLeaseFlags, startBerth } from './support/berth.ts';
import { isAccessObject } from './support/chart-access.ts';
import { useCluster } from './support/cluster.ts';
import { chartDir, Helm, parseObjects, tokenKubeconfig } from './support/helm.ts';
import { clusterOvercommits } from './support/invariants.ts';
import type { PodJson } from './support/kubectl.ts';
import { kwokNode, namespace, pods, toYaml } from './support/manifests.ts';
import { delay, waitFor } from './support/wait.ts';

const releaseNs = 'berth-system';
/** One Lease for both replicas (as one chart install with two replicas has). */
const lease = 'berth-split';
const nodesPerRun = 3;
const podsPerNode = 150;
const slots = nodesPerRun * podsPerNode;
/**
 * The pods of the burst: as many as there are slots. While the leader is paused, as many
 * pods of a higher priority come: the standby places those first and leaves the old leader's
 * queued pods pending, so a stale bind of the old leader, if one went out, would overcommit.
 */
const podsPerRun = slots;
/** A class above the burst's (0), never preempting: the standby fills free slots with these. */
const highClass = {
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name: 'split-high' },
  value: 1000,
  preemptionPolicy: 'Never',
};
const pauseMs = 30_000;

/** Every write to pods (any subresource), Events and leases, with who made it and when. */
const auditPolicy = [
  'apiVersion: audit.k8s.io/v1',
  'kind: Policy',
  'omitStages: ["RequestReceived"]',
  'rules:',
  '- level: Metadata',
  '  verbs: ["create", "update", "patch", "delete", "deletecollection"]',
  '  resources:',
  '  - { group: "", resources: ["pods", "pods/binding", "pods/status", "events"] }',
  '  - { group: "events.k8s.io", resources: ["events"] }',
  '  - { group: "coordination.k8s.io", resources: ["leases"] }',
  '  - { group: "scheduling.x-k8s.io", resources: ["podgroups", "podgroups/status"] }',
  '- level: None',
  '',
].join('\n');

/** The audit event fields this test reads. */
interface Audited {
  verb: string;
  user: { username: string };
  objectRef: { resource: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
}

function audited(path: string): Audited[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Audited);
}

const serviceAccountUser = (sa: string) => `system:serviceaccount:${releaseNs}:${sa}`;

describe('split brain: the old leader resumed after a 30 s SIGSTOP (default lease 15 s / 10 s / 2 s)', () => {
  const cluster = useCluster('split-brain', { auditPolicy });
  let helm: Helm;
  const kubeconfigs: Record<'a' | 'b', string> = { a: '', b: '' };
  const users: Record<'a' | 'b', string> = { a: '', b: '' };
  let api: Api;
  const running: BerthRun[] = [];

  beforeAll(async () => {
    const c = cluster();
    const version = await c.kubectl.raw<{ gitVersion: string }>('/version');
    helm = new Helm(join(c.binDir, 'helm'), c.kubeconfig, join(c.dir, 'helm'), version.gitVersion);
    await c.kubectl.apply(toYaml([namespace(releaseNs), highClass]));
    // Two releases of the chart sharing one Lease: each replica runs as its own
    // ServiceAccount with the chart's own RBAC, so the audit log tells their writes apart.
    for (const replica of ['a', 'b'] as const) {
      const release = `split-${replica}`;
      const r = await helm.run([
        'template',
        release,
        chartDir,
        '--namespace',
        releaseNs,
        '--kube-version',
        version.gitVersion,
        '--set',
        `leaderElection.resourceName=${lease}`,
        '--set',
        'metrics.service.enabled=false',
      ]);
      // The RBAC, the Lease and the bind fence (an admission policy on that Lease).
      const rbac = parseObjects(r.stdout).filter(isAccessObject);
      await c.kubectl.apply(toYaml(rbac));
      const sa = rbac.find((o) => o.kind === 'ServiceAccount') as { metadata: { name: string } };
      const token = (
        await c.kubectl.run([
          'create',
          'token',
          sa.metadata.name,
          '-n',
          releaseNs,
          '--duration=3600s',
        ])
      ).stdout.trim();
      kubeconfigs[replica] = tokenKubeconfig(c.kubeconfig, token, release);
      users[replica] = serviceAccountUser(sa.metadata.name);
    }
    api = new Api(c.kubeconfig);
  });

  /** Resumes and stops every replica started so far (SIGTERM: a leader releases the Lease). */
  async function stopAll(): Promise<void> {
    for (const run of running.splice(0)) {
      if (run.exitStatus !== undefined) continue;
      try {
        process.kill(run.pid, 'SIGCONT');
      } catch {}
      await run.stop('SIGTERM', 15_000);
    }
  }

  afterAll(async () => {
    await stopAll();
    api?.close();
  });

  // At qps 50 the defaults (burst 100) send 100 binds at once and the next 350 over 7 s;
  // --burst 10 sends 10, then the 440 others over 9 s. The pause comes in that stretch.
  for (const [label, flags, pauseAtBound] of [
    ['defaults', [] as string[], 180],
    ['--burst 10', ['--burst', '10'], 80],
  ] as const) {
    it(`${label}: no write of the old leader accepted after the standby's acquire (a late bind refused by the API server), no node overcommitted`, async () => {
      await stopAll();
      const runStartedAt = new Date().toISOString();
      const c = cluster();
      const tag = label === 'defaults' ? 'dflt' : 'b10';
      const ns = `split-${tag}`;
      const schedulerName = `berth-${tag}`;
      const nodes = Array.from({ length: nodesPerRun }, (_, i) => `split-${tag}-${i}`);
      await c.kubectl.apply(toYaml([namespace(ns)]));
      const args = [
        '--scheduler-name',
        schedulerName,
        '--leader-elect=true',
        '--leader-elect-resource-name',
        lease,
        '--leader-elect-resource-namespace',
        releaseNs,
        ...flags,
      ];
      const a = await startBerth(c, { kubeconfig: kubeconfigs.a, name: `${ns}-a`, args });
      running.push(a);
      await a.waitForLog('a leading', (e) => e.msg === 'successfully acquired lease', 30_000);
      const b = await startBerth(c, { kubeconfig: kubeconfigs.b, name: `${ns}-b`, args });
      running.push(b);
      await b.waitForLog('b standing by', (e) => e.msg === 'new leader observed', 30_000);

      // The pods first, with no node to go to: when the nodes come, a decides hundreds of
      // binds at once and they queue in its rate limiter.
      const burst = pods('p', ns, podsPerRun, {
        cpu: '100m',
        memory: '64Mi',
        schedulerName,
        nodeSelector: { split: tag },
      });
      await Promise.all(burst.map((p) => api.createPod(ns, p)));
      await waitFor('a to find every pod unschedulable', async () => {
        const seen = a.logs().filter((e) => e.msg === 'unschedulable').length;
        return { ok: seen >= podsPerRun, seen };
      });
      await c.kubectl.apply(
        toYaml(
          nodes.map((n) =>
            kwokNode(n, { cpu: '64', memory: '256Gi', pods: podsPerNode, labels: { split: tag } }),
          ),
        ),
      );
      // Pause the leader mid-burst: binds it decided are waiting in its rate limiter.
      const boundAtPause = await waitFor(
        `${pauseAtBound} pods bound by a`,
        async () => {
          a.checkAlive();
          const list = await api.ok<{ items: PodJson[] }>(
            'GET',
            `/api/v1/namespaces/${ns}/pods?fieldSelector=spec.nodeName%21%3D`,
          );
          const bound = list.items.length;
          return { ok: bound >= pauseAtBound, seen: bound };
        },
        { timeoutMs: 60_000, intervalMs: 20 },
      );
      process.kill(a.pid, 'SIGSTOP');
      const pausedAt = Date.now();
      const high = pods('high', ns, slots, {
        cpu: '100m',
        memory: '64Mi',
        schedulerName,
        nodeSelector: { split: tag },
      }).map((p) => ({ ...p, spec: { ...(p.spec as object), priorityClassName: 'split-high' } }));
      await Promise.all(high.map((p) => api.createPod(ns, p)));
      await b.waitForLog('b takes over', (e) => e.msg === 'successfully acquired lease', 40_000);
      const takeoverMs = Date.now() - pausedAt;
      await delay(Math.max(0, pauseMs - (Date.now() - pausedAt)));
      process.kill(a.pid, 'SIGCONT');
      const exit = await a.exited;
      // Let the standby finish and anything the old leader might still send arrive.
      await waitFor('every slot filled by b', async () => {
        b.checkAlive();
        const bound = (await c.kubectl.pods(ns)).filter((p) => p.spec.nodeName).length;
        return { ok: bound >= slots, seen: bound };
      });
      await delay(3_000);

      const log = audited(c.auditLog);
      const userA = users.a;
      const userB = users.b;
      const acquiredAt = log.find(
        (e) =>
          e.user.username === userB &&
          e.requestReceivedTimestamp > runStartedAt &&
          e.objectRef.resource === 'leases' &&
          e.objectRef.name === lease &&
          (e.responseStatus?.code ?? 0) < 300,
      )?.requestReceivedTimestamp;
      expect(acquiredAt, 'b acquired the lease').toBeDefined();
      const late = log.filter(
        (e) =>
          e.user.username === userA &&
          e.objectRef.namespace === ns &&
          e.objectRef.resource !== 'leases' &&
          e.requestReceivedTimestamp > (acquiredAt ?? ''),
      );
      const lateBinds = late.filter((e) => e.objectRef.subresource === 'binding');
      const accepted = late.filter((e) => (e.responseStatus?.code ?? 0) < 300);
      const overcommitted = (await clusterOvercommits(c.kubectl)).filter((o) =>
        nodes.includes(o.node),
      );
      console.log(
        `[e2e] split-brain ${label}: paused a at ${boundAtPause} bound; b acquired ${(takeoverMs / 1000).toFixed(1)} s into the pause; ` +
          `a exited ${exit.code ?? exit.signal}; writes by a after b's acquire: ${late.length} ` +
          `(${lateBinds.length} binds, ${accepted.length} accepted); overcommitted nodes: ${overcommitted.length}`,
      );
      const described = (writes: Audited[]) =>
        writes.map(
          (e) =>
            `${e.verb} ${e.objectRef.resource}/${e.objectRef.subresource ?? ''} ${e.objectRef.name ?? ''} ${e.responseStatus?.code ?? ''}`,
        );
      // Binds are fenced twice: by a before sending (which a pause between its check and its
      // write syscall can outlast) and by the API server (the chart's admission policy), which
      // refuses any that arrives after b's acquire. Every other write has only a's own fence.
      expect(described(late.filter((e) => e.objectRef.subresource !== 'binding'))).toEqual([]);
      expect(described(lateBinds.filter((e) => e.responseStatus?.code !== 403))).toEqual([]);
      expect(overcommitted).toEqual([]);
      expect(exit.code).toBe(1);
      expect(a.stderr).toMatch(/lost the leader lease/);
    });
  }

  it('a leader that loses its lease to an unresponsive API server exits within 2 s of the loss', async () => {
    await stopAll();
    const c = cluster();
    const a = await startBerth(c, {
      kubeconfig: kubeconfigs.a,
      name: 'unresponsive-a',
      args: [
        '--scheduler-name',
        'berth-unresponsive',
        '--leader-elect=true',
        '--leader-elect-resource-name',
        lease,
        '--leader-elect-resource-namespace',
        releaseNs,
        ...fastLeaseFlags,
      ],
    });
    running.push(a);
    await a.waitForLog('a leading', (e) => e.msg === 'successfully acquired lease', 30_000);
    const apiserver = c.pids()['kube-apiserver'];
    if (apiserver === undefined) throw new Error('no kube-apiserver pid');
    process.kill(apiserver, 'SIGSTOP');
    try {
      const loss = await a.waitForLog('the loss', (e) => e.msg === 'leader lease lost', 30_000);
      // pino's `time`: when the loss was logged, not when this poll saw it.
      const lostAt = typeof loss === 'string' ? Date.now() : Number(loss.time);
      const exit = await Promise.race([a.exited, delay(30_000).then(() => undefined)]);
      const lingerMs = Date.now() - lostAt;
      console.log(
        `[e2e] split-brain: exited ${lingerMs} ms after losing the lease to a paused API server`,
      );
      expect(exit?.code).toBe(1);
      expect(lingerMs).toBeLessThan(2_000);
    } finally {
      process.kill(apiserver, 'SIGCONT');
    }
  });
});
