// Makes dist/berth.cjs.cache, the V8 code cache bin/berth.js compiles the bundle from: the last step of `npm run build`.
//
// V8 caches the functions a run has compiled, so the cache is made by running commands: each
// run loads what the one before cached and adds what it compiled. Every run clears NODE_OPTIONS,
// since V8 refuses a cache made under other V8 flags; a cache that a plain `node` then refuses
// fails the build rather than go unnoticed.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const cache = 'dist/berth.cjs.cache';

/** The runs that fill the cache, in order, and the exit status each must end with. */
const workload = [
  // The demo cluster (`npm start`): flags, manifests, admission, the whole scheduling path.
  { argv: ['simulate'], status: 0 },
  // `run` loads its module (the Kubernetes client, pino, prom-client) before it reads its
  // flags: an unknown one stops it there, with a usage error and no cluster.
  { argv: ['run', '--code-cache-warm-up'], status: 2 },
];

/** Runs `berth ARGV` with `extraEnv`; exits the build with its output if it ends otherwise. */
function berth(argv, extraEnv, status) {
  const env = { ...process.env, NODE_OPTIONS: '', ...extraEnv };
  const run = spawnSync(process.execPath, ['bin/berth.js', ...argv], { env, encoding: 'utf8' });
  if (run.status === status) return run;
  process.stderr.write(
    `code cache: \`berth ${argv.join(' ')}\` exited with ${run.status}, not ${status}\n`,
  );
  process.stderr.write(`${run.stdout}${run.stderr}`);
  process.exit(1);
}

rmSync(cache, { force: true });
for (const [i, { argv, status }] of workload.entries()) {
  const run = berth(argv, { BERTH_WRITE_CODE_CACHE: cache, BERTH_DEBUG_CODE_CACHE: '1' }, status);
  // Each run after the first must take the cache the one before wrote: one it refused would
  // be replaced by only what this run compiled, and the build would not notice.
  if (i > 0 && !run.stderr.includes('code cache: accepted')) {
    const said = run.stderr.split('\n').find((l) => l.startsWith('code cache:')) ?? 'no report';
    process.stderr.write(
      `code cache: \`berth ${argv.join(' ')}\` did not take the cache: ${said}\n`,
    );
    rmSync(cache, { force: true });
    process.exit(1);
  }
}
const check = berth(['--version'], { BERTH_DEBUG_CODE_CACHE: '1' }, 0);
if (!check.stderr.startsWith('code cache: accepted')) {
  process.stderr.write(`code cache: not accepted by ${process.execPath}: ${check.stderr}`);
  rmSync(cache, { force: true });
  process.exit(1);
}
