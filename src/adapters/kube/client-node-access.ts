// The credentials berth leaves to client-node (exec plugins, auth providers, proxies): loaded only for a kubeconfig that uses them.
import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterAccess, CurrentContext } from './kubeconfig-types.ts';

/**
 * A client-node KubeConfig holding `kc`'s current context (paths already absolute), whose
 * `applyToHTTPSOptions` runs the exec plugin or auth provider and builds a proxy's agent.
 *
 * This module is imported on first use, and the bundle leaves client-node out (it was half
 * of the bundle): there the import below becomes a `require` of node_modules, which loads the
 * ES module (Node ≥ 20.19). A real `import()` would fail there: the bundle runs from a V8
 * code cache, and a script compiled from one has no dynamic-import callback in Node 20.
 */
export function clientNodeAccess(kc: CurrentContext): ClusterAccess {
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
