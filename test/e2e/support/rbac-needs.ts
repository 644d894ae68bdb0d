// Every API access berth needs, each with the e2e test that fails without it, and what it must not have.
import type { Manifest } from './manifests.ts';

/** One access check: a verb on a resource, in a namespace ('' = all), maybe of one name. */
export interface Access {
  verb: string;
  resource: string;
  group?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** Verbs on a resource that berth needs, and the e2e test (file: title) that needs them. */
export interface Need {
  group: string;
  /** `pods` or `pods/status`: resource and subresource as RBAC rules name them. */
  resource: string;
  verbs: string[];
  /** Where the test checks it: cluster-wide (rules of the ClusterRole) or in one namespace. */
  scope: 'cluster' | 'apps' | 'release';
  /** Only this object (the Role's resourceNames). */
  name?: string;
  usedBy: string;
}

const read = ['get', 'list', 'watch'];

/**
 * What berth does with the API, one row per rule: with the chart's rendered RBAC every row
 * must be allowed (helm.e2e's SubjectAccessReviews), and the rendered rules must grant
 * nothing that is not a row (so nothing is granted "just in case"). Every listed kind is
 * also listed and watched by each `berth run` before it schedules: a read row names the
 * test whose result depends on those objects.
 */
export const berthNeeds: Need[] = [
  {
    group: '',
    resource: 'pods',
    verbs: read,
    scope: 'cluster',
    usedBy: 'basic.e2e: binds all 30 of its pods to the kwok nodes, which run them',
  },
  {
    group: '',
    resource: 'pods/binding',
    verbs: ['create'],
    scope: 'apps',
    usedBy: 'basic.e2e: binds all 30 of its pods to the kwok nodes, which run them',
  },
  {
    group: '',
    resource: 'pods/status',
    verbs: ['patch'],
    scope: 'apps',
    usedBy:
      'unschedulable.e2e: sets PodScheduled=False, reason Unschedulable; priority.e2e: the preemptor is nominated (status.nominatedNodeName), every victim gets the DisruptionTarget condition',
  },
  {
    group: '',
    resource: 'pods',
    verbs: ['delete'],
    scope: 'apps',
    usedBy:
      'priority.e2e: every victim gets the DisruptionTarget condition / one Preempted Event; shared-victim.e2e: binds both once it is gone',
  },
  {
    group: '',
    resource: 'nodes',
    verbs: read,
    scope: 'cluster',
    usedBy: 'basic.e2e: puts no node over its allocatable cpu, memory or pod count',
  },
  {
    group: '',
    resource: 'namespaces',
    verbs: read,
    scope: 'cluster',
    usedBy: "differential.e2e: InterPodAffinity's namespaceSelector scenarios agree with kube",
  },
  ...(['services', 'replicationcontrollers'] as const).map((resource) => ({
    group: '',
    resource,
    verbs: read,
    scope: 'cluster' as const,
    usedBy: "differential.e2e: PodTopologySpread's default constraints agree with kube",
  })),
  ...(['replicasets', 'statefulsets'] as const).map((resource) => ({
    group: 'apps',
    resource,
    verbs: read,
    scope: 'cluster' as const,
    usedBy: "differential.e2e: PodTopologySpread's default constraints agree with kube",
  })),
  ...(['persistentvolumeclaims', 'persistentvolumes'] as const).map((resource) => ({
    group: '',
    resource,
    verbs: read,
    scope: 'cluster' as const,
    usedBy: 'volumes.e2e: puts the pod of a pre-bound local PV on that PV’s node',
  })),
  ...(['storageclasses', 'csinodes'] as const).map((resource) => ({
    group: 'storage.k8s.io',
    resource,
    verbs: read,
    scope: 'cluster' as const,
    usedBy: 'volumes.e2e: keeps a pod whose WaitForFirstConsumer claim is unbound pending',
  })),
  {
    group: 'policy',
    resource: 'poddisruptionbudgets',
    verbs: read,
    scope: 'cluster',
    usedBy: 'priority.e2e: scenario 2 (PDB): both preempt on the node where no PDB is violated',
  },
  ...(['resourceclaims', 'deviceclasses', 'resourceslices', 'devicetaintrules'] as const).map(
    (resource) => ({
      group: 'resource.k8s.io',
      resource,
      verbs: read,
      scope: 'cluster' as const,
      usedBy:
        'helm.e2e: berth under the chart’s role lists and watches every kind it reads, no 403',
    }),
  ),
  {
    group: 'resource.k8s.io',
    resource: 'resourceclaims',
    verbs: ['update'],
    scope: 'cluster',
    usedBy:
      'dra-prebind.e2e: writes the finalizer, the allocation and the pod in reservedFor, then binds the pod',
  },
  {
    group: 'resource.k8s.io',
    resource: 'resourceclaims',
    verbs: ['create'],
    scope: 'cluster',
    usedBy:
      'dra-extended.e2e: creates the special claim of a pod asking example.com/gpu, then binds the pod',
  },
  {
    group: 'resource.k8s.io',
    resource: 'resourceclaims',
    verbs: ['delete'],
    scope: 'cluster',
    usedBy:
      'dra-extended.e2e: deletes the special claim it created when the Binding fails (the pod was recreated: 409)',
  },
  ...(['resourceclaims/status', 'resourceclaims/binding'] as const).flatMap((resource) => [
    {
      group: 'resource.k8s.io',
      resource,
      verbs: ['update'],
      scope: 'cluster' as const,
      usedBy:
        'dra-prebind.e2e: writes the finalizer, the allocation and the pod in reservedFor, then binds the pod',
    },
    {
      group: 'resource.k8s.io',
      resource,
      verbs: ['patch'],
      scope: 'cluster' as const,
      usedBy:
        'dra-prebind.e2e: when the Binding fails (the pod was recreated under its name: 409), takes the pod out of reservedFor again',
    },
  ]),
  {
    group: 'events.k8s.io',
    resource: 'events',
    verbs: ['create'],
    scope: 'apps',
    usedBy: 'basic.e2e: records one Scheduled event per bound pod naming its node',
  },
  {
    group: 'scheduling.x-k8s.io',
    resource: 'podgroups',
    verbs: read,
    scope: 'cluster',
    usedBy: 'gang.e2e: scenario 1: a 4-member group on room for 3 — no member is bound',
  },
  {
    group: 'scheduling.x-k8s.io',
    resource: 'podgroups/status',
    verbs: ['patch'],
    scope: 'apps',
    usedBy: "gang.e2e: scenario 4: the placed group's PodGroup status",
  },
  {
    group: 'scheduling.k8s.io',
    resource: 'podgroups',
    verbs: read,
    scope: 'cluster',
    usedBy: 'workload-gang.e2e: a gang of Kubernetes PodGroups that fits is bound whole',
  },
  {
    group: 'scheduling.k8s.io',
    resource: 'podgroups/status',
    verbs: ['patch'],
    scope: 'apps',
    usedBy: 'workload-gang.e2e: a gang of Kubernetes PodGroups that fits is bound whole',
  },
  {
    group: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['get', 'update'],
    scope: 'release',
    name: 'berth',
    usedBy: 'helm.e2e: installs; berth with its ServiceAccount and ConfigMap … takes the Lease',
  },
];

/** The table's rows as single access checks in the namespaces given. */
export function neededAccess(ns: { apps: string; release: string }): Access[] {
  return berthNeeds.flatMap((n) => {
    const [resource = '', subresource] = n.resource.split('/');
    const where =
      n.scope === 'cluster' ? ['', ns.apps] : n.scope === 'apps' ? [ns.apps] : [ns.release];
    return where.flatMap((namespace) =>
      n.verbs.map((verb) => ({
        verb,
        resource,
        ...(n.group === '' ? {} : { group: n.group }),
        ...(subresource === undefined ? {} : { subresource }),
        ...(namespace === '' ? {} : { namespace }),
        ...(n.name === undefined ? {} : { name: n.name }),
      })),
    );
  });
}

/** An RBAC PolicyRule as rendered. */
interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/**
 * Every `group resource verb` the rendered ClusterRoles and Roles bound to the chart's ServiceAccount grant (with `[name]` when
 * the rule names objects), sorted; a wildcard shows as `*` and matches no row.
 */
export function grantedRules(objects: Manifest[]): string[] {
  // Only roles bound to berth's own ServiceAccount: the chart also renders a role for
  // scrapers (get /metrics), which it binds to other subjects.
  const accounts = new Set(
    objects.filter((o) => o.kind === 'ServiceAccount').map((o) => nameOf(o)),
  );
  const bound = new Set(
    objects
      .filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')
      .filter((o) =>
        ((o.subjects as { kind?: string; name?: string }[] | undefined) ?? []).some(
          (s) => s.kind === 'ServiceAccount' && accounts.has(s.name ?? ''),
        ),
      )
      .map((o) => {
        const ref = o.roleRef as { kind?: string; name?: string } | undefined;
        return `${ref?.kind} ${ref?.name}`;
      }),
  );
  const rules = objects
    .filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role')
    .filter((o) => bound.has(`${String(o.kind)} ${nameOf(o)}`))
    .flatMap((o) => (o.rules as PolicyRule[] | undefined) ?? []);
  const out = rules.flatMap((r) =>
    (r.apiGroups ?? ['(none)']).flatMap((g) =>
      (r.resources ?? r.nonResourceURLs ?? []).flatMap((res) =>
        (r.verbs ?? []).map((v) => ruleLine(g, res, v, r.resourceNames)),
      ),
    ),
  );
  return [...new Set(out)].sort();
}

/** The same lines for the table: what the rendered rules must be, exactly. */
export function neededRules(): string[] {
  const out = berthNeeds.flatMap((n) =>
    n.verbs.map((v) => ruleLine(n.group, n.resource, v, n.name ? [n.name] : undefined)),
  );
  return [...new Set(out)].sort();
}

function nameOf(o: Manifest): string {
  return (o.metadata as { name?: string } | undefined)?.name ?? '';
}

function ruleLine(group: string, resource: string, verb: string, names?: string[]): string {
  const named = names === undefined || names.length === 0 ? '' : ` [${names.join(',')}]`;
  return `${group === '' ? 'core' : group} ${resource} ${verb}${named}`;
}

/** `VERB group/resource/subresource NAME in NAMESPACE`, for verdict lines. */
export function describeAccess(a: Access): string {
  const resource = [a.group ?? '', a.resource, a.subresource ?? ''].filter(Boolean).join('/');
  return `${a.verb} ${resource}${a.name ? ` ${a.name}` : ''} in ${a.namespace || '(all)'}`;
}
