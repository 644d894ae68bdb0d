// A preemption whose victim delete is refused (403): the victim keeps running without a DisruptionTarget=True left on it, and the preemptor retries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BerthRun, startBerth } from './support/berth.ts';
import { chartAccess, chartRelease } from './support/chart-access.ts';
import { useCluster } from './support/cluster.ts';
import { tokenKubeconfig } from './support/helm.ts';
import { eventsAbout, type PodJson, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, type Manifest, namespace, toYaml } from './support/manifests.ts';
import { priorityClasses, priorityPod } from './support/scenario-priority.ts';
import { waitFor } from './support/wait.ts';

const ns = 'refused';
const node = 'refused-n';
/** The identity under test: the chart's ClusterRole as it was before pods delete was added. */
const account = 'berth-no-delete';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
}

/** The chart's rendered ClusterRole with `delete` taken off every rule on pods. */
function withoutPodDelete(clusterRole: Manifest): Manifest {
  const rules = (clusterRole.rules as Rule[])
    .map((r) =>
      r.apiGroups?.includes('') && r.resources?.includes('pods')
        ? { ...r, verbs: (r.verbs ?? []).filter((v) => v !== 'delete') }
        : r,
    )
    .filter((r) => (r.verbs ?? []).length > 0);
  return { ...clusterRole, metadata: { name: account }, rules };
}

function disruptionTarget(p: PodJson | undefined) {
  return p?.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
}

describe('a victim berth may not delete (403)', () => {
  const cluster = useCluster('preemption-refused');
  let berth: BerthRun;

  beforeAll(async () => {
    const c = cluster();
    const k = c.kubectl;
    const chart = await chartAccess(c);
    const role = chart.objects.find((o) => o.kind === 'ClusterRole');
    if (role === undefined) throw new Error('the chart rendered no ClusterRole');
    await k.apply(
      toYaml([
        ...priorityClasses,
        namespace(ns),
        kwokNode(node, { cpu: '4', memory: '8Gi' }),
        {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: account, namespace: chartRelease.namespace },
        },
        withoutPodDelete(role),
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: account },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: account },
          subjects: [{ kind: 'ServiceAccount', name: account, namespace: chartRelease.namespace }],
        },
        priorityPod('victim', ns, 'berth', { cpu: '3', priorityClassName: 'low', nodeName: node }),
      ]),
    );
    const token = await k.run(['create', 'token', account, '-n', chartRelease.namespace]);
    const kubeconfig = tokenKubeconfig(c.kubeconfig, token.stdout.trim(), account);
    await waitFor('the victim running', async () => {
      const v = await k.pod(ns, 'victim');
      return { ok: v?.status?.phase === 'Running', seen: v?.status };
    });
    // Not the chart's identity: this test is about the identity the chart had before the fix.
    berth = await startBerth(c, { kubeconfig, name: 'berth-no-delete' });
    await k.create(
      toYaml([
        priorityPod('preemptor', ns, 'berth', {
          cpu: '2',
          priorityClassName: 'high',
          nodeSelector: { 'kubernetes.io/hostname': node },
        }),
      ]),
    );
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  it('the delete is refused with 403 and berth tries again after a backoff, more than once', async () => {
    const failures = await waitFor(
      'two refused evictions',
      async () => {
        berth.checkAlive();
        const seen = berth
          .logs()
          .filter((e) => e.msg === 'preemption failed: could not delete the victim');
        return { ok: seen.length >= 2, seen };
      },
      { timeoutMs: 30_000 },
    );
    expect(failures[0]).toMatchObject({ code: 403, victim: `${ns}/victim`, node });
    expect(String(failures[0]?.err)).toMatch(/cannot delete resource "pods"/);
  });

  it('the victim keeps running, and its DisruptionTarget is set back to False, reason PreemptionAbandoned', async () => {
    const k = cluster().kubectl;
    const victim = await waitFor(
      'the victim with DisruptionTarget=False',
      async () => {
        const v = await k.pod(ns, 'victim');
        return { ok: disruptionTarget(v)?.status === 'False', seen: v };
      },
      { timeoutMs: 30_000 },
    );
    expect(victim?.metadata.deletionTimestamp).toBeUndefined();
    expect(victim?.status?.phase).toBe('Running');
    expect(disruptionTarget(victim)).toMatchObject({
      status: 'False',
      reason: 'PreemptionAbandoned',
      message: expect.stringMatching(/^berth: not preempted after all: deleting the pod failed: /),
    });
    expect(berth.logs().some((e) => e.msg === 'DisruptionTarget taken back from the victim')).toBe(
      true,
    );
  });

  it('the preemptor stays unbound and is told why: a FailedScheduling Event "preemption failed: …"', async () => {
    const k = cluster().kubectl;
    const told = await waitFor(
      'a FailedScheduling Event about the failed preemption',
      async () => {
        const notes = eventsAbout(await k.events(ns), 'preemptor', 'FailedScheduling').map(
          (e) => e.note ?? '',
        );
        return { ok: notes.some((n) => n.startsWith('preemption failed: ')), seen: notes };
      },
      { timeoutMs: 30_000 },
    );
    console.log(
      `[e2e] preemption-refused: preemptor's FailedScheduling notes ${JSON.stringify(told)}`,
    );
    expect(told.find((n) => n.startsWith('preemption failed: '))).toMatch(
      new RegExp(`^preemption failed: evicting ${ns}/victim from ${node}: .*forbidden`),
    );
    const preemptor = await k.pod(ns, 'preemptor');
    expect(preemptor?.spec.nodeName).toBeUndefined();
    expect(podScheduledCondition(preemptor)).toMatchObject({ status: 'False' });
  });
});
