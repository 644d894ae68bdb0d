// The shapes a kubeconfig is read into, and what a request needs of one (DirectHttp, client-node).
import type { RequestOptions } from 'node:https';

/** A cluster entry, with its file paths made absolute against the file that named them. */
export interface KubeconfigCluster {
  name: string;
  /** The server URL without a trailing slash. */
  server: string;
  caFile?: string;
  /** Base64 PEM. */
  caData?: string;
  skipTLSVerify: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
}

/** A user entry (credentials), file paths absolute. */
export interface KubeconfigUser {
  name: string;
  certFile?: string;
  certData?: string;
  keyFile?: string;
  keyData?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  /** `as`: the user to impersonate. */
  impersonateUser?: string;
  /** An exec credential plugin's stanza, run by client-node. */
  exec?: Record<string, unknown>;
  /** An auth-provider stanza (oidc, …), run by client-node. */
  authProvider?: Record<string, unknown>;
}

/** A context entry: which cluster, as which user. */
export interface KubeconfigContext {
  name: string;
  cluster: string;
  user: string;
  namespace?: string;
}

/**
 * What DirectHttp needs of a configuration: the current cluster's server and the request
 * options its credentials give. client-node's KubeConfig has the same two methods.
 */
export interface ClusterAccess {
  getCurrentCluster(): { server: string } | null;
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

/** The current context's entries: what client-node is handed for exec plugins and proxies. */
export interface CurrentContext {
  getContextObject(name: string | undefined): KubeconfigContext | null;
  getCurrentContext(): string;
  getCurrentCluster(): KubeconfigCluster | null;
  getCurrentUser(): KubeconfigUser | null;
}
