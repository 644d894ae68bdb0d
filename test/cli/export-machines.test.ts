// `berth export-machines` through the built command: the files it writes, --trace's output, and its usage errors (exit 2).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-export-'));
const kwokLog = join(root, 'test/fixtures/logs/e2e-kwok.jsonl');

function berth(...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin/berth.js'), ...args], {
    encoding: 'utf8',
    cwd: work,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('berth export-machines', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('writes each machine as .json, .stately.ts and .mmd, the same bytes as the committed machines/', () => {
    const out = join(work, 'machines');
    const r = berth('export-machines', '--out', out);
    expect(r.code).toBe(0);
    const written = readdirSync(out).sort();
    expect(written).toEqual([
      'pod-group.json',
      'pod-group.mmd',
      'pod-group.stately.ts',
      'pod.json',
      'pod.mmd',
      'pod.stately.ts',
    ]);
    expect(r.stdout.trim().split('\n')).toHaveLength(6);
    for (const file of written)
      expect(readFileSync(join(out, file), 'utf8')).toBe(
        readFileSync(join(root, 'machines', file), 'utf8'),
      );
  });

  it('--trace NS/POD --log LOG --json prints the path of the recorded e2e pod as one JSON object', () => {
    const r = berth('export-machines', '--trace', 'default/huge', '--log', kwokLog, '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.pod).toBe('default/huge');
    expect(doc.uids[0].steps.map((s: { state: string }) => s.state)).toEqual([
      'pending',
      'unschedulable',
      'pending',
      'unschedulable',
      'pending',
      'filtering',
      'binding',
      'boundUnconfirmed',
      'bound',
    ]);
  });

  it('--mermaid prints a stateDiagram-v2 with the taken states marked', () => {
    const r = berth('export-machines', '--trace', 'default/huge', '--log', kwokLog, '--mermaid');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^stateDiagram-v2\n/);
    expect(r.stdout).toContain(
      '  unschedulable --> pending : 5. NodeUpserted #43 at 1795469229546\n',
    );
    expect(r.stdout).toContain(
      '  class pending,unschedulable,filtering,binding,boundUnconfirmed,bound taken\n',
    );
  });

  it('--record-key reads a sealed log checked with its key, and refuses it with another key (exit 2)', () => {
    writeFileSync(join(work, 'key'), 'k'.repeat(32));
    writeFileSync(join(work, 'other-key'), 'o'.repeat(32));
    const record = ['simulate', '--nodes', '4', '--pods', '24', '--seed', '5'];
    const r = berth(...record, '--record', 'sealed.jsonl', '--record-key', 'key');
    expect(r.code, r.stderr).toBe(0);
    const trace = ['export-machines', '--trace', 'default/pod-00', '--log', 'sealed.jsonl'];
    const ok = berth(...trace, '--record-key', 'key', '--json');
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).uids[0].steps.at(-1).state).toBe('bound');
    const refused = berth(...trace, '--record-key', 'other-key');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^berth: sealed\.jsonl: line 1: sealed with key id \w+, given key id \w+\n$/,
    );
  });

  it.each([
    [['--trace', 'default/nope', '--log', kwokLog], /no pod default\/nope in the log$/],
    [
      ['--trace', 'a/b/c', '--log', kwokLog],
      /NAMESPACE\/NAME, got "a\/b\/c"; try: berth export-machines --help$/,
    ],
    [['--trace', 'default/huge', '--log', join(work, 'missing.jsonl')], /cannot read .*ENOENT/],
    [['--trace', 'default/huge'], /--trace needs --log LOG/],
    [['--log', kwokLog], /--log goes with --trace NS\/POD/],
    [['--trace', 'default/huge', '--log', kwokLog, '--json', '--mermaid'], /choose one/],
    [
      ['--trace', 'default/huge', '--log', kwokLog, '--out', work],
      /--out does not go with --trace/,
    ],
  ])('export-machines %j is one line on stderr and exit 2', (args, pattern) => {
    const r = berth('export-machines', ...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^berth: /);
    expect(r.stderr.trim()).toMatch(pattern);
  });
});
