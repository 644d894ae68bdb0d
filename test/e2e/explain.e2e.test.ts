// `berth explain` against a real control plane: lists once, explains a pending pod, writes nothing.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { useCluster } from './support/cluster.ts';
import type { PodJson } from './support/kubectl.ts';
import { kwokNode, namespace, pod, toYaml } from './support/manifests.ts';
import { repoRoot } from './support/paths.ts';
import { runProcess } from './support/process.ts';
import { waitFor } from './support/wait.ts';

const ns = 'explain';
const tsx = pathToFileURL(join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;

/** Runs `berth explain ARGS` from source (no berth scheduler runs in this file). */
function explain(...args: string[]) {
  return runProcess(process.execPath, [
    '--import',
    tsx,
    join(repoRoot, 'src/cli/main.ts'),
    'explain',
    ...args,
  ]);
}

/** What must not change when explain runs: the pod's version, node, conditions. */
function footprint(p: PodJson | undefined) {
  const meta = p?.metadata as (PodJson['metadata'] & { resourceVersion?: string }) | undefined;
  return {
    resourceVersion: meta?.resourceVersion,
    nodeName: p?.spec.nodeName,
    conditions: p?.status?.conditions ?? [],
  };
}

describe('berth explain on a live cluster', () => {
  const cluster = useCluster('explain');

  beforeAll(async () => {
    const k = cluster().kubectl;
    await k.apply(
      toYaml([
        namespace(ns),
        kwokNode('n1', { cpu: '2', memory: '4Gi' }),
        kwokNode('n2', { cpu: '4', memory: '8Gi' }),
        kwokNode('n3', {
          cpu: '8',
          memory: '16Gi',
          taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
        }),
      ]),
    );
    // Another scheduler's pod already on n2: 3 of its 4 cpus are taken.
    const filler = pod('filler', ns, { schedulerName: null, cpu: '3', memory: '1Gi' });
    (filler.spec as Record<string, unknown>).nodeName = 'n2';
    await k.create(
      toYaml([
        filler,
        pod('web', ns, { cpu: '500m', memory: '256Mi' }),
        pod('huge', ns, { cpu: '3', memory: '1Gi' }),
      ]),
    );
    await waitFor('filler running on n2', async () => {
      const p = await k.pod(ns, 'filler');
      return { ok: p?.status?.phase === 'Running', seen: p?.status };
    });
  });

  it('prints every node with its filter verdicts and the choice, and writes nothing', async () => {
    const k = cluster().kubectl;
    const before = footprint(await k.pod(ns, 'web'));
    expect(before.nodeName).toBeUndefined();
    const r = await explain(`${ns}/web`, '--kubeconfig', cluster().kubeconfig);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(
      new RegExp(`^berth explain ${ns}/web \\(uid \\S+\\) — live: ${cluster().apiserverUrl}$`, 'm'),
    );
    expect(out).toMatch(/^As of: {4}now \(the cluster as listed\); nothing is written to it$/m);
    expect(out).toMatch(
      /^Result: {3}if a cycle ran now: scheduled on n1: highest total \d+ of 2 scored nodes$/m,
    );
    expect(out).toMatch(/^ {2}\d +n1 .*feasible, scored, CHOSEN$/m);
    expect(out).toMatch(/^ {2}\d +n2 .*feasible, scored$/m);
    expect(out).toMatch(/^ {2}\d +n3 +- +✓ +✗ .*TaintToleration: node\(s\) had untolerated taint/m);
    expect(out).toMatch(/^ {2}n1 .*← chosen$/m);
    // Nothing written: the pod is as it was, unbound, and no Event names it.
    const after = footprint(await k.pod(ns, 'web'));
    expect(after).toEqual(before);
    expect((await k.events(ns)).filter((e) => e.regarding?.name === 'web')).toEqual([]);
  });

  it("gives kube's FitError message for a pod that fits nowhere, as one JSON document", async () => {
    const r = await explain(`${ns}/huge`, '--kubeconfig', cluster().kubeconfig, '--json');
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      pod: `${ns}/huge`,
      mode: 'live',
      asOf: { kind: 'now' },
      recorded: null,
    });
    expect(doc.explanation.outcome).toEqual({
      kind: 'Unschedulable',
      message:
        '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
      reasons: { 'Insufficient cpu': 2, 'node(s) had untolerated taint(s)': 1 },
    });
    expect(doc.explanation.nodes.map((n: { node: string }) => n.node).sort()).toEqual([
      'n1',
      'n2',
      'n3',
    ]);
    expect((await k().pod(ns, 'huge'))?.spec.nodeName).toBeUndefined();
  });

  it('explains a bound pod as if it were pending, its own requests released', async () => {
    const r = await explain(`${ns}/filler`, '--kubeconfig', cluster().kubeconfig, '--json');
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.notes[0]).toMatch(/bound to n2; explained as if it were pending now/);
    expect(doc.notes.join(' ')).toMatch(/schedulerName is "default-scheduler"/);
    // With its own 3 cpus released n2 has room for it again (n1 is too small, n3 tainted):
    // the only feasible node, chosen unscored. Its charge still counted would leave 1 cpu.
    const n2 = doc.explanation.nodes.find((n: { node: string }) => n.node === 'n2');
    expect(n2).toMatchObject({ fate: 'feasible', chosen: true });
    expect(doc.explanation.outcome).toMatchObject({ kind: 'Scheduled', node: 'n2', scored: false });
  });

  it('refuses an unknown pod in one line', async () => {
    const unknown = await explain(`${ns}/nope`, '--kubeconfig', cluster().kubeconfig);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      `berth: unknown pod ${ns}/nope: not in the cluster at ${cluster().apiserverUrl}\n`,
    );
  });

  const k = () => cluster().kubectl;
});
