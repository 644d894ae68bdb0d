// Node selectors, required node affinity and taints on real Node objects place pods as simulate does.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { clusterOvercommits } from './support/invariants.ts';
import { startKubeScheduler } from './support/kube-scheduler.ts';
import { type PodJson, podScheduledCondition } from './support/kubectl.ts';
import { kwokNode, type Manifest, namespace, pod, pods, toYaml } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'constraints';
const gpuToleration = { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' };

function required(...matchExpressions: Manifest[]): Manifest {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions }] },
    },
  };
}

const nodes = [
  kwokNode('n-ssd', { cpu: '4', memory: '8Gi', labels: { zone: 'a', disktype: 'ssd' } }),
  kwokNode('n-gpu', {
    cpu: '8',
    memory: '16Gi',
    labels: { zone: 'b', accelerator: 'gpu' },
    taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
  }),
  kwokNode('n-mid', { cpu: '4', memory: '8Gi', labels: { zone: 'b', tier: 'mid' } }),
  kwokNode('n-c', { cpu: '4', memory: '8Gi', labels: { zone: 'c' } }),
];

/** The test's pods in `namespace` for `schedulerName`. */
function workload(namespace: string, schedulerName: string) {
  const opts = { schedulerName };
  /** Pods whose constraints leave exactly one feasible node, and that node. */
  const pinned: [Manifest, string][] = [
    [pod('by-selector', namespace, { ...opts, nodeSelector: { disktype: 'ssd' } }), 'n-ssd'],
    [
      pod('by-affinity-in', namespace, {
        ...opts,
        affinity: required({ key: 'zone', operator: 'In', values: ['c'] }),
      }),
      'n-c',
    ],
    // Zone b has n-gpu and n-mid; the taint rules out n-gpu.
    [
      pod('by-affinity-notin', namespace, {
        ...opts,
        affinity: required({ key: 'zone', operator: 'NotIn', values: ['a', 'c'] }),
      }),
      'n-mid',
    ],
    [
      pod('tolerates-gpu', namespace, {
        ...opts,
        nodeSelector: { accelerator: 'gpu' },
        tolerations: [gpuToleration],
      }),
      'n-gpu',
    ],
    [
      pod('tolerates-gpu-exists', namespace, {
        ...opts,
        affinity: required(
          { key: 'accelerator', operator: 'Exists' },
          { key: 'zone', operator: 'In', values: ['b'] },
        ),
        tolerations: [{ key: 'dedicated', operator: 'Exists' }],
      }),
      'n-gpu',
    ],
    [
      pod('by-field', namespace, {
        ...opts,
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n-c'] }] },
              ],
            },
          },
        },
      }),
      'n-c',
    ],
    // Tolerates the taint, but 6 cpu fits only n-gpu (8 cpu).
    [pod('big-tolerant', namespace, { ...opts, cpu: '6', tolerations: [gpuToleration] }), 'n-gpu'],
  ];
  /** Pods that tolerate nothing and may go to any untainted node. */
  const free = pods('free', namespace, 8, { ...opts, cpu: '250m' });
  /** Wants the GPU node but does not tolerate its taint: fits nowhere. */
  const intolerant = pod('gpu-intolerant', namespace, {
    ...opts,
    nodeSelector: { accelerator: 'gpu' },
  });
  /** Pinned by name (kube's PreFilter narrows to it) to a node too small for it. */
  const pinnedTooBig = pod('pinned-too-big', namespace, {
    ...opts,
    cpu: '6',
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n-c'] }] },
          ],
        },
      },
    },
  });
  return {
    pinned,
    free,
    intolerant,
    pods: [...pinned.map(([p]) => p), ...free, intolerant, pinnedTooBig],
  };
}

const nameOf = (m: Manifest) => (m.metadata as { name: string }).name;
/** The pods that fit nowhere (and are marked Unschedulable). */
const unschedulable = ['gpu-intolerant', 'pinned-too-big'];
const { pinned, free } = workload(ns, 'berth');

const all = [...nodes, ...workload(ns, 'berth').pods];

