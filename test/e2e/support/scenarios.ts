// Seeded generator of small clusters (kwok nodes, resident pods, pending pods) for the differential test.
import {
  allFeatures,
  baseNode,
  type Draft,
  defaultFeatureNames,
  gi,
  podTemplate,
  scenarioNamespace,
} from './scenario-features.ts';
import {
  type Amounts,
  addAmounts,
  certainNode,
  filterReason,
  hostPorts,
  type NodeObj,
  type PodObj,
  type PortObj,
  podRequests,
} from './scenario-model.ts';
import type { WorkloadObj } from './scenario-topology.ts';

export {
  allFeatures,
  defaultFeatureNames,
  type Feature,
  offByDefault,
  priorityClasses,
  scenarioNamespace,
  scenarioSchedulerName,
  sequentialFeatureNames,
} from './scenario-features.ts';

/**
 * A small seeded generator (mulberry32). The differential test keeps its own instead of
 * berth's src/framework/rng.ts so that a seed names the same scenario whatever berth changes.
 */
export interface Rng {
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
}

/** mulberry32 seeded with `seed` (any 32-bit integer). */
export function rngFrom(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    int,
    range: (lo, hi) => lo + int(hi - lo + 1),
    chance: (p) => next() < p,
    pick: (items) => items[int(items.length)] as (typeof items)[number],
  };
}

/** FNV-1a of `text`: gives each feature its own stream, so toggling one leaves the others' draws alone. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** What every correct scheduler must do with one pending pod, given the scenario. */
export interface Expectation {
  /** Nodes that fit the pod whatever the other pending pods do (empty: it fits nowhere). */
  feasible: string[];
  /** Why each other node rejects it (model reasons, for reports). */
  rejectedBy: Record<string, string>;
  /**
   * The node it must land on: its only feasible node, or one that wins by `decisiveMargin`
   * (in a sequential scenario: whose whole modelled score leads by `exactMargin`).
   */
  node?: string;
  /** A sequential scenario's modelled total score of each feasible node (for reports). */
  scores?: Record<string, number>;
}

/** A generated cluster: create nodes, then workloads, then residents, then pending pods, in this order. */
export interface Scenario {
  seed: number;
  features: string[];
  namespace: string;
  nodes: NodeObj[];
  /** Services and pod controllers (0 replicas) the pods' default spreading reads. */
  workloads: WorkloadObj[];
  residents: PodObj[];
  pending: PodObj[];
  /**
   * Placed one pod at a time (a feature's pods read where others went): each pending pod is
   * created once the previous one settled, and its expectation depends on where
   * kube-scheduler put the earlier ones (`sequentialExpectations`). Otherwise all pending
   * pods are created at once and no pod's fate depends on another's.
   */
  sequential: boolean;
  /** By pending pod name; empty for a sequential scenario until its kube-scheduler run. */
  expectations: Record<string, Expectation>;
}

/** Options of `generateScenario`. */
export interface GenerateOptions {
  /** Feature names to use (default `defaultFeatureNames`); unknown names throw. */
  features?: readonly string[];
  /** Pending pods to aim for (default 8–20 by seed). */
  pods?: number;
}

function used(nodeName: string, residentsOf: readonly PodObj[]): Amounts {
  const u: Amounts = {};
  for (const p of residentsOf) if (p.spec.nodeName === nodeName) addAmounts(u, podRequests(p));
  return u;
}

/**
 * True when no placement of `pods` can change what any of them meets on any node: on each
 * node, every pod gets the same filter verdict (fits, or the same reasons) with only the
 * residents there as with the residents plus every other pod that fits there. Usage and
 * host-port conflicts only grow as pods are placed, so any placement lies between those two
 * and gives the same verdicts. (Fitting is not enough: kube lists every resource a node is
 * short of, so a pod that a node rejects for cpu would also be short of memory there once
 * enough other pods went to that node, and its message would depend on their placement.)
 */
export function placementIndependent(
  pods: readonly PodObj[],
  nodes: readonly NodeObj[],
  usedBy: ReadonlyMap<string, Amounts>,
  portsBy: ReadonlyMap<string, readonly PortObj[]>,
): boolean {
  const wants = pods.map((p) => podRequests(p));
  const ports = pods.map(hostPorts);
  return nodes.every((n) => {
    const name = n.metadata.name;
    const used = usedBy.get(name) ?? {};
    const usedPorts = portsBy.get(name) ?? [];
    const alone = pods.map((p) => filterReason(p, n, used, usedPorts));
    const takers = pods.flatMap((_, i) => (alone[i] === undefined ? [i] : []));
    return pods.every((p, i) => {
      const crowd = { ...used };
      const crowdPorts = [...usedPorts];
      for (const j of takers) {
        if (j === i) continue;
        addAmounts(crowd, wants[j] ?? {});
        crowdPorts.push(...(ports[j] ?? []));
      }
      return filterReason(p, n, crowd, crowdPorts) === alone[i];
    });
  });
}

