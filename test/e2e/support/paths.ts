// Where things are: the repository root, the berth entry point and its node flags, the cluster scripts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The installed `berth` command's entry point (runs the bundle dist/berth.cjs).
 * BERTH_E2E_BERTH_BIN points the suite at another checkout's bin/berth.js (e.g. an older
 * commit, to see a regression test fail there).
 */
export const berthBin = process.env.BERTH_E2E_BERTH_BIN ?? join(repoRoot, 'bin/berth.js');

/**
 * The node flags on an entry point's first line, `#!/usr/bin/env -S node FLAGS`
 * (none for `#!/usr/bin/env node`); throws on any other first line.
 */
export function shebangNodeFlags(source: string): string[] {
  const firstLine = source.split('\n', 1)[0] ?? '';
  // Without -S, env would look for a program named "node FLAGS": flags need -S.
  const m = /^#!\/usr\/bin\/env (?:node|-S node((?: +\S+)*)) *$/.exec(firstLine);
  if (m === null) throw new Error(`not a "#!/usr/bin/env node" line: ${firstLine}`);
  return (m[1] ?? '').split(' ').filter((flag) => flag !== '');
}

/**
 * The node flags the installed `berth` command and the image run with (bin/berth.js's #!
 * line): every test and bench that spawns `node bin/berth.js` passes them, so that it runs
 * berth as users do.
 */
export const berthNodeFlags = shebangNodeFlags(readFileSync(berthBin, 'utf8'));

/** test/e2e/cluster: up.sh, down.sh, restart-apiserver.sh. */
export const clusterScripts = join(repoRoot, 'test/e2e/cluster');
