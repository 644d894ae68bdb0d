// The berth command runs with one V8 worker thread (bin/berth.js's #! line), and the tests and benches spawn it with the same node flags.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { berthCommand } from '../e2e/support/berth.ts';
import { berthBin, berthNodeFlags, shebangNodeFlags } from '../e2e/support/paths.ts';
import { exitProbe } from './exit-probe.ts';

const work = mkdtempSync(join(tmpdir(), 'berth-pool-'));

/** At exit: the process's thread count and node flags. */
const probe = exitProbe(
  work,
  `return { threads: require('node:fs').readdirSync('/proc/self/task').length, execArgv: process.execArgv };`,
);

/** Runs `command ...args --version` with the probe preloaded and returns what it printed. */
function probed(command: string, args: string[]): unknown {
  const r = spawnSync(command, [...args, '--version'], {
    encoding: 'utf8',
    cwd: work,
    env: probe.env,
  });
  expect(r.status, r.stderr).toBe(0);
  return probe.read(r.stderr);
}

describe('V8 worker threads of the berth command', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('reads the node flags from the #! line', () => {
    expect(shebangNodeFlags('#!/usr/bin/env node\n// x')).toEqual([]);
    expect(shebangNodeFlags('#!/usr/bin/env -S node --a=1  --b\n')).toEqual(['--a=1', '--b']);
    expect(() => shebangNodeFlags('#!/usr/bin/env node --a=1\n')).toThrow(/not a/);
    expect(() => shebangNodeFlags('// no #! line\n')).toThrow(
      /not a "#!\/usr\/bin\/env node" line/,
    );
    expect(berthNodeFlags).toEqual(['--v8-pool-size=1']);
  });

  it('executed as `berth`, runs three threads fewer than plain node (one V8 worker, not four); the tests run it so too', async () => {
    const installed = probed(berthBin, []) as { threads: number; execArgv: string[] };
    const plain = probed(process.execPath, [berthBin]) as { threads: number };
    const asTestsSpawnIt = await berthCommand(['--version'], 60_000, probe.env);
    expect(asTestsSpawnIt.code, asTestsSpawnIt.stderr).toBe(0);
    expect(installed.execArgv).toEqual(['--v8-pool-size=1']);
    expect(plain.threads - installed.threads).toBe(3);
    expect(probe.read(asTestsSpawnIt.stderr)).toEqual(installed);
  }, 60_000);
});
