// Throwaway control planes for e2e tests: a cluster started before a file's tests and stopped after them.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { stopAllBerths } from './berth.ts';
import { Cluster, type ClusterOptions } from './control-plane.ts';

export { Cluster } from './control-plane.ts';

/**
 * Registers hooks that start a cluster before the file's tests and ALWAYS stop it after
 * them (and any berth processes still running). The cluster dir is kept when a test failed
 * or BERTH_E2E_KEEP is set. Returns a getter for the cluster (valid inside tests).
 */
export function useCluster(label: string, options: ClusterOptions = {}): () => Cluster {
  const cluster = new Cluster(label);
  let failed = false;
  beforeAll(async () => {
    try {
      await cluster.up(options);
    } catch (error) {
      failed = true;
      throw error;
    }
  }, 240_000);
  beforeEach((ctx) => {
    ctx.onTestFailed(() => {
      failed = true;
      process.stderr.write(`[e2e] ${label}: cluster state and logs kept in ${cluster.dir}\n`);
    });
  });
  afterAll(async () => {
    try {
      await stopAllBerths();
    } finally {
      await cluster.down(failed || process.env.BERTH_E2E_KEEP !== undefined);
    }
  }, 120_000);
  return () => cluster;
}
