// berth run against an unreachable API server or with refused credentials fails fast, in one line.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { berthCommand, type CommandResult } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';

/** A loopback port that nothing listens on (bound once by us, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Asserts the contract for a refused start: non-zero exit, one `berth: ` line, no stack. */
function expectOneLineFailure(r: CommandResult, pattern?: RegExp): void {
  const detail = `exit ${r.code} after ${r.durationMs} ms\nstderr:\n${r.stderr}\nstdout:\n${r.stdout}`;
  expect(r.signal, detail).toBeNull();
  expect(r.code, detail).not.toBe(0);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, detail).toHaveLength(1);
  expect(lines[0], detail).toMatch(/^berth: \S/);
  expect(r.stderr, detail).not.toContain('    at ');
  if (pattern !== undefined) expect(lines[0], detail).toMatch(pattern);
  // "Quickly": no long retry loop before giving up.
  expect(r.durationMs, detail).toBeLessThan(20_000);
}

describe('berth run against a bad cluster', () => {
  const cluster = useCluster('bad');

  it('exits non-zero with one line when the API server port is closed', async () => {
    const port = await closedPort();
    const kubeconfig = join(cluster().dir, 'closed-port.kubeconfig');
    writeFileSync(
      kubeconfig,
      readFileSync(cluster().kubeconfig, 'utf8').replace(
        /server: https:\/\/127\.0\.0\.1:\d+/,
        `server: https://127.0.0.1:${port}`,
      ),
    );
    const r = await berthCommand(['run', '--kubeconfig', kubeconfig], 60_000);
    expectOneLineFailure(
      r,
      new RegExp(`127\\.0\\.0\\.1:${port}|ECONNREFUSED|refused|connect`, 'i'),
    );
  });

  it('exits non-zero with one line when the token is refused (401)', async () => {
    const kubeconfig = join(cluster().dir, 'wrong-token.kubeconfig');
    writeFileSync(
      kubeconfig,
      readFileSync(cluster().kubeconfig, 'utf8').replace(/token: \S+/, 'token: not-a-valid-token'),
    );
    const r = await berthCommand(['run', '--kubeconfig', kubeconfig], 60_000);
    expectOneLineFailure(r, /401|unauthori[sz]ed|credential/i);
  });

  it('exits non-zero with one line when the kubeconfig does not exist', async () => {
    const r = await berthCommand(
      ['run', '--kubeconfig', join(cluster().dir, 'no-such.kubeconfig')],
      60_000,
    );
    expectOneLineFailure(r);
  });

  it('exits non-zero with one line when the context is unknown', async () => {
    const r = await berthCommand(
      ['run', '--kubeconfig', cluster().kubeconfig, '--context', 'no-such-context'],
      60_000,
    );
    expectOneLineFailure(r, /no-such-context/);
  });
});
