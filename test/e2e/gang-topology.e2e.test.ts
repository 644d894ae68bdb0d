// Topology-aware gangs on a real cluster: a PodGroup annotated berth.dev/topology-key lands inside one rack; one no rack holds waits, saying why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { kwokNode, type Manifest, namespace, toYaml } from './support/manifests.ts';
import { applyPodGroupCrd } from './support/pod-group-crd.ts';
import { groupPods, members, poolLabel, scheduled } from './support/scenario-gang.ts';
import { waitFor } from './support/wait.ts';

const ns = 'gang-topology';
const rack = 'topology.kubernetes.io/rack';
const pool = 'topo';

/** A kwok node of the scenario's pool, in rack `value` (no rack label when undefined). */
function rackNode(name: string, cpu: string, value: string | undefined): Manifest {
  const labels = { [poolLabel]: pool, ...(value === undefined ? {} : { [rack]: value }) };
  return kwokNode(name, { cpu, memory: '4Gi', labels });
}

/** A PodGroup of `minMember` whose members must share one value of the rack label. */
function rackGroup(name: string, minMember: number): Manifest {
  return {
    apiVersion: 'scheduling.x-k8s.io/v1alpha1',
    kind: 'PodGroup',
    metadata: { name, namespace: ns, annotations: { 'berth.dev/topology-key': rack } },
    spec: { minMember },
  };
}

describe('topology-aware gang placement on a real cluster', () => {
  const c = useCluster('gang-topology');
  let api: Api;
  let berth: BerthRun;

  beforeAll(async () => {
    api = new Api(c().kubeconfig);
    await applyPodGroupCrd(c().kubectl);
    await c().kubectl.apply(toYaml([namespace(ns)]));
    // rack-a: 2 × 2 cpu (one 1500m member each); rack-b: 2 × 4 cpu (two each); an unlabelled
    // 8-cpu node that the default scores would otherwise like best.
    await c().kubectl.apply(
      toYaml([
        rackNode('topo-a-0', '2', 'rack-a'),
        rackNode('topo-a-1', '2', 'rack-a'),
        rackNode('topo-b-0', '4', 'rack-b'),
        rackNode('topo-b-1', '4', 'rack-b'),
        rackNode('topo-free', '8', undefined),
      ]),
    );
    berth = await startBerth(c(), { name: 'berth-gang-topology' });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
    api?.close();
  });

  it('binds all 4 members of a rack-constrained group inside rack-b, the only rack that holds them', async () => {
    await c().kubectl.apply(toYaml([rackGroup('allreduce', 4)]));
    await c().kubectl.create(
      toYaml(members(ns, 'allreduce', [0, 1, 2, 3], { pool, cpu: '1500m' })),
    );
    const ps = await waitFor('4 members of allreduce bound', async () => {
      berth.checkAlive();
      const all = await groupPods(api, ns, 'allreduce');
      const bound = all.filter((p) => p.spec.nodeName !== undefined);
      return { ok: bound.length === 4, seen: all.map((p) => [p.metadata.name, p.spec.nodeName]) };
    });
    const nodes = ps.map(([, node]) => node as string).sort();
    expect(nodes).toEqual(['topo-b-0', 'topo-b-0', 'topo-b-1', 'topo-b-1']);
  });

  it('keeps a group that no rack holds unbound, each member told why', async () => {
    await c().kubectl.apply(toYaml([rackGroup('wide', 3)]));
    await c().kubectl.create(toYaml(members(ns, 'wide', [0, 1, 2], { pool, cpu: '1500m' })));
    const message = `pod group ${ns}/wide: no domain of ${rack} holds all 3 members: 0 of 2 domains tried, 2 too small by summed free capacity`;
    await waitFor('wide: 3 members PodScheduled=False with the no-rack message', async () => {
      berth.checkAlive();
      const all = await groupPods(api, ns, 'wide');
      const told = all.filter(
        (p) => p.spec.nodeName === undefined && scheduled(p)?.message === message,
      );
      return { ok: all.length === 3 && told.length === 3, seen: all.map((p) => scheduled(p)) };
    });
  });
});
