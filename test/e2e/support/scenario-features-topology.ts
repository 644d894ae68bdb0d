// The scenario generator's sequential features: topology spread, its cluster-level defaults, pod (anti-)affinity.
import {
  type Draft,
  type Feature,
  otherNamespace,
  podTemplate,
  scenarioNamespace,
} from './scenario-basics.ts';
import {
  addAmounts,
  allocatable,
  type LabelSelectorObj,
  type NodeObj,
  type PodAffinityObj,
  type PodAffinityTermObj,
  type PodObj,
  podRequests,
  type SpreadConstraintObj,
} from './scenario-model.ts';
import type { WorkloadObj } from './scenario-topology.ts';
import type { Rng } from './scenarios.ts';

const zoneKey = 'topology.kubernetes.io/zone';
const hostnameKey = 'kubernetes.io/hostname';
const groups = ['g1', 'g2', 'g3'];
const teams = ['red', 'blue', 'green'];

/** The uid the loader writes for an ownerReference to the workload `kind/name` (see `ownerUid`). */
export function ownerPlaceholder(kind: string, name: string): string {
  return `owner:${kind}/${name}`;
}

function residentsOn(node: NodeObj, draft: Draft): PodObj[] {
  return draft.residents.filter((r) => r.spec.nodeName === node.metadata.name);
}

/**
 * Binds a small labelled resident to `node` when it has a free pod slot: no requests, or
 * 50m/64Mi when that fits (residents never overcommit a node). One in six lives in the
 * other namespace, where the scenario pods' spreading must not count it.
 */
function addResident(
  node: NodeObj,
  draft: Draft,
  rng: Rng,
  name: string,
  labels: Record<string, string>,
): PodObj | undefined {
  const here = residentsOn(node, draft);
  const used = {} as Record<string, number>;
  for (const r of here) addAmounts(used, podRequests(r));
  const alloc = allocatable(node);
  if ((used.pods ?? 0) + 1000 > (alloc.pods ?? 0)) return undefined;
  const p = podTemplate(
    `r-${node.metadata.name}-${name}`,
    rng.chance(1 / 6) ? otherNamespace : scenarioNamespace,
  );
  const fits =
    (used.cpu ?? 0) + 50 <= (alloc.cpu ?? 0) &&
    (used.memory ?? 0) + 64 * 2 ** 20 * 1000 <= (alloc.memory ?? 0);
  if (fits && rng.chance(0.5))
    (p.spec.containers[0] as PodObj['spec']['containers'][number]).resources.requests = {
      cpu: '50m',
      memory: '64Mi',
    };
  p.spec.nodeName = node.metadata.name;
  p.spec.priorityClassName = 'diff-resident';
  Object.assign(p.metadata.labels, { role: 'resident' }, labels);
  draft.residents.push(p);
  return p;
}

function selectorKeys(sel: LabelSelectorObj | undefined): Set<string> {
  return new Set([
    ...Object.keys(sel?.matchLabels ?? {}),
    ...(sel?.matchExpressions ?? []).map((e) => e.key),
  ]);
}

/** A pod label selector over `key`: mostly the pod's own value, now and then wider, empty or absent. */
function selectorOver(
  rng: Rng,
  key: string,
  values: readonly string[],
  own: string | undefined,
): LabelSelectorObj | undefined {
  const mine = own ?? rng.pick(values);
  const roll = rng.int(20);
  if (roll < 11) return { matchLabels: { [key]: mine } };
  if (roll < 14)
    return {
      matchExpressions: [{ key, operator: 'In', values: [...new Set([mine, rng.pick(values)])] }],
    };
  if (roll < 15) return { matchExpressions: [{ key, operator: 'Exists' }] };
  if (roll < 16) return { matchExpressions: [{ key, operator: 'NotIn', values: [mine] }] };
  if (roll < 17) return {}; // selects every pod, which spreading counts as none
  if (roll < 18) return undefined; // selects no pod
  return { matchLabels: { [key]: mine, version: rng.pick(['v1', 'v2']) } };
}

