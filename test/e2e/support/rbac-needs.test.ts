// Tests the RBAC table's expansions: rendered rules to lines, table rows to access checks.
import { describe, expect, it } from 'vitest';
import { isAccessObject } from './chart-access.ts';
import { berthNeeds, grantedRules, neededAccess, neededRules } from './rbac-needs.ts';

/** The chart's ServiceAccount and a binding of `kind name` to it. */
const sa = { kind: 'ServiceAccount', metadata: { name: 'berth' } };
function bind(kind: string, name: string) {
  return {
    kind: kind === 'Role' ? 'RoleBinding' : 'ClusterRoleBinding',
    roleRef: { kind, name },
    subjects: [{ kind: 'ServiceAccount', name: 'berth', namespace: 'berth-system' }],
  };
}

describe('grantedRules', () => {
  it('expands every group × resource × verb of ClusterRoles and Roles, names included, once each', () => {
    const objects = [
      sa,
      bind('ClusterRole', 'berth'),
      bind('Role', 'berth'),
      {
        kind: 'ClusterRole',
        metadata: { name: 'berth' },
        rules: [
          { apiGroups: ['', 'apps'], resources: ['pods', 'replicasets'], verbs: ['get'] },
          { apiGroups: [''], resources: ['pods'], verbs: ['get', 'delete'] },
        ],
      },
      {
        kind: 'Role',
        metadata: { name: 'berth' },
        rules: [
          {
            apiGroups: ['coordination.k8s.io'],
            resources: ['leases'],
            resourceNames: ['berth'],
            verbs: ['update'],
          },
        ],
      },
      { kind: 'ConfigMap', rules: [{ apiGroups: ['x'], resources: ['y'], verbs: ['z'] }] },
    ];
    expect(grantedRules(objects)).toEqual([
      'apps pods get',
      'apps replicasets get',
      'coordination.k8s.io leases update [berth]',
      'core pods delete',
      'core pods get',
      'core replicasets get',
    ]);
  });

  it("counts only roles bound to the ServiceAccount: a role for scrapers (get /metrics) is not berth's", () => {
    const reader = {
      kind: 'ClusterRole',
      metadata: { name: 'berth-metrics-reader' },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    };
    const scraper = {
      kind: 'ClusterRoleBinding',
      roleRef: { kind: 'ClusterRole', name: 'berth-metrics-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: 'monitoring' }],
    };
    expect(grantedRules([sa, reader, scraper])).toEqual([]);
    expect(grantedRules([sa, reader, bind('ClusterRole', 'berth-metrics-reader')])).toEqual([
      '(none) /metrics get',
    ]);
  });

  it('shows a wildcard as it is, so that it matches no row of the table', () => {
    const lines = grantedRules([
      sa,
      bind('ClusterRole', 'all'),
      {
        kind: 'ClusterRole',
        metadata: { name: 'all' },
        rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
      },
    ]);
    expect(lines).toEqual(['* * *']);
    expect(neededRules()).not.toContain('* * *');
  });
});

describe('the table of needs', () => {
  it('names an e2e test on every row and has no wildcard', () => {
    for (const n of berthNeeds) {
      expect(n.usedBy).toMatch(/^[a-z-]+\.e2e: \S/);
      expect([n.group, n.resource, ...n.verbs].join(' ')).not.toContain('*');
    }
  });

  it('lets berth delete pods (preemption) but not create, update or patch them', () => {
    const pods = neededRules().filter((l) => l.startsWith('core pods '));
    expect(pods).toEqual([
      'core pods delete',
      'core pods get',
      'core pods list',
      'core pods watch',
    ]);
  });

  it('turns rows into single checks: cluster rows everywhere and in apps, the rest where they apply', () => {
    const checks = neededAccess({ apps: 'a', release: 'r' });
    expect(checks).toContainEqual({ verb: 'list', resource: 'nodes' });
    expect(checks).toContainEqual({ verb: 'list', resource: 'nodes', namespace: 'a' });
    expect(checks).toContainEqual({ verb: 'delete', resource: 'pods', namespace: 'a' });
    expect(checks).toContainEqual({
      verb: 'patch',
      resource: 'podgroups',
      group: 'scheduling.x-k8s.io',
      subresource: 'status',
      namespace: 'a',
    });
    expect(checks).toContainEqual({
      verb: 'update',
      resource: 'leases',
      group: 'coordination.k8s.io',
      namespace: 'r',
      name: 'berth',
    });
  });
});

describe('isAccessObject', () => {
  it.each([
    ['ServiceAccount', 'v1', true],
    ['ClusterRole', 'rbac.authorization.k8s.io/v1', true],
    ['ClusterRoleBinding', 'rbac.authorization.k8s.io/v1', true],
    ['Role', 'rbac.authorization.k8s.io/v1', true],
    ['RoleBinding', 'rbac.authorization.k8s.io/v1', true],
    ['Lease', 'coordination.k8s.io/v1', true],
    ['ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/v1', true],
    ['ValidatingAdmissionPolicyBinding', 'admissionregistration.k8s.io/v1', true],
    ['Deployment', 'apps/v1', false],
    ['ConfigMap', 'v1', false],
    ['Service', 'v1', false],
    ['PodDisruptionBudget', 'policy/v1', false],
  ])('%s (%s) is applied: %s', (kind, apiVersion, expected) => {
    expect(isAccessObject({ kind, apiVersion })).toBe(expected);
  });
});
