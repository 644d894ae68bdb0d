// kube-apiserver audit policies for tests and benches (only the creates asked for, in one namespace), and reading what they logged.
import { readFileSync } from 'node:fs';

/** Resources of one API group (`''` is the core group), subresources as `pods/binding`. */
export interface AuditedResources {
  group: string;
  resources: string[];
}

/**
 * An audit.k8s.io/v1 Policy (YAML) that logs at Metadata level the creates (or `verbs`) of
 * `resources` in `namespace` when they complete, and nothing else: no heartbeats, watches or
 * reads.
 */
export function createsAuditPolicy(
  namespace: string,
  resources: AuditedResources[],
  verbs: string[] = ['create'],
): string {
  const groups = resources.map(
    (r) => `{ group: "${r.group}", resources: [${r.resources.map((x) => `"${x}"`).join(', ')}] }`,
  );
  return [
    'apiVersion: audit.k8s.io/v1',
    'kind: Policy',
    'omitStages: ["RequestReceived"]',
    'rules:',
    '- level: Metadata',
    `  verbs: [${verbs.map((v) => `"${v}"`).join(', ')}]`,
    `  namespaces: ["${namespace}"]`,
    `  resources: [${groups.join(', ')}]`,
    '- level: None',
    '',
  ].join('\n');
}

/** The fields of an audit.k8s.io/v1 Event that the tests read. */
export interface AuditedRequest {
  verb: string;
  userAgent?: string;
  requestReceivedTimestamp?: string;
  responseStatus?: { code?: number };
  objectRef: { resource: string; namespace?: string; subresource?: string };
}

/** Every event of the JSON-lines audit log at `path` (a line that is not JSON throws). */
export function auditedRequests(path: string): AuditedRequest[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AuditedRequest);
}
