// kube-scheduler 1.34's filters and static scores, re-stated from its docs for generated scenarios (never berth's code).
import { milli } from './invariants.ts';

/** A node taint as the API holds it. */
export type TaintObj = { key: string; value?: string; effect: string };

/** A pod toleration as the API holds it. */
export type TolerationObj = {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
};

/** One requirement of a node selector term (`matchExpressions` or `matchFields`). */
export type RequirementObj = { key: string; operator: string; values?: string[] };

/** A node selector term: requirements ANDed. */
export type TermObj = { matchExpressions?: RequirementObj[]; matchFields?: RequirementObj[] };

/** A weighted preferred node affinity term. */
export type PreferredObj = { weight: number; preference: TermObj };

/** A container port (only host ports matter to scheduling). */
export type PortObj = {
  containerPort: number;
  hostPort?: number;
  protocol?: string;
  hostIP?: string;
};

/** The container fields the generator writes. */
export type ContainerObj = {
  name: string;
  image: string;
  /** `Always` makes an init container a sidecar. */
  restartPolicy?: string;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  ports?: PortObj[];
};

/** A Node as the generator writes it (a plain object, POSTed as is). */
export type NodeObj = {
  apiVersion: 'v1';
  kind: 'Node';
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: { taints?: TaintObj[]; unschedulable?: boolean };
  status: { capacity: Record<string, string>; allocatable: Record<string, string> };
};

/** A label selector of pods or namespaces (metav1.LabelSelector). */
export type LabelSelectorObj = {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
};

/** One `spec.topologySpreadConstraints` entry. */
export type SpreadConstraintObj = {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelectorObj;
  minDomains?: number;
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
  matchLabelKeys?: string[];
};

/** A pod (anti-)affinity term. */
export type PodAffinityTermObj = {
  labelSelector?: LabelSelectorObj;
  topologyKey: string;
  namespaces?: string[];
  namespaceSelector?: LabelSelectorObj;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
};

/** Pod affinity or anti-affinity: required and weighted preferred terms. */
export type PodAffinityObj = {
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTermObj[];
  preferredDuringSchedulingIgnoredDuringExecution?: {
    weight: number;
    podAffinityTerm: PodAffinityTermObj;
  }[];
};

/** An ownerReference (the generator writes `uid` as a placeholder the loader resolves). */
export type OwnerReferenceObj = {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
};

/** A Pod as the generator writes it (a plain object, POSTed as is). */
export type PodObj = {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    ownerReferences?: OwnerReferenceObj[];
  };
  spec: {
    schedulerName: string;
    nodeName?: string;
    priorityClassName?: string;
    nodeSelector?: Record<string, string>;
    affinity?: {
      nodeAffinity?: {
        requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: TermObj[] };
        preferredDuringSchedulingIgnoredDuringExecution?: PreferredObj[];
      };
      podAffinity?: PodAffinityObj;
      podAntiAffinity?: PodAffinityObj;
    };
    topologySpreadConstraints?: SpreadConstraintObj[];
    tolerations?: TolerationObj[];
    terminationGracePeriodSeconds: number;
    initContainers?: ContainerObj[];
    containers: ContainerObj[];
  };
};

/**
 * Resource amounts by name, in thousandths (invariants.ts's `milli`): cpu in millicores,
 * memory in thousandths of a byte, `pods` 1000 per pod slot, extended resources likewise.
 */
export type Amounts = Record<string, number>;

/** Adds `b` into `into`, in place. */
export function addAmounts(into: Amounts, b: Amounts): void {
  for (const [k, v] of Object.entries(b)) into[k] = (into[k] ?? 0) + v;
}

/**
 * A container's requests after admission: each resource's request, or else its limit; then
 * `missing` for each resource in it the container does not name (component-helpers'
 * NonMissingContainerRequests: a request written as 0 is not missing).
 */
function containerRequests(c: ContainerObj, missing: Amounts = {}): Amounts {
  const out: Amounts = {};
  const names = new Set([
    ...Object.keys(c.resources.requests ?? {}),
    ...Object.keys(c.resources.limits ?? {}),
  ]);
  for (const r of names) {
    const q = c.resources.requests?.[r] ?? c.resources.limits?.[r];
    if (q !== undefined) out[r] = milli(q);
  }
  for (const [r, v] of Object.entries(missing)) if (!names.has(r)) out[r] = v;
  return out;
}

/**
 * What a pod takes on its node (component-helpers' PodRequests): app containers plus
 * sidecars, or the largest init container plus the sidecars started before it, whichever
 * is more, per resource; plus one pod slot. `missing` fills each container's unnamed
 * resources first (kube's scoring counts 100m cpu and 200Mi memory there).
 */
