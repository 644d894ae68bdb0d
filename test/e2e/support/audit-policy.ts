// kube-apiserver audit policies for tests and benches: only the creates asked for, in one namespace.

/** Resources of one API group (`''` is the core group), subresources as `pods/binding`. */
export interface AuditedResources {
  group: string;
  resources: string[];
}

/**
 * An audit.k8s.io/v1 Policy (YAML) that logs at Metadata level the creates of `resources`
 * in `namespace` when they complete, and nothing else: no heartbeats, watches or reads.
 */
export function createsAuditPolicy(namespace: string, resources: AuditedResources[]): string {
  const groups = resources.map(
    (r) => `{ group: "${r.group}", resources: [${r.resources.map((x) => `"${x}"`).join(', ')}] }`,
  );
  return [
    'apiVersion: audit.k8s.io/v1',
    'kind: Policy',
    'omitStages: ["RequestReceived"]',
    'rules:',
    '- level: Metadata',
    '  verbs: ["create"]',
    `  namespaces: ["${namespace}"]`,
    `  resources: [${groups.join(', ')}]`,
    '- level: None',
    '',
  ].join('\n');
}
