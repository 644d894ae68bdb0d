// kube-scheduler 1.34's InterPodAffinity, re-stated from kube's source for generated scenarios (never berth's code).
//
// Sources (k8s.io/kubernetes v1.34): pkg/scheduler/framework/plugins/interpodaffinity/
// {filtering,scoring}.go, framework/types.go (AffinityTerm.Matches),
// pkg/registry/core/pod/strategy.go (the API server merges matchLabelKeys/mismatchLabelKeys).
import type { NodeObj, PodAffinityObj, PodAffinityTermObj, PodObj } from './scenario-model.ts';
import {
  asSelector,
  namespaceLabels,
  type Selector,
  selectorMatches,
  type World,
  withLabelKeys,
} from './scenario-topology.ts';

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
