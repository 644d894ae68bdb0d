// Two preemptors share one terminating victim: berth nominates and binds both as kube-scheduler does (the oracle).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { type KubeScheduler, startKubeScheduler } from './support/kube-scheduler.ts';
import { kwokNode, namespace } from './support/manifests.ts';
import { priorityClasses, priorityPod } from './support/scenario-priority.ts';
import { waitFor } from './support/wait.ts';

interface PodState {
  metadata: { deletionTimestamp?: string };
  spec: { nodeName?: string };
  status?: { phase?: string; nominatedNodeName?: string };
}

/** One scheduler's side of the scenario: its namespace, node and `spec.schedulerName`. */
interface Side {
  scheduler: string;
  ns: string;
  node: string;
  schedulerName: string;
}

const sides: Side[] = [
  {
    scheduler: 'kube-scheduler',
    ns: 'sv-kube',
    node: 'sv-kube-n',
    schedulerName: 'default-scheduler',
  },
  { scheduler: 'berth', ns: 'sv-berth', node: 'sv-berth-n', schedulerName: 'berth' },
];

/** What a side looked like at one point of the scenario, compared between the schedulers. */
interface Seen {
  aNominated?: string;
  bNominated?: string;
  aBound?: string;
  bBound?: string;
  victim: 'running' | 'terminating' | 'gone';
}

describe('a victim shared by two preemptors, beside kube-scheduler', () => {
  const cluster = useCluster('shared-victim');
  let api: Api;
  let kube: KubeScheduler | undefined;

  const get = async (side: Side, name: string): Promise<PodState | undefined> => {
    const r = await api.request<PodState>('GET', `/api/v1/namespaces/${side.ns}/pods/${name}`);
    return r.status === 404 ? undefined : r.body;
  };
  /** The side's pods, its node named `the node` so that the two sides compare equal. */
  const seen = async (side: Side): Promise<Seen> => {
    const [a, b, victim] = await Promise.all(['a', 'b', 'victim'].map((n) => get(side, n)));
    const node = (name: string | undefined) => (name === side.node ? 'the node' : name);
    return {
      aNominated: node(a?.status?.nominatedNodeName),
      bNominated: node(b?.status?.nominatedNodeName),
      aBound: node(a?.spec.nodeName),
      bBound: node(b?.spec.nodeName),
      victim:
        victim === undefined
          ? 'gone'
          : victim.metadata.deletionTimestamp === undefined
            ? 'running'
            : 'terminating',
    };
  };
  const preemptor = (side: Side, name: string) =>
    priorityPod(name, side.ns, side.schedulerName, {
      cpu: '2',
      priorityClassName: 'high',
      nodeSelector: { 'kubernetes.io/hostname': side.node },
    });

  beforeAll(async () => {
    api = new Api(cluster().kubeconfig);
    for (const pc of priorityClasses)
      await api.ok('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', pc);
    for (const side of sides) {
      await api.ok('POST', '/api/v1/namespaces', namespace(side.ns));
      await api.ok('POST', '/api/v1/nodes', kwokNode(side.node, { cpu: '4', memory: '8Gi' }));
      // 3 of the node's 4 cpu, held by a finalizer once deleted.
      const victim = priorityPod('victim', side.ns, side.schedulerName, {
        cpu: '3',
        priorityClassName: 'low',
        nodeName: side.node,
      });
      (victim.metadata as Record<string, unknown>).finalizers = ['berth.test/hold'];
      await api.ok('POST', `/api/v1/namespaces/${side.ns}/pods`, victim);
    }
    await waitFor(
      'both victims running',
      async () => {
        const states = await Promise.all(sides.map((s) => get(s, 'victim')));
        return { ok: states.every((p) => p?.status?.phase === 'Running'), seen: states };
      },
      { timeoutMs: 30_000 },
    );
    // kwok ends the termination of a pod it runs by removing its finalizers; without kwok
    // only this test ends it (nothing taints the nodes: no node lifecycle controller runs).
    process.kill(cluster().pids().kwok as number, 'SIGKILL');
    kube = startKubeScheduler(cluster());
    await startBerth(cluster(), { name: 'berth' });
  }, 120_000);

  afterAll(async () => {
    await kube?.stop();
    api?.close();
  });

  it('nominates both to the node while the victim terminates, and binds both once it is gone', async () => {
    for (const side of sides)
      await api.ok('POST', `/api/v1/namespaces/${side.ns}/pods`, preemptor(side, 'a'));
    for (const side of sides)
      await waitFor(
        `${side.scheduler}: a nominated and the victim terminating`,
        async () => {
          const s = await seen(side);
          return { ok: s.aNominated === 'the node' && s.victim === 'terminating', seen: s };
        },
        { timeoutMs: 30_000 },
      );
    for (const side of sides)
      await api.ok('POST', `/api/v1/namespaces/${side.ns}/pods`, preemptor(side, 'b'));
    for (const side of sides)
      await waitFor(
        `${side.scheduler}: b nominated`,
        async () => {
          const s = await seen(side);
          return { ok: s.bNominated !== undefined, seen: s };
        },
        { timeoutMs: 30_000 },
      );
    const [kubeBefore, berthBefore] = await Promise.all(sides.map((s) => seen(s)));
    expect(kubeBefore).toEqual({
      aNominated: 'the node',
      bNominated: 'the node',
      victim: 'terminating',
    });
    expect(berthBefore).toEqual(kubeBefore);

    for (const side of sides)
      await api.ok('PATCH', `/api/v1/namespaces/${side.ns}/pods/victim`, {
        metadata: { finalizers: null },
      });
    const after: Seen[] = [];
    for (const side of sides)
      after.push(
        await waitFor(
          `${side.scheduler}: a and b bound once the victim is gone`,
          async () => {
            const s = await seen(side);
            return { ok: s.aBound !== undefined && s.bBound !== undefined, seen: s };
          },
          { timeoutMs: 30_000 },
        ),
      );
    expect(after[0]).toMatchObject({ aBound: 'the node', bBound: 'the node', victim: 'gone' });
    expect(after[1]).toEqual(after[0]);
  }, 120_000);
});
