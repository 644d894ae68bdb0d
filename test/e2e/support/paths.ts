// Where things are: the repository root, the berth entry point and the cluster scripts.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The installed `berth` command's entry point (runs the TypeScript CLI through tsx).
 * BERTH_E2E_BERTH_BIN points the suite at another checkout's bin/berth.js (e.g. an older
 * commit, to see a regression test fail there).
 */
export const berthBin = process.env.BERTH_E2E_BERTH_BIN ?? join(repoRoot, 'bin/berth.js');

/** test/e2e/cluster: up.sh, down.sh, restart-apiserver.sh. */
export const clusterScripts = join(repoRoot, 'test/e2e/cluster');
