// A bind the real API server refuses (RBAC without pods/binding): SchedulerError on the pod, a failing /readyz, then recovery once granted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSamples } from '../support/prometheus-text.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { tokenKubeconfig } from './support/helm.ts';
import { eventsAbout, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, type Manifest, namespace, pod, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'refused';
const saNs = 'berth-system';
const sa = 'berth-limited';
const user = `system:serviceaccount:${saNs}:${sa}`;
/** What the API server answers berth's bind with while its role lacks pods/binding create. */
const forbidden = `pods "web" is forbidden: User "${user}" cannot create resource "pods/binding" in API group "" in the namespace "${ns}"`;

/** A ClusterRole with `rules`, bound to berth's ServiceAccount. */
function boundRole(name: string, rules: Manifest[]): Manifest[] {
  return [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: saNs }],
    },
  ];
}

/** Everything berth needs but the bind: read all, patch pod status, write Events. */
const withoutBinding = boundRole('berth-without-binding', [
  { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
]);
const binding = boundRole('berth-binding', [
  { apiGroups: [''], resources: ['pods/binding'], verbs: ['create'] },
]);

describe('a bind refused by the real API server (RBAC lacks pods/binding create)', () => {
  const cluster = useCluster('bind-refused');
  let berth: BerthRun;
  let url: string;

  const readyz = async () => {
    const res = await fetch(`${url}/readyz`);
    return { status: res.status, body: await res.text() };
  };
  const metric = async (name: string, labels: Record<string, string>) => {
    const samples = parseSamples(await (await fetch(`${url}/metrics`)).text());
    return samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);
  };

  beforeAll(async () => {
    const c = cluster();
    const k = c.kubectl;
    await k.apply(
      toYaml([
        namespace(ns),
        namespace(saNs),
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: saNs } },
        ...withoutBinding,
        kwokNode('n1', { cpu: '4', memory: '8Gi', pods: 110 }),
      ]),
    );
    const token = (
      await k.run(['create', 'token', sa, '-n', saNs, '--duration=3600s'])
    ).stdout.trim();
    // Not the chart's identity: this test needs a role without pods/binding create.
    berth = await startBerth(c, {
      kubeconfig: tokenKubeconfig(c.kubeconfig, token, sa),
      name: 'berth-limited',
    });
    const line = await berth.waitForLog(
      'status server listening',
      (e) => e.msg === 'status server listening',
    );
    url = String((line as Record<string, unknown>).url);
    expect(await readyz()).toEqual({ status: 200, body: 'ok' });
    await k.create(toYaml([pod('web', ns)]));
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('sets PodScheduled=False, reason SchedulerError, with kube-scheduler’s message, and records FailedScheduling', async () => {
    const k = cluster().kubectl;
    const expected = `running Bind plugin "DefaultBinder": ${forbidden}`;
    const cond = await waitFor('PodScheduled=False/SchedulerError on web', async () => {
      berth.checkAlive();
      const c = podScheduledCondition(await k.pod(ns, 'web'));
      return { ok: c?.reason === 'SchedulerError', seen: c };
    });
    expect(cond).toMatchObject({ status: 'False', reason: 'SchedulerError', message: expected });
    const events = await waitFor('a FailedScheduling Event about web', async () => {
      const found = eventsAbout(await k.events(ns), 'web', 'FailedScheduling');
      return { ok: found.length > 0, seen: found };
    });
    expect(events[0]).toMatchObject({ type: 'Warning', action: 'Scheduling', note: expected });
    expect((await k.pod(ns, 'web'))?.spec.nodeName).toBeUndefined();
  });

  it('fails /readyz naming the missing permission after repeated refusals, and counts them', async () => {
    const seen = await waitFor(
      '/readyz failing on the refused binds',
      async () => {
        berth.checkAlive();
        const r = await readyz();
        return { ok: r.status === 503, seen: r };
      },
      { timeoutMs: 60_000 },
    );
    expect(seen.body).toContain(`bind: 403 forbidden: ${forbidden}`);
    expect(seen.body).toContain("RBAC: berth's ClusterRole lacks create on pods/binding");
    // Liveness stays green: restarting berth would not grant it anything.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await metric('berth_bind_failures_total', { code: '403' })).toBeGreaterThanOrEqual(3);
    expect(
      await metric('scheduler_schedule_attempts_total', { result: 'error', profile: 'berth' }),
    ).toBeGreaterThanOrEqual(3);
  });

  it('binds the pod once the permission is granted, and /readyz is ok again', async () => {
    const k = cluster().kubectl;
    await k.apply(toYaml(binding));
    const bound = await waitFor(
      'web bound after the grant',
      async () => {
        berth.checkAlive();
        const p = await k.pod(ns, 'web');
        return { ok: p?.spec.nodeName !== undefined, seen: p?.status };
      },
      { timeoutMs: 60_000 },
    );
    expect(bound).toBeDefined();
    expect((await k.pod(ns, 'web'))?.spec.nodeName).toBe('n1');
    const ready = await waitFor('/readyz ok', async () => {
      const r = await readyz();
      return { ok: r.status === 200, seen: r };
    });
    expect(ready).toEqual({ status: 200, body: 'ok' });
  });
});