/**
 * Draws the scenario for `seed`: 4–12 nodes, their workloads and residents, and pending
 * pods. Without a sequential feature, no pending pod's fate depends on where the others go
 * (`placementIndependent`; a candidate that would break it is dropped), so queue order and
 * tie-breaks cannot change who is schedulable, which nodes fit, or why a pod fits nowhere.
 * With one, the scenario is `sequential`: every candidate is kept (without a priority
 * class) and its expectations come from the run (`sequentialExpectations`). Same seed and
 * features, same scenario; no Math.random.
 */
export function generateScenario(seed: number, opts: GenerateOptions = {}): Scenario {
  const names = opts.features ?? defaultFeatureNames;
  for (const n of names)
    if (!allFeatures.some((f) => f.name === n)) throw new Error(`unknown scenario feature "${n}"`);
  const features = allFeatures.filter((f) => names.includes(f.name));
  const stream = (name: string) => rngFrom(hash(`${seed}/${name}`));
  const base = stream('base');
  const draft: Draft = { nodes: [], workloads: [], residents: [] };
  const sequential = features.some((f) => f.sequential === true);

  const nodeCount = base.range(4, 12);
  const shapes = [
    [1000, 2 * gi],
    [2000, 4 * gi],
    [4000, 8 * gi],
    [4000, 16 * gi],
    [8000, 16 * gi],
    [16000, 32 * gi],
  ] as const;
  for (let i = 0; i < nodeCount; i++) {
    const [cpuMilli, memoryMi] = base.pick(shapes);
    draft.nodes.push(baseNode(`n${String(i).padStart(2, '0')}`, cpuMilli, memoryMi));
  }
  for (const f of features) {
    if (f.node === undefined) continue;
    const rng = stream(`${f.name}/nodes`);
    for (const n of draft.nodes) f.node(n, rng, draft);
  }
  for (const f of features) f.workloads?.(stream(`${f.name}/workloads`), draft);
  for (const f of features) {
    if (f.residents === undefined) continue;
    const rng = stream(`${f.name}/residents`);
    for (const n of draft.nodes) f.residents(n, rng, draft);
  }

  const usedBy = new Map(
    draft.nodes.map((n) => [n.metadata.name, used(n.metadata.name, draft.residents)]),
  );
  const portsBy = new Map(
    draft.nodes.map((n) => [
      n.metadata.name,
      draft.residents.filter((r) => r.spec.nodeName === n.metadata.name).flatMap(hostPorts),
    ]),
  );
  const target = opts.pods ?? base.range(8, 20);
  const podStreams = features.map((f) => [f, stream(`${f.name}/pods`)] as const);
  const pending: PodObj[] = [];
  for (let attempt = 0; pending.length < target && attempt < target * 8; attempt++) {
    const pod = podTemplate(`p-${String(pending.length).padStart(2, '0')}`);
    for (const [f, rng] of podStreams) f.pod?.(pod, rng, draft);
    if (sequential) {
      // One priority for all: kube's preemption could otherwise evict an earlier pod (berth has none).
      delete pod.spec.priorityClassName;
      pending.push(pod);
    } else if (placementIndependent([...pending, pod], draft.nodes, usedBy, portsBy))
      pending.push(pod);
  }
  const expectations: Record<string, Expectation> = {};
  for (const pod of sequential ? [] : pending) {
    const rejectedBy: Record<string, string> = {};
    const feasible: NodeObj[] = [];
    for (const n of draft.nodes) {
      const name = n.metadata.name;
      const why = filterReason(pod, n, usedBy.get(name) ?? {}, portsBy.get(name) ?? []);
      if (why === undefined) feasible.push(n);
      else rejectedBy[name] = why;
    }
    const node = certainNode(pod, feasible);
    expectations[pod.metadata.name] = {
      feasible: feasible.map((n) => n.metadata.name),
      rejectedBy,
      ...(node === undefined ? {} : { node }),
    };
  }
  return {
    seed,
    features: features.map((f) => f.name),
    namespace: scenarioNamespace,
    nodes: draft.nodes,
    workloads: draft.workloads,
    residents: draft.residents,
    pending,
    sequential,
    expectations,
  };
}
