// kube-scheduler 1.34's PodTopologySpread, re-stated from kube's source for generated scenarios (never berth's code).
//
// Sources (k8s.io/kubernetes v1.34): pkg/scheduler/framework/plugins/podtopologyspread/
// {common,filtering,scoring}.go, plugins/helper/spread.go (DefaultSelector),
// pkg/registry/core/pod/strategy.go (the API server merges matchLabelKeys into the selector).
import {
  hasUntoleratedTaint,
  type LabelSelectorObj,
  type NodeObj,
  type PodObj,
  requiredNodeAffinityMatches,
  type SpreadConstraintObj,
} from './scenario-model.ts';
import {
  asSelector,
  podsOn,
  type Selector,
  selectorEmpty,
  selectorMatches,
  type World,
  withLabelKeys,
} from './scenario-topology.ts';

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
