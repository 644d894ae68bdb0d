// The published package: `npm pack`, install the tarball into an empty directory, run it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-pack-'));
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

describe('npm pack', () => {
  let tarball = '';
  let files: string[] = [];

  beforeAll(() => {
    // prepack builds dist/ first; --json lists what went into the tarball.
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], root)) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarball = join(work, packed[0]?.filename ?? '');
    files = (packed[0]?.files ?? []).map((f) => f.path);
    const app = join(work, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), '{"name":"app","private":true}\n');
    npm(['install', '--omit=dev', '--prefer-offline', tarball], app);
  }, 240_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('ships the bundled and compiled CLI, not the TypeScript sources or tests', () => {
    expect(files).toContain('bin/berth.js');
    expect(files).toContain('dist/berth.cjs');
    expect(files).toContain('dist/berth.cjs.cache');
    expect(files).toContain('dist/demo-cluster.yaml');
    expect(files).toContain('dist/src/cli/main.js');
    expect(files).toContain('dist/src/cli/demo-cluster.yaml');
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(files.filter((f) => f.includes('.test.'))).toEqual([]);
  });

  it('installs without tsx or any dev dependency', () => {
    const modules = readdirSync(join(work, 'app/node_modules'));
    expect(modules).toContain('berth');
    for (const dev of ['tsx', 'typescript', 'vitest', 'fast-check', 'esbuild']) {
      expect(modules).not.toContain(dev);
    }
  });

  it('runs `berth simulate` from the installed package', () => {
    const bin = join(work, 'app/node_modules/.bin/berth');
    expect(existsSync(bin)).toBe(true);
    const r = spawnSync(bin, ['simulate', '--nodes', '20', '--pods', '200', '--json'], {
      cwd: join(work, 'app'),
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const summary = JSON.parse(r.stdout) as { pods: number; scheduled: number };
    expect(summary.pods).toBe(200);
    expect(summary.scheduled).toBe(200);
  });

  it('compiles the installed bundle from its code cache', () => {
    const bin = join(work, 'app/node_modules/.bin/berth');
    const r = spawnSync(bin, ['--version'], {
      env: { ...process.env, NODE_OPTIONS: '', BERTH_DEBUG_CODE_CACHE: '1' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^code cache: accepted /);
  });

  it('writes the package version into a recorded log header', () => {
    const log = join(work, 'run.jsonl');
    const bin = join(work, 'app/node_modules/.bin/berth');
    const r = spawnSync(bin, ['simulate', '--record', log], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const header = JSON.parse(execFileSync('head', ['-1', log], { encoding: 'utf8' })) as {
      berthVersion: string;
    };
    expect(header.berthVersion).toBe(
      (
        JSON.parse(execFileSync('cat', [join(root, 'package.json')], { encoding: 'utf8' })) as {
          version: string;
        }
      ).version,
    );
  });
});
