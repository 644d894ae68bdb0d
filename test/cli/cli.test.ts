// The CLI contract, through the real command: output shapes, exit codes, one-line errors.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-cli-'));
writeFileSync(join(work, 'not-a-log.json'), '{"name": "not a log"}\n');

function berth(...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin/berth.js'), ...args], {
    encoding: 'utf8',
    cwd: work,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function expectOneLineError(r: ReturnType<typeof berth>, code: number, pattern: RegExp) {
  expect(r.code).toBe(code);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^berth: /);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('berth CLI', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('prints exactly one JSON object with the documented keys for simulate --json', () => {
    const r = berth('simulate', '--nodes', '20', '--pods', '100', '--seed', '3', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(
      [
        'decisionDigest',
        'elapsedMs',
        'nodes',
        'pending',
        'placements',
        'devices',
        'pods',
        'podsPerSecond',
        'scheduled',
        'unschedulable',
        'backingOff',
        'binding',
        'gated',
        'queued',
        'pendingStates',
        'attempts',
        'attemptsPerSecond',
        'virtualMs',
        'horizonMs',
        'horizonReached',
      ].sort(),
    );
    expect(out).toMatchObject({ nodes: 20, pods: 100, scheduled: 100, unschedulable: 0 });
    // Every pod is in exactly one state.
    expect(
      out.scheduled + out.unschedulable + out.backingOff + out.binding + out.gated + out.queued,
    ).toBe(out.pods);
    expect(out.horizonReached).toBe(false);
    expect(Object.keys(out.placements)).toHaveLength(100);
  });

  it('shows the DRA devices the demo’s GPU pod was allocated, in the summary and its JSON', () => {
    const human = berth('simulate');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('  ml/finetune → node-b (gpu.example.com/node-b/gpu-1)\n');
    const out = JSON.parse(berth('simulate', '--json').stdout);
    expect(out.devices).toEqual({ 'ml/finetune': ['gpu.example.com/node-b/gpu-1'] });
  });

  it('records a sealed log that replay reproduces, and reports a tampered one as divergent', () => {
    const log = join(work, 'run.jsonl');
    writeFileSync(join(work, 'run.key'), 'k'.repeat(32));
    const sim = berth(
      'simulate',
      '--nodes',
      '10',
      '--pods',
      '60',
      '--seed',
      '9',
      '--record',
      log,
      '--record-key',
      'run.key',
      '--json',
      '--bind-failure-rate',
      '0.3',
    );
    expect(sim.code).toBe(0);
    const replayed = berth('replay', log, '--json', '--record-key', 'run.key');
    expect(replayed.code).toBe(0);
    const out = JSON.parse(replayed.stdout);
    expect(out.decisionDigest).toBe(JSON.parse(sim.stdout).decisionDigest);
    expect(out.integrity).toMatchObject({ sealed: true, verified: true, closed: true });
    // Without the key, a tampered decision is still caught by replay: the core decides otherwise.
    const tampered = join(work, 'tampered.jsonl');
    writeFileSync(
      tampered,
      readFileSync(log, 'utf8').replace(
        /("PodReserved","uid":"[^"]+","key":"default\/pod-00","attempt":\d+,"node":)"node-\d+"/,
        '$1"node-x"',
      ),
    );
    expectOneLineError(
      berth('replay', tampered, '--json'),
      1,
      /replay diverged at seq \d+: recorded "#\d+ reserved default\/pod-00 \S+ #\d+ node-x"/,
    );
  });

  it('replays the complete prefix of a log cut short by a crash, with a warning', () => {
    const log = join(work, 'cut.jsonl');
    expect(berth('simulate', '--nodes', '3', '--pods', '10', '--record', log, '--json').code).toBe(
      0,
    );
    const text = readFileSync(log, 'utf8');
    const lines = text.trimEnd().split('\n');
    writeFileSync(
      join(work, 'cut2.jsonl'),
      `${lines.slice(0, -2).join('\n')}\n${(lines.at(-2) as string).slice(0, 20)}`,
    );
    const r = berth('replay', join(work, 'cut2.jsonl'), '--allow-unsealed');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/truncated last line dropped/);
    expect(r.stdout).toMatch(/All recorded decisions reproduced/);
    // Without --allow-unsealed the same replay says where the log was cut, and exits 1.
    const strict = berth('replay', join(work, 'cut2.jsonl'));
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/All recorded decisions reproduced/);
    expect(strict.stderr).toMatch(/truncated after line \d+: the closing digest line is missing/);
  });

  it.each([
    ['an unknown command', ['frobnicate'], 2, /unknown command "frobnicate"/],
    ['an unknown flag', ['simulate', '--frob'], 2, /Unknown option '--frob'/],
    ['a bad number', ['simulate', '--nodes', 'x', '--pods', '3'], 2, /--nodes must be an integer/],
    [
      'a bad report budget',
      ['run', '--events-qps', '0'],
      2,
      /--events-qps must be a number from 0.1 to 100000/,
    ],
    [
      'a bad election switch',
      ['run', '--leader-elect=maybe'],
      2,
      /--leader-elect must be true or false/,
    ],
    [
      'election timings against kube’s rule',
      ['run', '--leader-elect-lease-duration', '5s'],
      2,
      /--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline/,
    ],
    [
      'a duration without a unit',
      ['run', '--leader-elect-retry-period', '2'],
      2,
      /--leader-elect-retry-period must be a duration/,
    ],
    [
      'a bad status server address',
      ['run', '--metrics-bind-address', 'localhost'],
      2,
      /--metrics-bind-address/,
    ],
    [
      'unauthenticated plain HTTP beyond loopback',
      ['run', '--metrics-bind-address', '0.0.0.0:10251'],
      2,
      /--metrics-bind-address serves \/metrics over plain HTTP without authentication, so it takes only a loopback address/,
    ],
    [
      'a certificate without its key',
      ['run', '--tls-cert-file', 'tls.crt'],
      2,
      /--tls-cert-file and --tls-private-key-file go together/,
    ],
    [
      'a missing file',
      ['simulate', '--cluster', 'missing.yaml'],
      1,
      /cannot read missing.yaml: ENOENT/,
    ],
    ['replay without a log', ['replay'], 2, /replay needs a LOG file/],
    [
      'a log that is not a log',
      ['replay', 'not-a-log.json'],
      1,
      /not-a-log.json: line 1: the first line is not a berth log header/,
    ],
  ])('fails with a one-line error on %s', (_name, args, code, pattern) => {
    expectOneLineError(berth(...args), code, pattern);
  });

  it.each([
    ['invalid YAML', 'a: [\n', /document 1: invalid YAML/],
    ['a pod without a name', 'kind: Pod\nspec: {}\n', /Pod has no metadata.name/],
    ['a document without kind', 'metadata: {name: x}\n', /object has no "kind"/],
  ])('rejects a manifest with %s', (_name, text, pattern) => {
    const file = join(work, 'bad.yaml');
    writeFileSync(file, text);
    expectOneLineError(berth('simulate', '--cluster', file), 1, pattern);
  });

  it('keeps going on pods with unparsable quantities and explains them', () => {
    const file = join(work, 'quantities.yaml');
    writeFileSync(
      file,
      'kind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: "2", memory: 2Gi, pods: "10"}}\n---\n' +
        'kind: Pod\nmetadata: {name: p}\nspec: {schedulerName: berth, containers: [{resources: {requests: {memory: 12XB}}}]}\n',
    );
    const r = berth('simulate', '--cluster', file, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).pending['default/p']).toMatch(
      /invalid quantity "12XB" at spec.containers\[0\].resources.requests.memory/,
    );
  });

  it('exports every machine as XState JSON and Mermaid', () => {
    const out = join(work, 'exported');
    const r = berth('export-machines', '--out', out);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'pod.json'), 'utf8')).id).toBe('pod');
    expect(readFileSync(join(out, 'pod.mmd'), 'utf8')).toMatch(/^stateDiagram-v2\n/);
    expect(existsSync(join(out, 'pod.json'))).toBe(true);
  });
});
