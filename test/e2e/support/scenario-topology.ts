// kube-scheduler 1.34's PodTopologySpread and InterPodAffinity, re-stated from kube's source for generated scenarios (never berth's code).
//
// Sources (k8s.io/kubernetes v1.34): pkg/scheduler/framework/plugins/podtopologyspread/
// {common,filtering,scoring}.go, plugins/helper/spread.go (DefaultSelector),
// plugins/interpodaffinity/{filtering,scoring}.go, pkg/registry/core/pod/strategy.go (the
// API server merges matchLabelKeys/mismatchLabelKeys into the label selector).
import {
  hasUntoleratedTaint,
  type LabelSelectorObj,
  type NodeObj,
  type PodAffinityObj,
  type PodAffinityTermObj,
  type PodObj,
  type RequirementObj,
  requiredNodeAffinityMatches,
  requirementMatches,
  type SpreadConstraintObj,
} from './scenario-model.ts';

/** A Service, ReplicaSet, StatefulSet or ReplicationController as the generator writes it. */
export type WorkloadObj = {
  apiVersion: string;
  kind: 'Service' | 'ReplicaSet' | 'StatefulSet' | 'ReplicationController';
  metadata: { name: string; namespace: string };
  /** A map for Services and ReplicationControllers, a LabelSelector for the apps/v1 kinds. */
  spec: { selector?: Record<string, string> | LabelSelectorObj; [field: string]: unknown };
};

/** A pod bound to a node (a resident, or a pending pod a scheduler placed). */
export interface Placed {
  pod: PodObj;
  node: string;
}

/** What the plugins read besides the pod: every node, the placed pods, the workloads. */
export interface World {
  nodes: readonly NodeObj[];
  placed: readonly Placed[];
  workloads: readonly WorkloadObj[];
}

/** The labels kube gives every namespace (`kubernetes.io/metadata.name`); the scenarios add none. */
export function namespaceLabels(namespace: string): Record<string, string> {
  return { 'kubernetes.io/metadata.name': namespace };
}

/** labels.Selector: `nothing` matches no set (a nil LabelSelector); no requirements matches all. */
export interface Selector {
  nothing: boolean;
  reqs: RequirementObj[];
}

/** metav1.LabelSelectorAsSelector: absent → Nothing; matchLabels become `In [value]`. */
export function asSelector(sel: LabelSelectorObj | undefined): Selector {
  if (sel === undefined) return { nothing: true, reqs: [] };
  const reqs: RequirementObj[] = Object.entries(sel.matchLabels ?? {}).map(([key, v]) => ({
    key,
    operator: 'In',
    values: [v],
  }));
  for (const e of sel.matchExpressions ?? []) reqs.push({ ...e });
  return { nothing: false, reqs };
}

/** selector.Matches(labels). */
export function selectorMatches(s: Selector, labels: Record<string, string>): boolean {
  return !s.nothing && s.reqs.every((r) => requirementMatches(r, labels));
}

/** selector.Empty(): no requirements (Nothing is not empty). */
function selectorEmpty(s: Selector): boolean {
  return !s.nothing && s.reqs.length === 0;
}

/** `sel` plus `key In|NotIn [pod's value]` for each listed key the pod has; Nothing stays Nothing. */
function withLabelKeys(
  s: Selector,
  labels: Record<string, string>,
  keys: readonly string[] | undefined,
  operator: 'In' | 'NotIn',
): Selector {
  if (s.nothing) return s;
  const extra = (keys ?? []).flatMap((key) =>
    Object.hasOwn(labels, key) ? [{ key, operator, values: [labels[key] as string] }] : [],
  );
  return { nothing: false, reqs: [...s.reqs, ...extra] };
}

const labelHostname = 'kubernetes.io/hostname';
const labelZone = 'topology.kubernetes.io/zone';

/** A spread constraint as kube's plugin holds it (defaults applied, selector merged). */
export interface Spread {
  maxSkew: number;
  topologyKey: string;
  selector: Selector;
  minDomains: number;
  honorAffinity: boolean;
  honorTaints: boolean;
}

function podsOn(world: World, node: string): PodObj[] {
  return world.placed.filter((p) => p.node === node).map((p) => p.pod);
}

