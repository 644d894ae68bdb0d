// The checks a run's placements pass before its figure counts: no node holds more than it has (cpu, memory, pods), no required anti-affinity or spread broken.
import { parseQuantity } from '../../src/cluster/quantity.ts';

type Resources = Record<string, string | number>;

interface Container {
  resources?: { requests?: Resources };
}

/** What the check reads of a node. */
export interface PlacedNode {
  metadata: { name: string; labels?: Record<string, string> };
  status?: { allocatable?: Resources };
}

/** What the check reads of a pod. */
export interface PlacedPod {
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: {
    nodeName?: string;
    affinity?: {
      podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: AntiTerm[] };
    };
    topologySpreadConstraints?: SpreadConstraint[];
    containers?: Container[];
    initContainers?: Container[];
    overhead?: Resources;
  };
  status?: { phase?: string };
}

/** A required pod anti-affinity term (matchLabels only: the shapes the bench creates). */
interface AntiTerm {
  labelSelector?: { matchLabels?: Record<string, string> };
  topologyKey: string;
  namespaces?: string[];
}

/** The resources checked: cpu and memory (summed requests), and the pod count. */
const summed = ['cpu', 'memory'] as const;

function nanos(raw: string | number | undefined, where: string): bigint {
  if (raw === undefined) return 0n;
  const parsed = parseQuantity(raw);
  if (!parsed.ok) throw new Error(`${where}: ${parsed.error}`);
  return parsed.q.nanos;
}

/**
 * A pod's request of `resource` in nano-units, as the scheduler counts it: the larger of its
 * containers' sum and its largest init container, plus its overhead.
 */
export function podRequest(pod: PlacedPod, resource: string): bigint {
  const where = `pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name}`;
  const of = (c: Container) => nanos(c.resources?.requests?.[resource], where);
  const sum = (pod.spec?.containers ?? []).reduce((s, c) => s + of(c), 0n);
  const init = (pod.spec?.initContainers ?? []).reduce((m, c) => (of(c) > m ? of(c) : m), 0n);
  return (sum > init ? sum : init) + nanos(pod.spec?.overhead?.[resource], where);
}

const shown = (resource: string, n: bigint) =>
  resource === 'cpu' ? `${n / 1_000_000n}m` : `${n / 1_000_000_000n}`;

/**
 * Every overcommitment among `pods` bound to `nodes` (terminal pods left out): a node whose
 * bound pods request more cpu or memory than it has allocatable, or are more than its `pods`;
 * a pod bound to a node not in `nodes`. Empty when the placements hold.
 */
export function overcommitments(
  nodes: readonly PlacedNode[],
  pods: readonly PlacedPod[],
): string[] {
  const byNode = new Map<string, PlacedPod[]>(nodes.map((n) => [n.metadata.name, []]));
  const problems: string[] = [];
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    const phase = pod.status?.phase;
    if (node === undefined || phase === 'Succeeded' || phase === 'Failed') continue;
    const list = byNode.get(node);
    if (list === undefined)
      problems.push(
        `pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name} bound to unknown node ${node}`,
      );
    else list.push(pod);
  }
  for (const node of nodes) {
    const name = node.metadata.name;
    const placed = byNode.get(name) ?? [];
    const has = node.status?.allocatable ?? {};
    for (const resource of summed) {
      const used = placed.reduce((s, p) => s + podRequest(p, resource), 0n);
      const cap = nanos(has[resource], `node ${name}`);
      if (used > cap)
        problems.push(
          `node ${name}: ${resource} ${shown(resource, used)} requested of ${shown(resource, cap)}`,
        );
    }
    const maxPods = nanos(has.pods, `node ${name}`) / 1_000_000_000n;
    if (BigInt(placed.length) > maxPods)
      problems.push(`node ${name}: ${placed.length} pods of ${maxPods}`);
  }
  return problems;
}

/** Whether `pod` is bound and not done (Succeeded or Failed pods hold nothing). */
const boundAndRunning = (pod: PlacedPod) => {
  const phase = pod.status?.phase;
  return pod.spec?.nodeName !== undefined && phase !== 'Succeeded' && phase !== 'Failed';
};