/** Zone labels on nodes that have none (most nodes end up in a zone, some in none). */
function zoneNode(node: NodeObj, rng: Rng): void {
  const labels = node.metadata.labels;
  if (!Object.hasOwn(labels, zoneKey) && rng.chance(0.6))
    labels[zoneKey] = rng.pick(['zone-a', 'zone-b', 'zone-c']);
}

/**
 * Topology spread: `group`/`version` labels on residents and pods, and 1–2 constraints per
 * pod (zone or hostname; DoNotSchedule or ScheduleAnyway; maxSkew 1–2; now and then
 * minDomains, inclusion policies, matchLabelKeys).
 */
export const spread: Feature = {
  name: 'spread',
  sequential: true,
  node: zoneNode,
  residents(node, rng, draft) {
    for (const r of residentsOn(node, draft))
      if (rng.chance(0.5)) r.metadata.labels.group = rng.pick(groups);
    const extra = rng.pick([0, 0, 1, 1, 2, 3]);
    for (let i = 0; i < extra; i++) {
      const labels: Record<string, string> = { group: rng.pick(groups) };
      if (rng.chance(0.4)) labels.version = rng.pick(['v1', 'v2']);
      addResident(node, draft, rng, `s${i}`, labels);
    }
  },
  pod(pod, rng, draft) {
    const labels = pod.metadata.labels;
    if (rng.chance(0.75)) labels.group = rng.pick(groups);
    if (rng.chance(0.4)) labels.version = rng.pick(['v1', 'v2']);
    if (!rng.chance(0.65)) return;
    const list: SpreadConstraintObj[] = [];
    for (let i = rng.chance(0.3) ? 2 : 1; i > 0; i--) {
      const topologyKey = rng.chance(0.5) ? zoneKey : hostnameKey;
      const whenUnsatisfiable = rng.chance(0.5) ? 'DoNotSchedule' : 'ScheduleAnyway';
      // The API refuses two constraints with the same key and action.
      if (
        list.some((c) => c.topologyKey === topologyKey && c.whenUnsatisfiable === whenUnsatisfiable)
      )
        continue;
      const labelSelector = selectorOver(rng, 'group', groups, labels.group);
      const c: SpreadConstraintObj = {
        maxSkew: rng.range(1, 2),
        topologyKey,
        whenUnsatisfiable,
        ...(labelSelector === undefined ? {} : { labelSelector }),
      };
      // minDomains matters when there are fewer domains: zones are few, hostnames many.
      const n = draft.nodes.length;
      if (whenUnsatisfiable === 'DoNotSchedule' && rng.chance(0.3))
        c.minDomains =
          topologyKey === zoneKey ? rng.range(2, 5) : rng.range(Math.max(1, n - 2), n + 2);
      if (rng.chance(0.2)) c.nodeAffinityPolicy = rng.pick(['Honor', 'Ignore']);
      if (rng.chance(0.2)) c.nodeTaintsPolicy = rng.pick(['Honor', 'Ignore']);
      // matchLabelKeys needs a selector that does not name the key already.
      if (
        labelSelector !== undefined &&
        !selectorKeys(labelSelector).has('version') &&
        rng.chance(0.2)
      )
        c.matchLabelKeys = ['version'];
      list.push(c);
    }
    pod.spec.topologySpreadConstraints = list;
  },
};

/** A headless Service selecting `selector`. */
function service(
  name: string,
  selector: Record<string, string>,
  namespace = scenarioNamespace,
): WorkloadObj {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { clusterIP: 'None', selector, ports: [{ port: 80 }] },
  };
}

/** A pod template for a controller (never used: no controller-manager runs, replicas 0). */
function template(labels: Record<string, string>) {
  return {
    metadata: { labels },
    spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
  };
}

