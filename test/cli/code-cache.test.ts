// bin/berth.js and its V8 code cache: used when it is valid for this very bundle, ignored (never fatal) when not.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-code-cache-'));
const bundle = join(work, 'dist/berth.cjs');
const cache = `${bundle}.cache`;

/** A small stand-in for the bundle: CommonJS that requires a builtin and sees its own file name. */
const bundleSource = (greeting: string) =>
  `'use strict';\nconst { basename } = require('node:path');\n` +
  `function greet(name) { return '${greeting} ' + name; }\n` +
  `process.stdout.write(greet(basename(__filename)) + ' ' + (typeof module.exports) + '\\n');\n`;

/** Runs the copied bin/berth.js with the given environment; stdout, stderr and status. */
function berth(env: Record<string, string> = {}, nodeArgs: string[] = []) {
  const r = spawnSync(process.execPath, [...nodeArgs, join(work, 'bin/berth.js')], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** What bin/berth.js said became of the cache (BERTH_DEBUG_CODE_CACHE), without the timings. */
function cacheStatus(): string {
  const r = berth({ BERTH_DEBUG_CODE_CACHE: '1' });
  expect(r.status).toBe(0);
  expect(r.stdout).toBe('hello berth.cjs object\n');
  return r.stderr.replace(/^code cache: /, '').replace(/ \(top level done .*\)\n$/, '');
}

describe('bin/berth.js code cache', () => {
  beforeAll(() => {
    mkdirSync(join(work, 'bin'));
    mkdirSync(join(work, 'dist'));
    copyFileSync(join(root, 'bin/berth.js'), join(work, 'bin/berth.js'));
    writeFileSync(join(work, 'package.json'), '{"type":"module"}\n');
    writeFileSync(bundle, bundleSource('hello'));
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('runs the bundle with no cache, and says so only when asked', () => {
    rmSync(cache, { force: true });
    expect(berth()).toEqual({ stdout: 'hello berth.cjs object\n', stderr: '', status: 0 });
    expect(cacheStatus()).toBe('absent');
  });

  it('writes a cache on exit when asked, and the next run is compiled from it', () => {
    expect(berth({ BERTH_WRITE_CODE_CACHE: cache }).status).toBe(0);
    expect(readFileSync(cache).subarray(0, 8).toString('latin1')).toBe('berthcc1');
    expect(cacheStatus()).toBe('accepted');
    expect(berth().stderr).toBe('');
  });

  it('ignores a corrupt, truncated or foreign cache and still runs the bundle', () => {
    expect(berth({ BERTH_WRITE_CODE_CACHE: cache }).status).toBe(0);
    const good = readFileSync(cache);

    const flipped = Buffer.from(good);
    flipped[flipped.length - 10] = (flipped[flipped.length - 10] ?? 0) ^ 0xff;
    writeFileSync(cache, flipped);
    expect(cacheStatus()).toBe('rejected: corrupt or truncated');

    writeFileSync(cache, good.subarray(0, good.length - 100));
    expect(cacheStatus()).toBe('rejected: corrupt or truncated');

    writeFileSync(cache, good.subarray(0, 12));
    expect(cacheStatus()).toBe('rejected: not a berth code cache');

    writeFileSync(cache, 'not a cache at all');
    expect(cacheStatus()).toBe('rejected: not a berth code cache');

    writeFileSync(cache, good);
    expect(cacheStatus()).toBe('accepted');
  });

  it('ignores a cache made for another build of the bundle, even of the same length', () => {
    expect(berth({ BERTH_WRITE_CODE_CACHE: cache }).status).toBe(0);
    writeFileSync(bundle, bundleSource('howdy'));
    const r = berth({ BERTH_DEBUG_CODE_CACHE: '1' });
    expect(r.stdout).toBe('howdy berth.cjs object\n');
    expect(r.stderr).toMatch(/^code cache: rejected: made for another build of the bundle /);
    writeFileSync(bundle, bundleSource('hello'));
  });

  it('leaves a cache made under other V8 flags to V8, which refuses it', () => {
    expect(berth({ BERTH_WRITE_CODE_CACHE: cache }).status).toBe(0);
    // A flag that changes compiled code: V8 13 (Node 24) no longer counts heap sizes
    // (--max-semi-space-size, --max-old-space-size) among the flags a cache must match.
    const r = berth({ BERTH_DEBUG_CODE_CACHE: '1' }, ['--no-opt']);
    expect(r.stdout).toBe('hello berth.cjs object\n');
    expect(r.stderr).toMatch(/^code cache: rejected: by V8 /);
  });

  it('reports errors thrown by the bundle at its own line numbers', () => {
    rmSync(cache, { force: true });
    writeFileSync(bundle, `'use strict';\n\nthrow new Error('boom');\n`);
    const r = berth();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${bundle}:3`);
    writeFileSync(bundle, bundleSource('hello'));
  });
});
