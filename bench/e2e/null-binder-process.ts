// Starts the null binder (null-binder.ts) as its own node process beside a bench control plane.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import type { Cluster } from '../../test/e2e/support/control-plane.ts';
import { repoRoot } from '../../test/e2e/support/paths.ts';
import { delay } from '../../test/e2e/support/wait.ts';
import type { ClientLimits, RunningScheduler } from './scheduler-types.ts';

const source = join(repoRoot, 'bench/e2e/null-binder.ts');
// Under node_modules, so that client-node (left out of the bundle) resolves from it.
const bundle = join(repoRoot, 'node_modules/.cache/berth-bench/null-binder.cjs');
let bundled = false;

/**
 * Bundles null-binder.ts into one CommonJS file (once per bench process), as berth runs from its
 * bundle: started through tsx, the null binder spent ~3 s transpiling before its first bind.
 */
function bundleOnce(): string {
  if (!bundled)
    buildSync({
      entryPoints: [source],
      bundle: true,
      platform: 'node',
      // CommonJS, as berth's bundle: yaml's require('process') fails in an ES module bundle.
      format: 'cjs',
      target: 'node20',
      define: { 'import.meta.url': 'bundleUrl' },
      banner: { js: "var bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
      outfile: bundle,
      external: ['@kubernetes/client-node'],
      logLevel: 'warning',
    });
  bundled = true;
  return bundle;
}

/**
 * Spawns `node null-binder.cjs` (the bundle of null-binder.ts; one process, so its CPU and
 * RSS are its own) with `limits`, its output in DIR/null-binder.log.
 */
export function startNullBinder(cluster: Cluster, limits: ClientLimits): RunningScheduler {
  const program = bundleOnce();
  const logPath = join(cluster.dir, 'null-binder.log');
  const out = openSync(logPath, 'a');
  const startedAt = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...[program, '--kubeconfig', cluster.kubeconfig, '--name', 'null-binder'],
      ...['--qps', String(limits.qps), '--burst', String(limits.burst)],
    ],
    { cwd: repoRoot, stdio: ['ignore', out, out] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.pid === undefined) throw new Error('the null binder did not start');
  return {
    name: 'null-binder',
    pid: child.pid,
    startedAt,
    checkAlive() {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the null binder exited; see ${logPath}`);
    },
    metrics: () => Promise.resolve(''),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const late = await Promise.race([exited.then(() => false), delay(5_000).then(() => true)]);
      if (late) child.kill('SIGKILL');
      await exited;
    },
  };
}