/** The bound, running pods and, for any of them, its node's value of a label. */
function placedOn(nodes: readonly PlacedNode[], pods: readonly PlacedPod[]) {
  const labelsOf = new Map(nodes.map((n) => [n.metadata.name, n.metadata.labels ?? {}]));
  return {
    labelsOf,
    placed: pods.filter(boundAndRunning),
    domainOf: (p: PlacedPod, key: string) => labelsOf.get(p.spec?.nodeName ?? '')?.[key],
  };
}

const podId = (p: PlacedPod) => `${p.metadata.namespace ?? ''}/${p.metadata.name}`;

/**
 * Every broken required pod anti-affinity among the bound, running `pods`: a pod with a term
 * sharing its node's `topologyKey` value with another pod the term selects (matchLabels, in
 * the term's namespaces, by default the pod's own), named from the side of each pod whose
 * term it breaks.
 */
export function antiAffinityViolations(
  nodes: readonly PlacedNode[],
  pods: readonly PlacedPod[],
): string[] {
  const { placed, domainOf } = placedOn(nodes, pods);
  const problems: string[] = [];
  for (const pod of placed)
    for (const term of pod.spec?.affinity?.podAntiAffinity
      ?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
      const domain = domainOf(pod, term.topologyKey);
      if (domain === undefined) continue;
      const namespaces = term.namespaces ?? [pod.metadata.namespace ?? ''];
      const wanted = Object.entries(term.labelSelector?.matchLabels ?? {});
      for (const other of placed) {
        if (other === pod || domainOf(other, term.topologyKey) !== domain) continue;
        if (!namespaces.includes(other.metadata.namespace ?? '')) continue;
        if (wanted.every(([k, v]) => other.metadata.labels?.[k] === v))
          problems.push(
            `pod ${podId(pod)} shares ${term.topologyKey}=${domain} with ${podId(other)} against its anti-affinity`,
          );
      }
    }
  return problems;
}

/** A topology spread constraint (matchLabels only: the shapes the bench creates). */
interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: string;
  labelSelector?: { matchLabels?: Record<string, string> };
}

/**
 * Every DoNotSchedule topology spread constraint of the bound, running `pods` that the final
 * placements break: over the domains of its `topologyKey` (every node value), the pods of
 * its namespace it selects differ by more than `maxSkew` between the fullest and the
 * emptiest domain. Each distinct constraint (namespace, key, selector, skew) is named once.
 */
export function spreadViolations(
  nodes: readonly PlacedNode[],
  pods: readonly PlacedPod[],
): string[] {
  const { labelsOf, placed, domainOf } = placedOn(nodes, pods);
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const pod of pods) {
    for (const c of pod.spec?.topologySpreadConstraints ?? []) {
      if (c.whenUnsatisfiable !== 'DoNotSchedule') continue;
      const ns = pod.metadata.namespace ?? '';
      const wanted = Object.entries(c.labelSelector?.matchLabels ?? {});
      const id = JSON.stringify([ns, c.topologyKey, wanted, c.maxSkew]);
      if (seen.has(id)) continue;
      seen.add(id);
      const counts = new Map<string, number>();
      for (const labels of labelsOf.values()) {
        const domain = labels[c.topologyKey];
        if (domain !== undefined) counts.set(domain, 0);
      }
      for (const p of placed) {
        const domain = domainOf(p, c.topologyKey);
        if (domain === undefined || (p.metadata.namespace ?? '') !== ns) continue;
        if (wanted.every(([k, v]) => p.metadata.labels?.[k] === v))
          counts.set(domain, (counts.get(domain) ?? 0) + 1);
      }
      const values = [...counts.values()];
      const skew = Math.max(...values) - Math.min(...values);
      if (skew > c.maxSkew)
        problems.push(
          `spread over ${c.topologyKey} in ${ns}: skew ${skew} > maxSkew ${c.maxSkew} (${[...counts].map(([d, n]) => `${d}=${n}`).join(', ')})`,
        );
    }
  }
  return problems;
}