/**
 * kube's DefaultSelector: the selectors of the Services in the pod's namespace that select
 * it, merged; then its controller's: a ReplicationController's map merged in, a ReplicaSet's
 * or StatefulSet's requirements added. An owner that does not exist adds nothing.
 */
export function defaultSelector(pod: PodObj, world: World): Selector {
  const ns = pod.metadata.namespace;
  const set: Record<string, string> = {};
  for (const w of world.workloads) {
    if (w.kind !== 'Service' || w.metadata.namespace !== ns || w.spec.selector === undefined)
      continue;
    const sel = w.spec.selector as Record<string, string>;
    if (Object.entries(sel).every(([k, v]) => pod.metadata.labels[k] === v))
      Object.assign(set, sel);
  }
  const fromSet = () => asSelector({ matchLabels: { ...set } });
  let selector = fromSet();
  const owner = (pod.metadata.ownerReferences ?? []).find((o) => o.controller === true);
  if (owner === undefined) return selector;
  const w = world.workloads.find(
    (x) =>
      x.kind === owner.kind &&
      x.apiVersion === owner.apiVersion &&
      x.metadata.namespace === ns &&
      x.metadata.name === owner.name,
  );
  if (w === undefined) return selector;
  if (w.kind === 'ReplicationController') {
    Object.assign(set, w.spec.selector as Record<string, string>);
    selector = fromSet();
  } else if (w.kind === 'ReplicaSet' || w.kind === 'StatefulSet') {
    const other = asSelector(w.spec.selector as LabelSelectorObj);
    selector = { nothing: false, reqs: [...selector.reqs, ...other.reqs] };
  }
  return selector;
}

/** The system default constraints (hostname 3, zone 5, both ScheduleAnyway). */
const systemDefaults: readonly SpreadConstraintObj[] = [
  { maxSkew: 3, topologyKey: labelHostname, whenUnsatisfiable: 'ScheduleAnyway' },
  { maxSkew: 5, topologyKey: labelZone, whenUnsatisfiable: 'ScheduleAnyway' },
];

/**
 * kube's getConstraints / initPreScoreState: the pod's own constraints of `action` if it has
 * any constraint at all, else the system defaults of `action` with the default selector
 * (none when that selector is empty).
 */
export function spreadConstraints(
  pod: PodObj,
  world: World,
  action: 'DoNotSchedule' | 'ScheduleAnyway',
): Spread[] {
  const own = pod.spec.topologySpreadConstraints ?? [];
  const labels = pod.metadata.labels;
  if (own.length > 0)
    return own
      .filter((c) => c.whenUnsatisfiable === action)
      .map((c) => ({
        maxSkew: c.maxSkew,
        topologyKey: c.topologyKey,
        selector: withLabelKeys(asSelector(c.labelSelector), labels, c.matchLabelKeys, 'In'),
        minDomains: c.minDomains ?? 1,
        honorAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
        honorTaints: (c.nodeTaintsPolicy ?? 'Ignore') === 'Honor',
      }));
  const defaults = systemDefaults.filter((c) => c.whenUnsatisfiable === action);
  if (defaults.length === 0) return [];
  const selector = defaultSelector(pod, world);
  if (selectorEmpty(selector)) return [];
  return defaults.map((c) => ({
    maxSkew: c.maxSkew,
    topologyKey: c.topologyKey,
    selector,
    minDomains: 1,
    honorAffinity: true,
    honorTaints: false,
  }));
}

function hasAllKeys(node: NodeObj, cs: readonly Spread[]): boolean {
  return cs.every((c) => Object.hasOwn(node.metadata.labels, c.topologyKey));
}

function included(c: Spread, pod: PodObj, node: NodeObj): boolean {
  if (c.honorAffinity && !requiredNodeAffinityMatches(pod, node)) return false;
  if (c.honorTaints && hasUntoleratedTaint(pod, node)) return false;
  return true;
}

/** countPodsMatchSelector: pods of `namespace` on the node the selector matches; 0 for an empty selector. */
function countMatching(pods: readonly PodObj[], s: Selector, namespace: string): number {
  if (selectorEmpty(s)) return 0;
  return pods.filter(
    (p) => p.metadata.namespace === namespace && selectorMatches(s, p.metadata.labels),
  ).length;
}

