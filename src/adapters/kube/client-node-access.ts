// The credentials berth leaves to client-node (exec plugins, auth providers, proxies): loaded only for a kubeconfig that uses them.
import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterAccess, Kubeconfig } from './kubeconfig.ts';

/**
 * A client-node KubeConfig holding `kc`'s current context (paths already absolute), whose
 * `applyToHTTPSOptions` runs the exec plugin or auth provider and builds a proxy's agent.
 */
export function clientNodeAccess(kc: Kubeconfig): ClusterAccess {
  const context = kc.getContextObject(kc.getCurrentContext());
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (context === null || cluster === null)
    throw new Error(`context "${kc.getCurrentContext()}" names no cluster`);
  const clientNode = new KubeConfig();
  clientNode.loadFromOptions({
    clusters: [{ ...cluster }],
    users: user === null ? [] : [{ ...user }],
    contexts: [{ ...context }],
    currentContext: context.name,
  });
  return clientNode;
}