describe('selectors, affinity and taints on real nodes', () => {
  const cluster = useCluster('constraints');
  let berth: BerthRun;
  let manifestPath: string;

  beforeAll(async () => {
    const k = cluster().kubectl;
    manifestPath = join(cluster().dir, 'constraints.yaml');
    writeFileSync(manifestPath, toYaml(all));
    await k.apply(toYaml([namespace(ns), ...nodes]));
    berth = await startBerth(cluster(), { name: 'berth' });
    await k.create(toYaml(all.filter((o) => o.kind === 'Pod')));
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL');
  });

  /** Waits until every pod of `namespace` is bound except the unschedulable ones, so marked. */
  async function settled(namespace = ns): Promise<PodJson[]> {
    const k = cluster().kubectl;
    const seen = await waitFor(
      `${namespace}: all bound but ${unschedulable.join(', ')} (Unschedulable)`,
      async () => {
        berth.checkAlive();
        const ps = await k.pods(namespace);
        const waiting = ps.filter((p) =>
          unschedulable.includes(p.metadata.name)
            ? podScheduledCondition(p)?.status !== 'False'
            : p.spec.nodeName === undefined,
        );
        return {
          ok: ps.length === all.length - nodes.length && waiting.length === 0,
          seen: { count: ps.length, waiting: waiting.map((p) => p.metadata.name), pods: ps },
        };
      },
    );
    return seen.pods;
  }

  it.each(pinned.map(([p, node]) => [nameOf(p), node]))(
    'places %s on %s, the only node its constraints allow',
    async (name, node) => {
      await settled();
      expect((await cluster().kubectl.pod(ns, name))?.spec.nodeName).toBe(node);
    },
  );

  it('never puts a pod that tolerates nothing on the tainted node', async () => {
    const ps = await settled();
    const freePods = ps.filter((p) => p.metadata.name.startsWith('free-'));
    expect(freePods).toHaveLength(free.length);
    for (const p of freePods) {
      expect(p.spec.nodeName).toBeDefined();
      expect(p.spec.nodeName).not.toBe('n-gpu');
    }
  });

  it('leaves a pod that needs the tainted node but does not tolerate it unschedulable', async () => {
    await settled();
    const p = await cluster().kubectl.pod(ns, 'gpu-intolerant');
    expect(p?.spec.nodeName).toBeUndefined();
    const cond = podScheduledCondition(p);
    expect(cond).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    expect(cond?.message).toMatch(/^0\/4 nodes are available: /);
  });

  it('agrees with berth simulate on the same manifests', async () => {
    await settled();
    const sim = await berthCommand(['simulate', '--cluster', manifestPath, '--json']);
    expect(sim.code, sim.stderr).toBe(0);
    const summary = JSON.parse(sim.stdout) as {
      placements: Record<string, string>;
      pending: Record<string, string>;
    };
    const live = await cluster().kubectl.pods(ns);
    for (const [p] of pinned) {
      const name = nameOf(p);
      const onNode = live.find((q) => q.metadata.name === name)?.spec.nodeName;
      expect(summary.placements[`${ns}/${name}`], name).toBe(onNode);
    }
    for (const name of unschedulable) {
      const cond = podScheduledCondition(live.find((q) => q.metadata.name === name));
      expect(summary.pending[`${ns}/${name}`], name).toBe(cond?.message);
    }
  });

  it('puts no node over capacity', async () => {
    await settled();
    expect(await clusterOvercommits(cluster().kubectl)).toEqual([]);
  });

  it('places the pinned pods where the real kube-scheduler does, with the same reasons', async () => {
    const k = cluster().kubectl;
    const ours = await settled();
    // Free the nodes, then let kube-scheduler place copies of the same pods.
    await k.run(['delete', 'pods', '--all', '-n', ns, '--grace-period=0', '--force']);
    await waitFor(`no pods left in ${ns}`, async () => {
      const left = await k.pods(ns);
      return { ok: left.length === 0, seen: left.map((p) => p.metadata.name) };
    });
    const kubeNs = 'constraints-kube';
    await k.apply(toYaml([namespace(kubeNs)]));
    await k.create(toYaml(workload(kubeNs, 'default-scheduler').pods));
    const scheduler = startKubeScheduler(cluster());
    try {
      const theirs = await settled(kubeNs);
      for (const [p] of pinned) {
        const name = nameOf(p);
        const kubeNode = theirs.find((q) => q.metadata.name === name)?.spec.nodeName;
        expect(ours.find((q) => q.metadata.name === name)?.spec.nodeName, name).toBe(kubeNode);
      }
      for (const name of unschedulable) {
        const berthMessage = podScheduledCondition(
          ours.find((q) => q.metadata.name === name),
        )?.message;
        const kubeMessage = podScheduledCondition(
          theirs.find((q) => q.metadata.name === name),
        )?.message;
        process.stderr.write(
          `[e2e] ${name}: berth: ${berthMessage}\n[e2e] ${name}: kube-scheduler: ${kubeMessage}\n`,
        );
        // The whole message: the filters' sentence and what the PostFilters (DynamicResources,
        // DefaultPreemption) said after it.
        expect(berthMessage, name).toBe(kubeMessage);
      }
    } finally {
      await scheduler.stop();
    }
  });
});