/** Model reasons of the spread filter (kube's ErrReasonNodeLabelNotMatch / ErrReasonConstraintsNotMatch). */
export const spreadMissingLabel = 'PodTopologySpread missing required label';
export const spreadSkew = 'PodTopologySpread skew';

/**
 * kube's PodTopologySpread PreFilter + Filter over every node: for each DoNotSchedule
 * constraint, matching pods per domain over the nodes having every constraint's key and
 * passing the constraint's inclusion policies; a node lacking a key is rejected, else one
 * whose domain count + self-match − global minimum (0 below minDomains domains) exceeds
 * maxSkew. Returns each node's reason, or undefined when it passes.
 */
export function spreadFilter(pod: PodObj, world: World): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  const hard = spreadConstraints(pod, world, 'DoNotSchedule');
  const ns = pod.metadata.namespace;
  const counts = hard.map(() => new Map<string, number>());
  for (const node of world.nodes) {
    if (!hasAllKeys(node, hard)) continue;
    const pods = podsOn(world, node.metadata.name);
    hard.forEach((c, i) => {
      if (!included(c, pod, node)) return;
      const v = node.metadata.labels[c.topologyKey] as string;
      const m = counts[i] as Map<string, number>;
      m.set(v, (m.get(v) ?? 0) + countMatching(pods, c.selector, ns));
    });
  }
  const minMatch = hard.map((c, i) => {
    const m = counts[i] as Map<string, number>;
    return m.size < c.minDomains ? 0 : Math.min(...m.values());
  });
  for (const node of world.nodes) {
    let reason: string | undefined;
    for (let i = 0; i < hard.length && reason === undefined; i++) {
      const c = hard[i] as Spread;
      const v = node.metadata.labels[c.topologyKey];
      if (v === undefined) {
        reason = spreadMissingLabel;
        break;
      }
      const self = selectorMatches(c.selector, pod.metadata.labels) ? 1 : 0;
      const skew =
        ((counts[i] as Map<string, number>).get(v) ?? 0) + self - (minMatch[i] as number);
      if (skew > c.maxSkew) reason = spreadSkew;
    }
    out.set(node.metadata.name, reason);
  }
  return out;
}

/** Go's math.Round: half away from zero. */
function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/**
 * kube's PodTopologySpread PreScore + Score + NormalizeScore for the feasible nodes, 0–100
 * each (all 0 when PreScore skips: no ScheduleAnyway constraint). With the pod's own
 * constraints, feasible nodes lacking a key are ignored (score 0); with the system defaults
 * they are not, and a missing key reads as the empty value.
 */
export function spreadScores(pod: PodObj, feasible: readonly NodeObj[], world: World): number[] {
  const soft = spreadConstraints(pod, world, 'ScheduleAnyway');
  if (soft.length === 0) return feasible.map(() => 0);
  const requireAll = (pod.spec.topologySpreadConstraints ?? []).length > 0;
  const ns = pod.metadata.namespace;
  const ignored = new Set<string>();
  const counts = soft.map(() => new Map<string, number>());
  for (const node of feasible) {
    if (requireAll && !hasAllKeys(node, soft)) {
      ignored.add(node.metadata.name);
      continue;
    }
    soft.forEach((c, i) => {
      if (c.topologyKey === labelHostname) return;
      (counts[i] as Map<string, number>).set(node.metadata.labels[c.topologyKey] ?? '', 0);
    });
  }
  const weights = soft.map((c, i) =>
    Math.log(
      (c.topologyKey === labelHostname
        ? feasible.length - ignored.size
        : (counts[i] as Map<string, number>).size) + 2,
    ),
  );
  for (const node of world.nodes) {
    if (requireAll && !hasAllKeys(node, soft)) continue;
    const pods = podsOn(world, node.metadata.name);
    soft.forEach((c, i) => {
      if (!included(c, pod, node)) return;
      const m = counts[i] as Map<string, number>;
      const v = node.metadata.labels[c.topologyKey] ?? '';
      const current = m.get(v);
      if (current !== undefined) m.set(v, current + countMatching(pods, c.selector, ns));
    });
  }
  const raw = feasible.map((node) => {
    if (ignored.has(node.metadata.name)) return 0;
    let score = 0;
    soft.forEach((c, i) => {
      const v = node.metadata.labels[c.topologyKey];
      if (v === undefined) return;
      const cnt =
        c.topologyKey === labelHostname
          ? countMatching(podsOn(world, node.metadata.name), c.selector, ns)
          : ((counts[i] as Map<string, number>).get(v) as number);
      score += cnt * (weights[i] as number) + (c.maxSkew - 1);
    });
    return goRound(score);
  });
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  feasible.forEach((node, i) => {
    if (ignored.has(node.metadata.name)) return;
    min = Math.min(min, raw[i] as number);
    max = Math.max(max, raw[i] as number);
  });
  return feasible.map((node, i) => {
    if (ignored.has(node.metadata.name)) return 0;
    if (max === 0) return 100;
    return Math.trunc((100 * (max + min - (raw[i] as number))) / max);
  });
}

