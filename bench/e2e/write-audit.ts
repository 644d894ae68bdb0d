// Which writes each client made in a run, from kube-apiserver's audit log: the work a scheduler did, counted by kind.
import { auditedRequests, createsAuditPolicy } from '../../test/e2e/support/audit-policy.ts';
import { auditTimeMs } from './audit-latency.ts';

/**
 * An audit policy that logs, at Metadata level, every create, update and patch of pods (and
 * their binding and status), ResourceClaims (and status) and Events in `namespace`.
 */
export function writesAuditPolicy(namespace: string): string {
  return createsAuditPolicy(
    namespace,
    [
      { group: '', resources: ['pods', 'pods/binding', 'pods/status', 'events'] },
      { group: 'resource.k8s.io', resources: ['resourceclaims', 'resourceclaims/status'] },
      { group: 'events.k8s.io', resources: ['events'] },
    ],
    ['create', 'update', 'patch'],
  );
}

/** Writes per client (its user agent up to the first `/`), per `verb resource[/subresource] code`. */
export type WriteCounts = Record<string, Record<string, number>>;

/** Counts the writes the audit log at `path` shows received at or after `sinceMs` (epoch ms). */
export function writesSince(path: string, sinceMs: number): WriteCounts {
  const counts: WriteCounts = {};
  for (const e of auditedRequests(path)) {
    const at = auditTimeMs(e.requestReceivedTimestamp);
    if (at === undefined || at < sinceMs) continue;
    const client = (e.userAgent ?? '?').split('/')[0] as string;
    const ref = e.objectRef;
    const what = `${e.verb} ${ref.resource}${ref.subresource === undefined ? '' : `/${ref.subresource}`} ${e.responseStatus?.code ?? '?'}`;
    const mine = counts[client] ?? {};
    counts[client] = mine;
    mine[what] = (mine[what] ?? 0) + 1;
  }
  return counts;
}

/** `counts` of one client as `N verb resource code` items divided by `pods`, e.g. `1.00 patch resourceclaims/status 200`. */
export function perPod(counts: Record<string, number> | undefined, pods: number): string {
  return Object.entries(counts ?? {})
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([what, n]) => `${(n / pods).toFixed(2)} ${what}`)
    .join(', ');
}