/** A ReplicaSet or StatefulSet (apps/v1) with 0 replicas selecting `selector`; `labels` fit it. */
function appsWorkload(
  kind: 'ReplicaSet' | 'StatefulSet',
  name: string,
  selector: LabelSelectorObj,
  labels: Record<string, string>,
): WorkloadObj {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace: scenarioNamespace },
    spec: {
      replicas: 0,
      selector,
      template: template(labels),
      ...(kind === 'StatefulSet' ? { serviceName: 'svc-ss' } : {}),
    },
  };
}

/** The labels a pod owned by `w` carries so that `w`'s selector selects it. */
function labelsFor(w: WorkloadObj): Record<string, string> {
  const t = w.spec.template as { metadata: { labels: Record<string, string> } };
  return t.metadata.labels;
}

/**
 * Cluster-level default spreading: Services (headless, selecting `svc`, `group` or every
 * scenario pod) and controllers (ReplicaSets, now and then a StatefulSet or a
 * ReplicationController, 0 replicas), labelled residents, and pods selected by a Service or
 * owned (controller: true) by a controller, now and then by one that does not exist.
 */
export const defaultSpread: Feature = {
  name: 'defaultSpread',
  sequential: true,
  node: zoneNode,
  workloads(rng, draft) {
    const selectors: Record<string, string>[] = [
      { svc: 's1' },
      { svc: 's2' },
      { group: 'g1' },
      { app: 'berth-diff' },
    ];
    for (let i = rng.range(0, 2); i > 0; i--) {
      const name = `svc-${draft.workloads.length}`;
      draft.workloads.push(service(name, rng.pick(selectors)));
    }
    // Selects pods of its own namespace only: the scenario pods' defaults must ignore it.
    if (rng.chance(0.25)) draft.workloads.push(service('svc-other', { svc: 's1' }, otherNamespace));
    for (let i = rng.range(1, 2); i > 0; i--) {
      const value = `r${draft.workloads.length}`;
      const selector = rng.chance(0.7)
        ? { matchLabels: { rs: value } }
        : { matchExpressions: [{ key: 'rs', operator: 'In', values: [value, 'r-other'] }] };
      draft.workloads.push(appsWorkload('ReplicaSet', `rs-${value}`, selector, { rs: value }));
    }
    if (rng.chance(0.25))
      draft.workloads.push(
        appsWorkload('StatefulSet', 'ss-db', { matchLabels: { ss: 'db' } }, { ss: 'db' }),
      );
    if (rng.chance(0.25))
      draft.workloads.push({
        apiVersion: 'v1',
        kind: 'ReplicationController',
        metadata: { name: 'rc-old', namespace: scenarioNamespace },
        spec: { replicas: 0, selector: { rc: 'old' }, template: template({ rc: 'old' }) },
      });
  },
  residents(node, rng, draft) {
    const controllers = draft.workloads.filter((w) => w.kind !== 'Service');
    const labelled = () => {
      const labels: Record<string, string> = {};
      if (rng.chance(0.5)) labels.svc = rng.pick(['s1', 's2']);
      if (controllers.length > 0 && rng.chance(0.6))
        Object.assign(labels, labelsFor(rng.pick(controllers)));
      return labels;
    };
    for (const r of residentsOn(node, draft))
      if (rng.chance(0.5)) Object.assign(r.metadata.labels, labelled());
    for (let i = rng.pick([0, 0, 1, 2]); i > 0; i--)
      addResident(node, draft, rng, `d${i}`, labelled());
  },
  pod(pod, rng, draft) {
    const labels = pod.metadata.labels;
    if (rng.chance(0.4)) labels.svc = rng.pick(['s1', 's2']);
    const controllers = draft.workloads.filter((w) => w.kind !== 'Service');
    if (controllers.length === 0 || !rng.chance(0.6)) return;
    const owner = rng.pick(controllers);
    // Mostly the owner's labels; now and then the pod does not match its owner's selector.
    if (rng.chance(0.9)) Object.assign(labels, labelsFor(owner));
    const gone = rng.chance(0.05);
    const name = gone ? 'rs-gone' : owner.metadata.name;
    const kind = gone ? 'ReplicaSet' : owner.kind;
    pod.metadata.ownerReferences = [
      {
        apiVersion: gone ? 'apps/v1' : owner.apiVersion,
        kind,
        name,
        uid: ownerPlaceholder(kind, name),
        controller: true,
      },
    ];
  },
};