/** A pod affinity term as kube holds it: namespaces, namespace selector, merged label selector. */
interface Term {
  topologyKey: string;
  namespaces: Set<string>;
  namespaceSelector: Selector;
  selector: Selector;
  weight: number;
}

function affinityTerm(owner: PodObj, t: PodAffinityTermObj, weight = 0): Term {
  const namespaces = new Set(
    (t.namespaces ?? []).length === 0 && t.namespaceSelector === undefined
      ? [owner.metadata.namespace]
      : (t.namespaces ?? []),
  );
  const labels = owner.metadata.labels;
  let selector = asSelector(t.labelSelector);
  selector = withLabelKeys(selector, labels, t.matchLabelKeys, 'In');
  selector = withLabelKeys(selector, labels, t.mismatchLabelKeys, 'NotIn');
  return {
    topologyKey: t.topologyKey,
    namespaces,
    namespaceSelector: asSelector(t.namespaceSelector),
    selector,
    weight,
  };
}

/** AffinityTerm.Matches: the pod's namespace is listed or selected, and its labels match. */
function termMatchesPod(t: Term, pod: PodObj): boolean {
  const ns = pod.metadata.namespace;
  const nsOk = t.namespaces.has(ns) || selectorMatches(t.namespaceSelector, namespaceLabels(ns));
  return nsOk && selectorMatches(t.selector, pod.metadata.labels);
}

/** A pod's affinity terms by kind. */
interface Terms {
  affinity: Term[];
  antiAffinity: Term[];
  preferredAffinity: Term[];
  preferredAntiAffinity: Term[];
}

function termsOf(pod: PodObj): Terms {
  const a = pod.spec.affinity;
  const req = (x: PodAffinityObj | undefined) =>
    (x?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(pod, t));
  const pref = (x: PodAffinityObj | undefined) =>
    (x?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) =>
      affinityTerm(pod, w.podAffinityTerm, w.weight),
    );
  return {
    affinity: req(a?.podAffinity),
    antiAffinity: req(a?.podAntiAffinity),
    preferredAffinity: pref(a?.podAffinity),
    preferredAntiAffinity: pref(a?.podAntiAffinity),
  };
}

const pairKey = (key: string, value: string) => `${key}\u0000${value}`;

/** Model reasons of the inter-pod affinity filter, in kube's order. */
export const affinityNotMatch = 'InterPodAffinity affinity';
export const antiAffinityNotMatch = 'InterPodAffinity anti-affinity';
export const existingAntiAffinityNotMatch = 'InterPodAffinity existing anti-affinity';

/**
 * kube's InterPodAffinity PreFilter + Filter for every node: the pod's required affinity
 * (every term's key on the node, and a pod matching all terms in the node's domain of each
 * term — unless no such pod exists anywhere and the pod matches its own terms), its
 * required anti-affinity (no matching pod in the node's domain of any term), and the
 * placed pods' required anti-affinity terms matching the pod (no such term's pod in any
 * domain the node is in). Returns each node's reason, or undefined.
 */
