// `berth explain group` against a real 1.37.2 control plane (both PodGroup APIs served), as the chart's ServiceAccount: reads only, writes nothing.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { chartAccess } from './support/chart-access.ts';
import { useCluster } from './support/cluster.ts';
import { namespace, toYaml } from './support/manifests.ts';
import { repoRoot } from './support/paths.ts';
import { applyPodGroupCrd } from './support/pod-group-crd.ts';
import { runProcess } from './support/process.ts';
import { podGroup, poolNodes, poolPod } from './support/scenario-gang.ts';
import { coreMembers, corePodGroup, workloadApiFlags } from './support/scenario-workload.ts';

const ns = 'explain-group';
const pool = 'xg';
const tsx = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;

/** Runs `berth explain group ARGS` from source (no berth scheduler runs in this file). */
function explainGroup(...args: string[]) {
  return runProcess(process.execPath, [
    '--import',
    tsx,
    join(repoRoot, 'src/cli/main.ts'),
    'explain',
    'group',
    ...args,
  ]);
}

describe('berth explain group on a live cluster, under the chart RBAC', () => {
  const c = useCluster('explain-group', { apiserverFlags: workloadApiFlags });
  let kubeconfig: string;
  let api: Api;

  /** Every object's resourceVersion in the namespace: what explain must leave as it was. */
  async function versions(): Promise<string[]> {
    const paths = [
      `/api/v1/namespaces/${ns}/pods`,
      `/apis/scheduling.k8s.io/v1beta1/namespaces/${ns}/podgroups`,
      `/apis/scheduling.x-k8s.io/v1alpha1/namespaces/${ns}/podgroups`,
      `/api/v1/namespaces/${ns}/events`,
    ];
    const out: string[] = [];
    for (const path of paths) {
      const list = await api.ok<{
        items: { kind?: string; metadata: { name: string; resourceVersion: string } }[];
      }>('GET', path);
      for (const o of list.items)
        out.push(`${path} ${o.metadata.name} ${o.metadata.resourceVersion}`);
    }
    return out.sort();
  }

  beforeAll(async () => {
    const k = c().kubectl;
    await applyPodGroupCrd(k);
    api = new Api(c().kubeconfig);
    kubeconfig = (await chartAccess(c())).kubeconfig;
    await k.apply(toYaml([namespace(ns), ...poolNodes(pool, 2, '2')]));
    // train: a core gang of 3 members of 2 cpu on two 2-cpu nodes (2 fit, the third nowhere).
    // sweep: a scheduler-plugins group of minMember 3 with 2 members. both: a name in both APIs.
    await k.create(
      toYaml([
        corePodGroup(ns, 'train', 3),
        ...coreMembers(ns, 'train', [0, 1, 2], { pool, cpu: '2', schedulerName: 'berth' }),
        podGroup(ns, 'sweep', 3),
        poolPod(ns, 'sweep-0', { group: 'sweep', pool, cpu: '100m' }),
        poolPod(ns, 'sweep-1', { group: 'sweep', pool, cpu: '100m' }),
        corePodGroup(ns, 'both', 2),
        podGroup(ns, 'both', 2),
      ]),
    );
  });

  it("explains a core gang that fits partly: each member's node, the one that fits nowhere and why, and writes nothing", async () => {
    const before = await versions();
    const r = await explainGroup(`${ns}/train`, '--kubeconfig', kubeconfig);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(
      new RegExp(
        `^berth explain group ${ns}/train \\(core PodGroup, scheduling\\.k8s\\.io/v1beta1\\) — live: ${c().apiserverUrl}$`,
        'm',
      ),
    );
    expect(out).toMatch(/^As of: {4}now \(the cluster as listed\); nothing is written to it$/m);
    expect(out).toMatch(
      new RegExp(
        `^Waiting: {2}fit — pod group ${ns}/train \\(scheduling\\.k8s\\.io\\): 2 of 3 members fit; 0/2 nodes are available for ${ns}/train-2: 2 Insufficient cpu\\.$`,
        'm',
      ),
    );
    expect(out).toMatch(
      /^Quorum: {3}3 of minMember 3 present \(3 seen, 0 gated\); 0 placed, 0 bound$/m,
    );
    expect(out).toMatch(new RegExp(`^ {2}${ns}/train-0: fits — scheduled on ${pool}-[01]`, 'm'));
    expect(out).toMatch(new RegExp(`^ {6}${pool}-0 +NodeResourcesFit: Insufficient cpu$`, 'm'));
    expect(out).toMatch(/^Preemption: not possible — /m);
    expect(await versions()).toEqual(before);
  });

  it('names the missing quorum of a scheduler-plugins group, as JSON', async () => {
    const r = await explainGroup(`${ns}/sweep`, '--kubeconfig', kubeconfig, '--json');
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ name: `${ns}/sweep`, mode: 'live', asOf: { kind: 'now' } });
    expect(doc.explanation.api).toBe('plugins');
    expect(doc.explanation.waiting).toEqual({
      kind: 'quorum',
      text: `pod group ${ns}/sweep has 2 of 3 members`,
    });
    expect(doc.explanation.step).toBeNull();
  });

  it('refuses a name served by both APIs unless --api says which, and an unknown group, in one line', async () => {
    const both = await explainGroup(`${ns}/both`, '--kubeconfig', kubeconfig);
    expect(both.code).toBe(1);
    expect(both.stderr.trim()).toBe(
      `berth: pod group ${ns}/both exists in both APIs (scheduler-plugins PodGroup (scheduling.x-k8s.io/v1alpha1) and core PodGroup (scheduling.k8s.io/v1beta1)): give --api plugins or --api core`,
    );
    const core = await explainGroup(
      `${ns}/both`,
      '--kubeconfig',
      kubeconfig,
      '--api',
      'core',
      '--json',
    );
    expect(core.code, core.stderr).toBe(0);
    expect(JSON.parse(core.stdout).explanation.waiting).toEqual({
      kind: 'quorum',
      text: `pod group ${ns}/both (scheduling.k8s.io) has 0 of 2 members`,
    });
    const nope = await explainGroup(`${ns}/nope`, '--kubeconfig', kubeconfig);
    expect(nope.code).toBe(1);
    expect(nope.stderr.trim()).toBe(
      `berth: unknown pod group ${ns}/nope: no PodGroup of either API and no pod in it in the cluster at ${c().apiserverUrl}`,
    );
  });
});