/** A pod affinity term over `team` (or `group`) with a zone or hostname key, now and then naming namespaces. */
function podTerm(rng: Rng, own: Record<string, string>): PodAffinityTermObj {
  const byGroup = rng.chance(0.2);
  const labelSelector = byGroup
    ? selectorOver(rng, 'group', groups, own.group)
    : selectorOver(rng, 'team', teams, own.team);
  const t: PodAffinityTermObj = {
    topologyKey: rng.chance(0.5) ? zoneKey : hostnameKey,
    ...(labelSelector === undefined ? {} : { labelSelector }),
  };
  const roll = rng.int(20);
  if (roll === 0) t.namespaces = [scenarioNamespace];
  else if (roll === 1) t.namespaces = ['elsewhere'];
  else if (roll === 2) t.namespaceSelector = {};
  else if (roll === 3)
    t.namespaceSelector = { matchLabels: { 'kubernetes.io/metadata.name': scenarioNamespace } };
  else if (roll === 4) t.namespaces = [otherNamespace];
  else if (roll === 5) t.namespaceSelector = { matchLabels: { env: 'other' } };
  else if (roll === 6) t.namespaces = [scenarioNamespace, otherNamespace];
  if (labelSelector !== undefined && !selectorKeys(labelSelector).has('version')) {
    const keys = rng.int(10);
    if (keys === 0) t.matchLabelKeys = ['version'];
    else if (keys === 1) t.mismatchLabelKeys = ['version'];
  }
  return t;
}

function podAffinityOf(rng: Rng, own: Record<string, string>, kinds: number): PodAffinityObj {
  const a: PodAffinityObj = {};
  if (kinds & 1)
    a.requiredDuringSchedulingIgnoredDuringExecution = Array.from({ length: rng.range(1, 2) }, () =>
      podTerm(rng, own),
    );
  if (kinds & 2)
    a.preferredDuringSchedulingIgnoredDuringExecution = Array.from(
      { length: rng.range(1, 2) },
      () => ({
        weight: rng.pick([1, 10, 50, 100]),
        podAffinityTerm: podTerm(rng, own),
      }),
    );
  return a;
}

/** Adds pod affinity and/or anti-affinity (required and/or preferred terms) to `pod`. */
function addPodAffinity(pod: PodObj, rng: Rng): void {
  const labels = pod.metadata.labels;
  pod.spec.affinity ??= {};
  if (rng.chance(0.6)) pod.spec.affinity.podAffinity = podAffinityOf(rng, labels, rng.range(1, 3));
  if (rng.chance(0.6) || pod.spec.affinity.podAffinity === undefined)
    pod.spec.affinity.podAntiAffinity = podAffinityOf(rng, labels, rng.range(1, 3));
}

/**
 * Inter-pod affinity: `team` labels on residents and pods; pods with required and preferred
 * affinity and anti-affinity (zone or hostname keys); residents with their own terms, which
 * kube applies to incoming pods too (existing pods' anti-affinity, and their affinity in
 * scores).
 */
export const podAffinity: Feature = {
  name: 'podAffinity',
  sequential: true,
  node: zoneNode,
  residents(node, rng, draft) {
    const team = () => ({ team: rng.pick(teams) });
    for (const r of residentsOn(node, draft))
      if (rng.chance(0.5)) Object.assign(r.metadata.labels, team());
    for (let i = rng.pick([0, 1, 1, 2]); i > 0; i--) addResident(node, draft, rng, `a${i}`, team());
    for (const r of residentsOn(node, draft)) if (rng.chance(0.15)) addPodAffinity(r, rng);
  },
  pod(pod, rng) {
    if (rng.chance(0.6)) pod.metadata.labels.team = rng.pick(teams);
    if (rng.chance(0.55)) addPodAffinity(pod, rng);
  },
};