export function affinityFilter(pod: PodObj, world: World): Map<string, string | undefined> {
  const own = termsOf(pod);
  const nodes = new Map(world.nodes.map((n) => [n.metadata.name, n]));
  const existing = new Map<string, number>();
  const affinity = new Map<string, number>();
  const anti = new Map<string, number>();
  const bump = (m: Map<string, number>, node: NodeObj, key: string) => {
    const v = node.metadata.labels[key];
    if (v !== undefined) m.set(pairKey(key, v), (m.get(pairKey(key, v)) ?? 0) + 1);
  };
  const matchesAll = (terms: Term[], p: PodObj) =>
    terms.length > 0 && terms.every((t) => termMatchesPod(t, p));
  for (const { pod: other, node: name } of world.placed) {
    const node = nodes.get(name);
    if (node === undefined) continue;
    for (const t of termsOf(other).antiAffinity)
      if (termMatchesPod(t, pod)) bump(existing, node, t.topologyKey);
    if (matchesAll(own.affinity, other))
      for (const t of own.affinity) bump(affinity, node, t.topologyKey);
    for (const t of own.antiAffinity) if (termMatchesPod(t, other)) bump(anti, node, t.topologyKey);
  }
  const out = new Map<string, string | undefined>();
  for (const node of world.nodes) {
    const labels = node.metadata.labels;
    let reason: string | undefined;
    let podsExist = true;
    let lacksKey = false;
    for (const t of own.affinity) {
      const v = labels[t.topologyKey];
      if (v === undefined) lacksKey = true;
      else if ((affinity.get(pairKey(t.topologyKey, v)) ?? 0) <= 0) podsExist = false;
    }
    if (lacksKey || (!podsExist && !(affinity.size === 0 && matchesAll(own.affinity, pod))))
      reason = affinityNotMatch;
    else if (
      own.antiAffinity.some((t) => {
        const v = labels[t.topologyKey];
        return v !== undefined && (anti.get(pairKey(t.topologyKey, v)) ?? 0) > 0;
      })
    )
      reason = antiAffinityNotMatch;
    else if (Object.entries(labels).some(([k, v]) => (existing.get(pairKey(k, v)) ?? 0) > 0))
      reason = existingAntiAffinityNotMatch;
    out.set(node.metadata.name, reason);
  }
  return out;
}

/**
 * kube's InterPodAffinity PreScore + Score + NormalizeScore for the feasible nodes, 0–100
 * (all 0 when PreScore skips: no term matched anywhere). Per (key, value) of every placed
 * pod's node: the pod's preferred affinity (+weight) and anti-affinity (−weight) terms the
 * placed pod matches, and the placed pod's required affinity (+1, hardPodAffinityWeight),
 * preferred affinity (+weight) and anti-affinity (−weight) terms the pod matches. A node
 * scores the sum over its labels; min–max normalised.
 */
export function affinityScores(pod: PodObj, feasible: readonly NodeObj[], world: World): number[] {
  const own = termsOf(pod);
  const nodes = new Map(world.nodes.map((n) => [n.metadata.name, n]));
  const scores = new Map<string, Map<string, number>>();
  const add = (t: Term, node: NodeObj, delta: number) => {
    const v = node.metadata.labels[t.topologyKey];
    if (v === undefined) return;
    const m = scores.get(t.topologyKey) ?? new Map<string, number>();
    scores.set(t.topologyKey, m);
    m.set(v, (m.get(v) ?? 0) + delta);
  };
  for (const { pod: other, node: name } of world.placed) {
    const node = nodes.get(name);
    if (node === undefined) continue;
    for (const t of own.preferredAffinity) if (termMatchesPod(t, other)) add(t, node, t.weight);
    for (const t of own.preferredAntiAffinity)
      if (termMatchesPod(t, other)) add(t, node, -t.weight);
    const theirs = termsOf(other);
    for (const t of theirs.affinity) if (termMatchesPod(t, pod)) add(t, node, 1);
    for (const t of theirs.preferredAffinity) if (termMatchesPod(t, pod)) add(t, node, t.weight);
    for (const t of theirs.preferredAntiAffinity)
      if (termMatchesPod(t, pod)) add(t, node, -t.weight);
  }
  if (scores.size === 0) return feasible.map(() => 0);
  const raw = feasible.map((n) => {
    let s = 0;
    for (const [key, values] of scores) {
      const v = n.metadata.labels[key];
      if (v !== undefined) s += values.get(v) ?? 0;
    }
    return s;
  });
  const min = Math.min(...raw);
  const diff = Math.max(...raw) - min;
  return raw.map((s) => (diff > 0 ? Math.trunc(100 * ((s - min) / diff)) : 0));
}
