// The check a run's placements pass before its figure counts: no node holds more than it has (cpu, memory, pods).
import { parseQuantity } from '../../src/cluster/quantity.ts';

type Resources = Record<string, string | number>;

interface Container {
  resources?: { requests?: Resources };
}

/** What the check reads of a node. */
export interface PlacedNode {
  metadata: { name: string };
  status?: { allocatable?: Resources };
}

/** What the check reads of a pod. */
export interface PlacedPod {
  metadata: { name: string; namespace?: string };
  spec?: {
    nodeName?: string;
    containers?: Container[];
    initContainers?: Container[];
    overhead?: Resources;
  };
  status?: { phase?: string };
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
