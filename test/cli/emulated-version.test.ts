// --emulated-version through the real command: recorded in the log header, used by replay, bad values refused.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-emulated-'));

function berth(...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin/berth.js'), ...args], {
    encoding: 'utf8',
    cwd: work,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function headerConfig(log: string): Record<string, unknown> {
  const first = readFileSync(log, 'utf8').split('\n')[0] as string;
  return (JSON.parse(first) as { config: Record<string, unknown> }).config;
}

describe('berth --emulated-version', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('records the emulated release in the log header, and replay reproduces the run', () => {
    for (const [flag, recorded] of [
      [[], '1.37'],
      [['--emulated-version', 'v1.35.4'], '1.35'],
      [['--emulated-version', '1.34'], '1.34'],
    ] as const) {
      const log = join(work, `run-${recorded}.jsonl`);
      const sim = berth(
        'simulate',
        '--nodes',
        '6',
        '--pods',
        '40',
        ...flag,
        '--record',
        log,
        '--json',
      );
      expect(sim.code).toBe(0);
      expect(headerConfig(log).emulatedVersion).toBe(recorded);
      const replayed = berth('replay', log, '--json', '--allow-unsealed');
      expect(replayed.code).toBe(0);
      expect(JSON.parse(replayed.stdout).decisionDigest).toBe(
        JSON.parse(sim.stdout).decisionDigest,
      );
    }
  });

  it('refuses a release berth cannot emulate with a one-line usage error', () => {
    for (const command of ['simulate', 'explain']) {
      const args =
        command === 'explain' ? ['explain', 'default/p', '--cluster', 'x.yaml'] : [command];
      const r = berth(...args, '--emulated-version', '1.33');
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /--emulated-version: cannot emulate kube-scheduler "1.33": berth emulates 1.34, 1.35, 1.36, 1.37/,
      );
    }
  });
});
