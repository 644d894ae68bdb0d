// `berth run` from the bundle with an exec-plugin kubeconfig: client-node, left out of the bundle, is imported and sends the plugin's token.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { berthBin } from '../e2e/support/paths.ts';

const work = mkdtempSync(join(tmpdir(), 'berth-exec-'));

describe('berth run with an exec credential plugin', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('imports client-node on demand and sends the token the plugin printed', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"kind":"Status","status":"Failure","code":503}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const plugin = join(work, 'plugin.cjs');
    writeFileSync(
      plugin,
      'process.stdout.write(JSON.stringify({apiVersion: "client.authentication.k8s.io/v1", ' +
        'kind: "ExecCredential", status: {token: "from-exec-plugin"}}));\n',
    );
    const kubeconfig = join(work, 'kubeconfig.yaml');
    writeFileSync(
      kubeconfig,
      [
        `clusters: [{name: c, cluster: {server: '${url}', insecure-skip-tls-verify: true}}]`,
        `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ${process.execPath}, args: [${plugin}], interactiveMode: Never}}}]`,
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'current-context: x',
      ].join('\n'),
    );
    const child = spawn(
      process.execPath,
      [berthBin, 'run', '--kubeconfig', kubeconfig, '--leader-elect=false'],
      { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (b: Buffer) => {
      output += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      output += b.toString();
    });
    try {
      const deadline = Date.now() + 20_000;
      while (seen.length === 0 && child.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(seen.length, output).toBeGreaterThan(0);
      expect(seen[0]?.authorization).toBe('Bearer from-exec-plugin');
    } finally {
      child.kill('SIGKILL');
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