export function podRequests(pod: PodObj, missing: Amounts = {}): Amounts {
  const total: Amounts = {};
  for (const c of pod.spec.containers) addAmounts(total, containerRequests(c, missing));
  const sidecars: Amounts = {};
  const initPeak: Amounts = {};
  for (const c of pod.spec.initContainers ?? []) {
    const r = containerRequests(c, missing);
    let running: Amounts;
    if (c.restartPolicy === 'Always') {
      addAmounts(total, r);
      addAmounts(sidecars, r);
      running = sidecars;
    } else {
      running = { ...sidecars };
      addAmounts(running, r);
    }
    for (const [k, v] of Object.entries(running)) initPeak[k] = Math.max(initPeak[k] ?? 0, v);
  }
  for (const [k, v] of Object.entries(initPeak)) total[k] = Math.max(total[k] ?? 0, v);
  total.pods = 1000;
  return total;
}

/** A node's allocatable amounts (a resource it does not list has 0). */
export function allocatable(node: NodeObj): Amounts {
  const out: Amounts = {};
  for (const [k, q] of Object.entries(node.status.allocatable)) out[k] = milli(q);
  return out;
}

/**
 * kube's NodeResourcesFit: the resources `want` lacks room for on a node with `alloc` of
 * which `used` is taken, in kube's order (pods, cpu, memory, ephemeral-storage, the rest by
 * name). A pod slot is always needed; any other resource only when requested.
 */
export function insufficient(want: Amounts, alloc: Amounts, used: Amounts): string[] {
  const fixed = ['pods', 'cpu', 'memory', 'ephemeral-storage'];
  const names = [
    ...fixed,
    ...Object.keys(want)
      .filter((k) => !fixed.includes(k))
      .sort(),
  ];
  return names.filter((r) => {
    const w = want[r] ?? 0;
    return (r === 'pods' || w > 0) && w > (alloc[r] ?? 0) - (used[r] ?? 0);
  });
}

/** kube's Toleration.ToleratesTaint (Equal/empty operator compares values; Exists any). */
export function tolerates(t: TolerationObj, taint: TaintObj): boolean {
  if ((t.effect ?? '') !== '' && t.effect !== taint.effect) return false;
  if ((t.key ?? '') !== '' && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  return (t.operator ?? 'Equal') === 'Equal' && (t.value ?? '') === (taint.value ?? '');
}

function toleratedBy(pod: PodObj, taint: TaintObj): boolean {
  return (pod.spec.tolerations ?? []).some((t) => tolerates(t, taint));
}

const int64 = /^[+-]?\d+$/;

/** labels.Requirement.Matches for node labels (Gt/Lt need two integers, else no match). */
export function requirementMatches(r: RequirementObj, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return has && values.includes(value as string);
    case 'NotIn':
      return !has || !values.includes(value as string);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const bound = values[0];
      if (!has || !int64.test(value as string) || bound === undefined || !int64.test(bound))
        return false;
      const diff = BigInt(value as string) - BigInt(bound);
      return r.operator === 'Gt' ? diff > 0n : diff < 0n;
    }
    default:
      return false;
  }
}

/** A node selector term against a node: every expression and field matches; an empty term never does. */
export function termMatches(term: TermObj, node: NodeObj): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const nodeFields = { 'metadata.name': node.metadata.name };
  return (
    exprs.every((r) => requirementMatches(r, node.metadata.labels)) &&
    fields.every((r) => requirementMatches(r, nodeFields))
  );
}

function selectorMatchesNode(pod: PodObj, node: NodeObj): boolean {
  const selector = pod.spec.nodeSelector ?? {};
  return Object.entries(selector).every(([k, v]) => node.metadata.labels[k] === v);
}

function requiredTermsMatchNode(pod: PodObj, node: NodeObj): boolean {
  const required = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return required === undefined || required.nodeSelectorTerms.some((t) => termMatches(t, node));
}

/** kube's RequiredNodeAffinity.Match: the pod's nodeSelector and required node affinity both match. */
export function requiredNodeAffinityMatches(pod: PodObj, node: NodeObj): boolean {
  return selectorMatchesNode(pod, node) && requiredTermsMatchNode(pod, node);
}

