// `berth explain group NS/NAME` through the command: the three fixtures' groups simulated, a recorded gang preemption at --seq with the group machine's path, and its errors as one line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { localKubeConfig } from '../support/local-kubeconfig.ts';
import { inProcess } from './explain-in-process.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-explain-group-'));
const fixture = (name: string) => join(root, 'test/fixtures', name);
const tsx = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;

/** Runs the CLI from source (tsx), so the test needs no build. */
function berth(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', tsx, join(root, 'src/cli/main.ts'), ...args], {
    encoding: 'utf8',
    cwd: work,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const group = async (...argv: string[]) => {
  const r = await inProcess('group', ...argv);
  expect(r.error?.message).toBeUndefined();
  return r.out;
};

describe('berth explain group', () => {
  it('explains a gang that does not fit: the members that fit, then every node for the one that does not', async () => {
    const out = await group('ml/llama', '--cluster', fixture('gang.yaml'));
    const lines = out.split('\n');
    expect(lines[0]).toBe(
      `berth explain group ml/llama (scheduler-plugins PodGroup, scheduling.x-k8s.io/v1alpha1) — simulated: ${fixture('gang.yaml')}`,
    );
    expect(out).toContain(
      'Waiting:  fit — pod group ml/llama: 2 of 4 members fit; 0/3 nodes are available for ml/llama-worker-2: 3 Insufficient nvidia.com/gpu.; it holds 2 node place(s)',
    );
    expect(out).toContain(
      'Quorum:   4 of minMember 4 present (4 seen, 0 gated); 0 placed, 0 bound',
    );
    expect(out).toMatch(/ {2}ml\/llama-worker-0: fits — scheduled on gpu-\d/);
    expect(out).toContain(
      '  ml/llama-worker-2: fits nowhere — unschedulable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
    );
    expect(out).toContain('      gpu-1  NodeResourcesFit: Insufficient nvidia.com/gpu');
    expect(out).toContain(
      '  ml/llama-worker-3: not tried — the trial stops at the first member that does not fit',
    );
    expect(out).toContain(
      'Preemption: not possible — No preemption victims found for incoming pod group',
    );
    // A group short of members waits for them, taking nothing.
    const resnet = await group('ml/resnet', '--cluster', fixture('gang.yaml'));
    expect(resnet).toContain('Waiting:  quorum — pod group ml/resnet has 2 of 3 members');
    expect(resnet).not.toContain('Step:');
  });

  it('picks the core API when only a core PodGroup has the name, and says so; --json is the document', async () => {
    const doc = JSON.parse(
      await group('ml/llama', '--cluster', fixture('core-gang.yaml'), '--json'),
    );
    expect(Object.keys(doc).sort()).toEqual(
      ['asOf', 'explanation', 'mode', 'name', 'notes', 'source', 'trace'].sort(),
    );
    expect(doc.explanation.api).toBe('core');
    expect(doc.explanation.group).toBe('ml/llama (scheduling.k8s.io)');
    expect(doc.notes[0]).toBe('the group is a core PodGroup (scheduling.k8s.io/v1beta1)');
    expect(doc.explanation.waiting.kind).toBe('fit');
    expect(doc.explanation.step.cycles.at(-1).explanation.check.agrees).toBe(true);
    const placed = JSON.parse(
      await group('ml/bert', '--cluster', fixture('core-gang.yaml'), '--json'),
    );
    expect(placed.explanation.waiting.kind).toBe('placed');
    expect(placed.explanation.members.every((m: { status: string }) => m.status === 'bound')).toBe(
      true,
    );
  });

  it('shows the rack domains of a topology-constrained gang and why none holds it', async () => {
    const out = await group('ml/wide', '--cluster', fixture('gang-topology.yaml'));
    expect(out).toContain('Topology: all members inside one domain of topology.kubernetes.io/rack');
    expect(out).toMatch(
      / {2}rack-a {2}2 {6}-?\d\.\d{3} +not tried: too little cpu summed over the domain/,
    );
    expect(out).toContain('  ml/wide-0: not tried — no domain was tried');
    // Planned as for any group: every pod running is of the group's priority.
    expect(out).toContain(
      'Preemption: not possible — No preemption victims found for incoming pod group',
    );
  });

  it('shows a recorded gang preemption before it happens, and the group machine path up to there', async () => {
    const log = join(root, 'test/fixtures/logs/sim-gang-preemption.jsonl');
    const before = await group('ml/llama', '--log', log, '--seq', '20');
    expect(before).toContain('As of:    the state after seq 19 (t=0ms)');
    expect(before).toContain(
      'Preemption: would evict 3 pod(s) in 2 unit(s) (0 violating a PodDisruptionBudget; planned in 5 trial(s)); then the whole group fits',
    );
    expect(before).toMatch(
      / {2}ml\/sweep {4}group \(whole\) {2}500 +no {3}ml\/sweep-0 on gpu-3, ml\/sweep-1 on gpu-4/,
    );
    expect(before).toContain(
      '  then: ml/llama-worker-0 → gpu-2, ml/llama-worker-1 → gpu-3, ml/llama-worker-2 → gpu-4',
    );
    expect(before).toContain('Machine trace: the group had no machine before this point');
    // Inside the step's decisions: explained from where the step starts, and said so.
    const inside = JSON.parse(await group('ml/llama', '--log', log, '--seq', '22', '--json'));
    expect(inside.asOf.seq).toBe(19);
    expect(inside.notes).toContain(
      'seq 22 is inside a scheduling step: explained from where the step starts (seq 20)',
    );
    const after = JSON.parse(await group('ml/llama', '--log', log, '--seq', '30', '--json'));
    expect(after.explanation.waiting.kind).toBe('preempting');
    // The step's own moves (placing, then backoff) fall inside one cycle: seen after its first decision.
    expect(after.trace).toHaveLength(1);
    expect(after.trace[0]).toMatchObject({
      from: null,
      state: 'backoff',
      steps: 1,
      event: 'PodNominated',
      seq: 20,
    });
    expect(after.trace[0].reason).toMatch(
      /preemption: found a placement for the pod group, preempting 3 victims$/,
    );
  });

  it('traces every gang step of the group machine, a step that ends where it began included', async () => {
    const log = join(root, 'test/fixtures/logs/sim-gang.jsonl');
    const doc = JSON.parse(await group('ml/llama', '--log', log, '--json'));
    const path = doc.trace.map((t: { seq: number; state: string; steps: number }) => [
      t.seq,
      t.state,
      t.steps,
    ]);
    expect(path).toEqual([
      [31, 'placing', 1],
      [33, 'backoff', 1],
      [54, 'backoff', 2],
    ]);
    expect(doc.explanation.machine).toMatchObject({ state: 'backoff', steps: 2 });
  });

  it('refuses a name found in both APIs without --api, and takes the one --api names', async () => {
    const both = join(work, 'both.yaml');
    writeFileSync(
      both,
      [
        'apiVersion: v1',
        'kind: List',
        'items:',
        "  - { apiVersion: v1, kind: Node, metadata: { name: n1 }, status: { allocatable: { cpu: '4', memory: 8Gi, pods: '110' } } }",
        '  - { apiVersion: scheduling.x-k8s.io/v1alpha1, kind: PodGroup, metadata: { name: x, namespace: ml }, spec: { minMember: 2 } }',
        '  - { apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: { name: x, namespace: ml }, spec: { schedulingPolicy: { gang: { minCount: 3 } } } }',
        '',
      ].join('\n'),
    );
    const r = await inProcess('group', 'ml/x', '--cluster', both);
    expect(r.error?.message).toBe(
      'pod group ml/x exists in both APIs (scheduler-plugins PodGroup (scheduling.x-k8s.io/v1alpha1) and core PodGroup (scheduling.k8s.io/v1beta1)): give --api plugins or --api core',
    );
    const core = JSON.parse(await group('ml/x', '--cluster', both, '--api', 'core', '--json'));
    expect(core.explanation.quorum.minMember).toBe(3);
    const plugins = JSON.parse(
      await group('ml/x', '--cluster', both, '--api', 'plugins', '--json'),
    );
    expect(plugins.explanation.quorum.minMember).toBe(2);
    expect(plugins.explanation.waiting).toEqual({
      kind: 'quorum',
      text: 'pod group ml/x has 0 of 2 members',
    });
  });

  it('names an unreachable API server in one line (live mode)', () => {
    const kubeconfig = join(work, 'kubeconfig');
    writeFileSync(kubeconfig, localKubeConfig('https://127.0.0.1:1').exportConfig());
    const r = berth('explain', 'group', 'ml/llama', '--kubeconfig', kubeconfig);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/^berth: cannot reach the API server at https:\/\/127\.0\.0\.1:1/);
    expect(r.code).toBe(1);
  });

  it.each([
    [
      ['group', 'ml/nope', '--cluster', fixture('gang.yaml')],
      1,
      /^berth: unknown pod group ml\/nope: no PodGroup of either API and no pod in it in /,
    ],
    [
      ['group', 'ml/llama', '--cluster', fixture('gang.yaml'), '--api', 'core'],
      1,
      /^berth: unknown pod group ml\/llama: no core PodGroup \(scheduling\.k8s\.io\/v1beta1\) and no pod in it/,
    ],
    [
      ['group', 'a/b/c', '--cluster', fixture('gang.yaml')],
      2,
      /^berth: the pod group must be NAMESPACE\/NAME, got "a\/b\/c"/,
    ],
    [
      ['group', '--cluster', fixture('gang.yaml')],
      2,
      /^berth: explain group needs a pod group: berth explain group NAMESPACE\/NAME/,
    ],
    [
      ['group', 'ml/llama', '--cluster', fixture('gang.yaml'), '--api', 'both'],
      2,
      /^berth: --api must be core or plugins, got "both"/,
    ],
    [
      ['group', 'ml/llama', '--seq', '3', '--cluster', fixture('gang.yaml')],
      2,
      /^berth: --seq goes with --log/,
    ],
    [
      [
        'group',
        'ml/llama',
        '--log',
        join(root, 'test/fixtures/logs/sim-gang.jsonl'),
        '--seq',
        '9999',
      ],
      1,
      /^berth: .*sim-gang\.jsonl: the log ends at seq \d+, before seq 9999/,
    ],
    [
      ['ml/llama-worker-0', '--api', 'core', '--cluster', fixture('gang.yaml')],
      2,
      /^berth: --api goes with berth explain group/,
    ],
  ])('explain %j is one line on stderr', (args, code, pattern) => {
    const r = berth('explain', ...(args as string[]));
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(pattern as RegExp);
    expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(code);
  });
});
