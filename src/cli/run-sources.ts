// `berth run`'s inputs: the API clients (fenced, connection checked) and the list/watch source of every kind.
import type { Logger } from 'pino';
import {
  checkConnection,
  KubeSetupError,
  loadKubeConfig,
  makeClients,
} from '../adapters/kube/config.ts';
import { nodeSource, objectSource, podSource } from '../adapters/kube/list-watch.ts';
import { reflect } from '../adapters/kube/reflector.ts';
import type { WriteFence } from '../adapters/kube/write-fence.ts';
import { objectKinds, optionalObjectKinds } from '../cluster/cluster-objects.ts';
import type { LiveOptions } from '../runtime/live.ts';
import { CliError } from './errors.ts';

/**
 * Loads the kubeconfig (`kubeconfig` path, `context`), makes the clients, every write of
 * which passes `fence`, and checks the API server answers; a setup failure is a CliError.
 */
export async function connectCluster(
  kubeconfig: string | undefined,
  context: string | undefined,
  fence: WriteFence | undefined,
): Promise<{
  clients: ReturnType<typeof makeClients>;
  kubeConfig: ReturnType<typeof loadKubeConfig>;
}> {
  try {
    const kubeConfig = loadKubeConfig({ kubeconfig, context });
    const clients = makeClients(kubeConfig, fence);
    await checkConnection(clients);
    return { clients, kubeConfig };
  } catch (error) {
    if (error instanceof KubeSetupError) throw new CliError(error.message);
    throw error;
  }
}

/**
 * A reflector per kind: nodes, pods (the pending ones asked for once the nodes are listed;
 * `onAssignedListed` when the bound ones are in), and every object kind (the optional ones
 * may be unserved), with the kinds whose first relist scheduling waits for.
 */
export function watchSources(
  clients: ReturnType<typeof makeClients>,
  logger: Logger,
  onAssignedListed: () => void,
): Pick<LiveOptions, 'sources' | 'syncKinds'> {
  let nodesWereListed = () => {};
  const nodesListed = new Promise<void>((resolve) => {
    nodesWereListed = resolve;
  });
  return {
    sources: [
      reflect({
        kind: 'Node',
        source: nodeSource(clients),
        logger,
        onListed: () => nodesWereListed(),
      }),
      reflect({
        kind: 'Pod',
        source: podSource(clients, { pendingAfter: nodesListed }),
        logger,
        onAssignedListed,
      }),
      ...objectKinds.map((kind) =>
        reflect({
          kind,
          source: objectSource(clients, kind),
          logger,
          optional: optionalObjectKinds.has(kind),
        }),
      ),
    ],
    syncKinds: ['Node', 'Pod', ...objectKinds],
  };
}
