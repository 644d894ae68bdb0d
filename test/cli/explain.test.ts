// `berth explain` through the real command (from source): simulated and log modes, --json, errors.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCluster, simulateConfig } from '../../src/cli/simulate-command.ts';
import { parseLog } from '../../src/events/reader.ts';
import { Recorder } from '../../src/events/recorder.ts';
import { ReplaySession } from '../../src/runtime/replay.ts';
import { simulate } from '../../src/runtime/simulate.ts';
import { recordedRun } from '../events/rotated-run.ts';
import { inProcess } from './explain-in-process.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-explain-'));
const demo = join(root, 'src/cli/demo-cluster.yaml');
const demoLog = join(root, 'test/fixtures/logs/sim-demo.jsonl');
/** tsx's loader, by path: the command runs in a scratch directory. */
const tsx = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;

/** Runs the CLI from source (tsx), so the test needs no build. */
function berth(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', tsx, join(root, 'src/cli/main.ts'), ...args], {
    encoding: 'utf8',
    cwd: work,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectOneLineError(r: ReturnType<typeof berth>, code: number, pattern: RegExp) {
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(/^berth: /);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
  expect(r.code).toBe(code);
}

/** The envelopes of a log's cycle decisions (reserved, unschedulable, error) about `key`. */
function cycleDecisionsOf(text: string, key: string) {
  const cycle = new Set(['PodReserved', 'PodUnschedulable', 'CycleFailed']);
  return parseLog(text).envelopes.filter(
    (e) => cycle.has(e.event.type) && 'key' in e.event && e.event.key === key,
  );
}

/** Expects the in-process command to fail with a CliError of `code` saying `pattern`. */
async function expectFailure(argv: string[], code: number, pattern: RegExp): Promise<void> {
  const { error } = await inProcess(...argv);
  expect(error?.message, argv.join(' ')).toMatch(pattern);
  expect(error?.exitCode).toBe(code);
}

/** Rotates a log into segments of about `every` events in `dir`, as a live recorder would. */
function rotate(text: string, dir: string, every: number): string[] {
  mkdirSync(dir, { recursive: true });
  const log = parseLog(text);
  const name = (n: number) => `seg-${String(n).padStart(3, '0')}.jsonl`;
  const segments: { name: string; lines: string[] }[] = [{ name: name(1), lines: [] }];
  const session = new ReplaySession(log.header);
  const recorder = new Recorder((l) => void segments[0]?.lines.push(l), {
    ...log.header,
    segment: 1,
  });
  let since = 0;
  for (const env of log.envelopes) {
    session.feed(env);
    recorder.record(env);
    if (++since >= every && session.settled) {
      const next = { name: name(segments.length + 1), lines: [] as string[] };
      recorder.rotate(next.name, (l) => void next.lines.push(l), session.snapshot());
      segments.push(next);
      since = 0;
    }
  }
  recorder.close();
  for (const s of segments) writeFileSync(join(dir, s.name), `${s.lines.join('\n')}\n`);
  return segments.map((s) => s.name);
}

describe('berth explain', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('explains a placed pod of simulated manifests by the decision that placed it', () => {
    const r = berth('explain', 'shop/web-1', '--cluster', demo);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^berth explain shop\/web-1 \(uid \S+\) — simulated: /);
    expect(r.stdout).toMatch(/^As of: {4}decision #\d+, on the state after seq \d+/m);
    expect(r.stdout).toMatch(
      /^Recorded: #\d+ Scheduled on (node-\w): the recomputed cycle agrees$/m,
    );
    // Every node has a row; the cordoned one stops at its first filter (NodeName, first at 1.37,
    // is skipped for a pod naming no node).
    for (const node of ['node-a', 'node-b', 'node-c', 'node-d', 'node-e'])
      expect(r.stdout).toMatch(new RegExp(`^  \\d +${node} `, 'm'));
    expect(r.stdout).toMatch(
      /node-c +- +✗( +[-·])+ +NodeUnschedulable: node\(s\) were unschedulable/,
    );
    // kube 1.37's profile: DynamicResources scores (weight 2), 0 for a pod without claims.
    expect(r.stdout).toMatch(/^Score: .*S6 DynamicResources ×2/m);
    expect(r.stdout).toMatch(/^Score: S1 TaintToleration ×3/m);
    expect(r.stdout).toMatch(/← chosen$/m);
  });

  it("explains a pending pod as of the end of the simulated run, with kube's FitError message", () => {
    const r = berth('explain', 'shop/huge', '--cluster', demo);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^As of: {4}the end of the run \(after seq \d+/m);
    expect(r.stdout).toMatch(
      /^Result: {3}if a cycle ran now: unschedulable: 0\/5 nodes are available: .*Insufficient cpu/m,
    );
    expect(r.stdout).toMatch(
      /^Note: {5}its last decision in the run was #\d+: Unschedulable: 0\/5/m,
    );
    expect(r.stdout).not.toMatch(/^Score:/m);
  });

  it('prints one JSON document with --json: every node, filter verdicts, scores that add up', () => {
    const r = berth('explain', 'shop/web-1', '--cluster', demo, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc).sort()).toEqual(
      ['asOf', 'explanation', 'mode', 'notes', 'pod', 'recorded', 'source', 'uid'].sort(),
    );
    expect(Object.keys(doc.explanation).sort()).toEqual(
      [
        'check',
        'filters',
        'narrowing',
        'nodes',
        'outcome',
        'pod',
        'preFilters',
        'sampling',
        'scorePlugins',
      ].sort(),
    );
    expect(doc).toMatchObject({ pod: 'shop/web-1', mode: 'simulated', recorded: { agrees: true } });
    expect(doc.explanation.nodes).toHaveLength(5);
    const chosen = doc.explanation.nodes.filter((n: { chosen: boolean }) => n.chosen);
    expect(chosen).toHaveLength(1);
    expect(doc.explanation.outcome).toMatchObject({ kind: 'Scheduled', node: chosen[0].node });
    for (const n of doc.explanation.nodes) {
      expect(n.filters).toHaveLength(doc.explanation.filters.length);
      if (n.fate !== 'scored') continue;
      const sum = n.scores.reduce(
        (s: number, c: { weighted: number } | null) => s + (c?.weighted ?? 0),
        0,
      );
      expect(n.total).toBe(sum);
    }
  });

  it('explains a decision of a recorded log at or before --seq, and says which one', async () => {
    const text = recordedRun();
    const log = join(work, 'run.jsonl');
    writeFileSync(log, text);
    // A pod decided more than once (its bind failed, or it did not fit at first).
    const key = Array.from({ length: 30 }, (_, i) => `default/p${i}`).find(
      (k) => cycleDecisionsOf(text, k).length > 1,
    ) as string;
    expect(key).toBeDefined();
    const cycles = cycleDecisionsOf(text, key);
    const last = cycles.at(-1);
    const r = await inProcess(key, '--log', log, '--json');
    expect(r.error).toBeUndefined();
    const doc = JSON.parse(r.out);
    expect(doc.asOf).toMatchObject({ kind: 'decision', seq: last?.seq });
    expect(doc.recorded).toMatchObject({ seq: last?.seq, agrees: true });
    const first = cycles[0]?.seq as number;
    await expectFailure(
      [key, '--log', log, '--seq', String(first - 1)],
      1,
      new RegExp(
        `no decision about ${key} at or before seq ${first - 1}; its first is at seq ${first}`,
      ),
    );
    const atFirst = await inProcess(key, '--log', log, '--seq', String(first), '--json');
    expect(JSON.parse(atFirst.out).asOf.seq).toBe(first);
    // Between two decisions, --seq picks the earlier one.
    const between = await inProcess(
      key,
      '--log',
      log,
      '--seq',
      String((last?.seq as number) - 1),
      '--json',
    );
    expect(JSON.parse(between.out).asOf.seq).toBe(cycles.at(-2)?.seq);
  });

  it('explains every decision of the demo log as recorded', async () => {
    for (const pod of [
      'ml/trainer',
      'shop/web-1',
      'shop/web-2',
      'shop/cache',
      'data/etl',
      'ml/big-gpu',
      'shop/huge',
    ]) {
      const r = await inProcess(pod, '--log', demoLog, '--json');
      expect(r.error, pod).toBeUndefined();
      const doc = JSON.parse(r.out);
      expect(doc.recorded.agrees, pod).toBe(true);
      expect(doc.explanation.check.agrees, pod).toBe(true);
    }
  });

  it('explains a gang member by the step of its group, from where the step starts', async () => {
    const gangLog = join(root, 'test/fixtures/logs/sim-gang.jsonl');
    const placed = JSON.parse(
      (await inProcess('ml/bert-worker-2', '--log', gangLog, '--json')).out,
    );
    expect(placed.recorded.gangStep).toEqual({ group: 'ml/bert', seq: 23 });
    expect(placed.recorded.decision).toBe('Scheduled on gpu-1');
    expect(placed.explanation.check.agrees).toBe(true);
    const blocked = await inProcess('ml/llama-worker-0', '--log', gangLog);
    expect(blocked.error).toBeUndefined();
    expect(blocked.out).toContain(
      'decided by the gang step of pod group ml/llama (from seq 54), which tries its members together',
    );
    expect(blocked.out).not.toContain('MISMATCH');
  });

  it('reads a rotated recording, with older segments deleted, from the snapshot of the right segment', async () => {
    const text = recordedRun();
    const dir = join(work, 'rotated');
    const names = rotate(text, dir, 40);
    expect(names.length).toBeGreaterThanOrEqual(3);
    unlinkSync(join(dir, names[0] as string));
    const cycles = cycleDecisionsOf(text, 'default/p29');
    const r = await inProcess('default/p29', '--log', dir, '--json');
    expect(r.error).toBeUndefined();
    expect(JSON.parse(r.out).recorded).toMatchObject({ seq: cycles.at(-1)?.seq, agrees: true });
  });

  it('uses the profile of --config, and the one a log header records', async () => {
    const file = join(work, 'ksc.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: kubescheduler.config.k8s.io/v1',
        'kind: KubeSchedulerConfiguration',
        'percentageOfNodesToScore: 50',
        'profiles:',
        '  - schedulerName: berth',
        '    plugins:',
        '      score:',
        '        enabled: [{ name: TaintToleration, weight: 7 }]',
      ].join('\n'),
    );
    const weightOf = (doc: {
      explanation: { scorePlugins: { plugin: string; weight: number }[] };
    }) => doc.explanation.scorePlugins.find((p) => p.plugin === 'TaintToleration')?.weight;
    const sim = await inProcess('shop/web-1', '--cluster', demo, '--config', file, '--json');
    expect(sim.error).toBeUndefined();
    const simDoc = JSON.parse(sim.out);
    expect(weightOf(simDoc)).toBe(7);
    expect(simDoc.explanation.sampling.percentageOfNodesToScore).toBe(50);
    const lines: string[] = [];
    const { nodes, pods } = loadCluster({ files: [demo], seed: 1 });
    simulate({
      nodes,
      pods,
      seed: 1,
      config: simulateConfig(file),
      bindLatencyMs: 5,
      bindFailureRate: 0,
      record: (l) => lines.push(l),
    });
    const log = join(work, 'profiled.jsonl');
    writeFileSync(log, `${lines.join('\n')}\n`);
    const logged = await inProcess('shop/web-1', '--log', log, '--json');
    expect(logged.error).toBeUndefined();
    const logDoc = JSON.parse(logged.out);
    expect(weightOf(logDoc)).toBe(7);
    expect(logDoc.recorded.agrees).toBe(true);
    await expectFailure(
      ['shop/web-1', '--cluster', demo, '--config', file, '--scheduler-name', 'x'],
      2,
      /without --config profiles/,
    );
  });

  it('says so loudly, and exits 1, when the recomputed decision differs from the recorded one', () => {
    const lines = readFileSync(demoLog, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"PodReserved"') && l.includes('shop/web-1'));
    const recorded = JSON.parse(lines[at] as string);
    const other = recorded.event.node === 'node-a' ? 'node-d' : 'node-a';
    lines[at] = JSON.stringify({ ...recorded, event: { ...recorded.event, node: other } });
    const tampered = join(work, 'tampered.jsonl');
    writeFileSync(tampered, lines.join('\n'));
    const r = berth('explain', 'shop/web-1', '--log', tampered);
    expect(r.stdout).toMatch(
      new RegExp(
        `^Recorded: #${recorded.seq} Scheduled on ${other}: MISMATCH, the recomputed cycle says Scheduled on ${recorded.event.node}$`,
        'm',
      ),
    );
    expectOneLineError(
      r,
      1,
      new RegExp(`MISMATCH at seq ${recorded.seq}: the log recorded "Scheduled on ${other}"`),
    );
  });

  it('refuses unknown pods, pods without decisions, bad logs and bad flags', async () => {
    await expectFailure(['shop/nope', '--cluster', demo], 1, /unknown pod shop\/nope: not in /);
    await expectFailure(['shop/nope', '--log', demoLog], 1, /no pod shop\/nope in the log/);
    await expectFailure(
      ['shop/not-mine', '--log', demoLog],
      1,
      /berth made no scheduling decision about shop\/not-mine/,
    );
    await expectFailure(
      ['shop/huge', '--log', join(work, 'absent.jsonl')],
      1,
      /cannot read .*absent\.jsonl: ENOENT/,
    );
    const corrupt = join(work, 'corrupt.jsonl');
    writeFileSync(
      corrupt,
      `${readFileSync(demoLog, 'utf8').split('\n').slice(0, 3).join('\n')}\nnot json\n`,
    );
    await expectFailure(
      ['shop/huge', '--log', corrupt],
      1,
      /corrupt\.jsonl: line 4: not valid JSON/,
    );
    await expectFailure([], 2, /explain needs a pod/);
    await expectFailure(['a/b/c', '--log', demoLog], 2, /NAMESPACE\/NAME, got "a\/b\/c"/);
    await expectFailure(
      ['shop/huge', '--log', demoLog, '--cluster', demo],
      2,
      /different modes; give one/,
    );
    await expectFailure(['shop/huge', '--seq', '3', '--cluster', demo], 2, /--seq goes with --log/);
    await expectFailure(
      ['shop/huge', '--log', demoLog, '--seq', 'x'],
      2,
      /--seq must be an integer/,
    );
    await expectFailure(
      ['shop/huge', '--log', demoLog, '--seed', '3'],
      2,
      /come from the log header/,
    );
    await expectFailure(['shop/huge', '--frobnicate'], 2, /--frobnicate/);
    // Through the real command: one line, the usage hint, no stack trace.
    expectOneLineError(
      berth('explain', 'shop/huge', '--seq', '3'),
      2,
      /--seq goes with --log; try: berth explain --help/,
    );
  });

  it('names an unreachable API server in one line', () => {
    const kubeconfig = join(work, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    expectOneLineError(
      berth('explain', 'shop/huge', '--kubeconfig', kubeconfig),
      1,
      /cannot reach the API server at https:\/\/127\.0\.0\.1:1/,
    );
  });
});