/** Whether `node` has a NoSchedule or NoExecute taint the pod does not tolerate. */
export function hasUntoleratedTaint(pod: PodObj, node: NodeObj): boolean {
  return (node.spec.taints ?? []).some(
    (t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !toleratedBy(pod, t),
  );
}

/**
 * Why the generated pod cannot go to `node` whatever else is placed, by kube's filters in
 * kube's order (NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts,
 * NodeResourcesFit), or undefined when it fits. `used` is what the node's residents take.
 */
export function filterReason(
  pod: PodObj,
  node: NodeObj,
  used: Amounts,
  usedPorts: readonly PortObj[],
): string | undefined {
  const unschedulableTaint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };
  if (node.spec.unschedulable === true && !toleratedBy(pod, unschedulableTaint))
    return 'NodeUnschedulable';
  for (const taint of node.spec.taints ?? []) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!toleratedBy(pod, taint)) return `TaintToleration ${taint.key}`;
  }
  if (!selectorMatchesNode(pod, node)) return 'NodeAffinity nodeSelector';
  if (!requiredTermsMatchNode(pod, node)) return 'NodeAffinity required';
  if (hostPorts(pod).some((p) => usedPorts.some((q) => portsConflict(p, q)))) return 'NodePorts';
  const short = insufficient(podRequests(pod), allocatable(node), used);
  if (short.length === 0) return undefined;
  return short.map((r) => (r === 'pods' ? 'Too many pods' : `Insufficient ${r}`)).join(', ');
}

/** The container ports of `pod` that claim a host port. */
export function hostPorts(pod: PodObj): PortObj[] {
  return pod.spec.containers.flatMap((c) => (c.ports ?? []).filter((p) => (p.hostPort ?? 0) > 0));
}

/** kube's HostPortInfo conflict: same port and protocol, and overlapping host IPs (empty = all). */
export function portsConflict(a: PortObj, b: PortObj): boolean {
  if (a.hostPort !== b.hostPort || (a.protocol ?? 'TCP') !== (b.protocol ?? 'TCP')) return false;
  const ip = (p: PortObj) => (p.hostIP === undefined || p.hostIP === '' ? '0.0.0.0' : p.hostIP);
  return ip(a) === '0.0.0.0' || ip(b) === '0.0.0.0' || ip(a) === ip(b);
}

/** kube's DefaultNormalizeScore with MaxNodeScore 100 (integer division, as in Go). */
function normalize(raw: number[], reverse: boolean): number[] {
  const max = Math.max(0, ...raw);
  if (max === 0) return raw.map(() => (reverse ? 100 : 0));
  return raw.map((s) => {
    const n = Math.trunc((100 * s) / max);
    return reverse ? 100 - n : n;
  });
}

/**
 * The part of kube's default score that does not depend on where other pods went, for each
 * of `feasible`: NodeAffinity's preferred terms (weight 2) and TaintToleration's untolerated
 * PreferNoSchedule taints (weight 3), each normalised over the feasible nodes. The rest of
 * the default profile moves a node's total by at most 200 for these pods: NodeResourcesFit
 * and NodeResourcesBalancedAllocation (weight 1, 0–100 each); PodTopologySpread,
 * InterPodAffinity, ImageLocality and VolumeBinding score every node alike here (bare pods
 * without affinity, nodes without images, no volumes).
 */
export function staticScores(pod: PodObj, feasible: readonly NodeObj[]): number[] {
  const preferred =
    pod.spec.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
  const affinity = feasible.map((n) =>
    preferred.reduce(
      (s, t) => s + (t.weight > 0 && termMatches(t.preference, n) ? t.weight : 0),
      0,
    ),
  );
  const preferTolerations = (pod.spec.tolerations ?? []).filter(
    (t) => (t.effect ?? '') === '' || t.effect === 'PreferNoSchedule',
  );
  const taints = feasible.map(
    (n) =>
      (n.spec.taints ?? []).filter(
        (taint) =>
          taint.effect === 'PreferNoSchedule' &&
          !preferTolerations.some((t) => tolerates(t, taint)),
      ).length,
  );
  const a = normalize(affinity, false);
  const t = normalize(taints, true);
  return feasible.map((_, i) => 2 * (a[i] as number) + 3 * (t[i] as number));
}

/** How far ahead of every other feasible node a node's static score must be to win for sure. */
export const decisiveMargin = 201;

/**
 * The node every correct scheduler must pick among `feasible` for `pod`: the only one, or
 * the one whose static score beats all others by `decisiveMargin`; undefined when scores
 * that depend on placement order (or a random tie-break) could decide.
 */
export function certainNode(pod: PodObj, feasible: readonly NodeObj[]): string | undefined {
  if (feasible.length === 1) return feasible[0]?.metadata.name;
  if (feasible.length === 0) return undefined;
  const scores = staticScores(pod, feasible);
  const best = Math.max(...scores);
  const winners = scores.flatMap((s, i) => (s === best ? [i] : []));
  const runnerUp = Math.max(...scores.filter((s) => s !== best), Number.NEGATIVE_INFINITY);
  if (winners.length !== 1 || best - runnerUp < decisiveMargin) return undefined;
  return feasible[winners[0] as number]?.metadata.name;
}
