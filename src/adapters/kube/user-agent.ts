// The User-Agent berth sends the API server: who is asking, as client-go's `NAME/VERSION (OS/ARCH) …`.
import { berthVersion } from '../version.ts';

/**
 * `berth/VERSION (OS/ARCH) node/VERSION`, in client-go's shape (`kube-scheduler/v1.34.10
 * (linux/amd64) kubernetes/…`), so that audit logs, API Priority and Fairness and the API
 * server's request metrics can tell berth's requests from everyone else's.
 */
export const berthUserAgent = `berth/${berthVersion} (${process.platform}/${process.arch}) node/${process.versions.node}`;
