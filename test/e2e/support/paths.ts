// Where things are: the repository root, the berth entry point and the cluster scripts.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The installed `berth` command's entry point (runs the TypeScript CLI through tsx). */
export const berthBin = join(repoRoot, 'bin/berth.js');

/** test/e2e/cluster: up.sh, down.sh, restart-apiserver.sh. */
export const clusterScripts = join(repoRoot, 'test/e2e/cluster');
