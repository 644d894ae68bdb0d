// Checks on the API objects and berth's record: no node over capacity, no pod bound twice.
// Quantities and pod requests are computed here independently of berth's own code.
import { readFileSync } from 'node:fs';
import type { EventJson, Kubectl, NodeJson, PodJson } from './kubectl.ts';

const suffixes: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * A Kubernetes quantity in thousandths of its unit, rounded up (kube rounds cpu up to whole
 * millicores): "100m" → 100, "2" → 2000, "1Ki" → 1,024,000. Throws on malformed text.
 */
export function milli(quantity: string): number {
  const m =
    /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(
      quantity.trim(),
    );
  if (m?.[1] === undefined) throw new Error(`not a quantity: ${JSON.stringify(quantity)}`);
  return Math.ceil(Number(m[1]) * (suffixes[m[2] ?? ''] ?? 1) * 1000 - 1e-6);
}

/** The resources the fit check counts, in thousandths. */
export interface Usage {
  cpu: number;
  memory: number;
  pods: number;
}

function request(c: { resources?: { requests?: Record<string, string> } }, r: string): number {
  const q = c.resources?.requests?.[r];
  return q === undefined ? 0 : milli(q);
}

/**
 * A pod's effective request of `resource` as kube-scheduler computes it: max(app containers
 * plus sidecars, the largest init container plus the sidecars started before it) + overhead.
 */
export function podRequest(pod: PodJson, resource: 'cpu' | 'memory'): number {
  let sidecars = 0;
  let initPeak = 0;
  for (const c of pod.spec.initContainers ?? []) {
    const r = request(c, resource);
    if (c.restartPolicy === 'Always') {
      sidecars += r;
      initPeak = Math.max(initPeak, sidecars);
    } else initPeak = Math.max(initPeak, sidecars + r);
  }
  const app = pod.spec.containers.reduce((sum, c) => sum + request(c, resource), 0);
  const overhead = pod.spec.overhead?.[resource];
  return Math.max(app + sidecars, initPeak) + (overhead === undefined ? 0 : milli(overhead));
}

/** True for pods whose resources no longer count on their node (Succeeded or Failed). */
export function isTerminal(pod: PodJson): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** A node whose bound, non-terminal pods request more than it can allocate. */
export interface Overcommit {
  node: string;
  resource: keyof Usage;
  requested: number;
  allocatable: number;
}

/**
 * Sums the requests of non-terminal pods bound to each node (terminating pods still count)
 * and returns every node and resource (cpu, memory, pod count) over allocatable.
 */
export function overcommits(nodes: NodeJson[], pods: PodJson[]): Overcommit[] {
  const used = new Map<string, Usage>();
  for (const p of pods) {
    const node = p.spec.nodeName;
    if (node === undefined || isTerminal(p)) continue;
    const u = used.get(node) ?? { cpu: 0, memory: 0, pods: 0 };
    u.cpu += podRequest(p, 'cpu');
    u.memory += podRequest(p, 'memory');
    u.pods += 1000;
    used.set(node, u);
  }
  const out: Overcommit[] = [];
  for (const n of nodes) {
    const alloc = n.status?.allocatable ?? n.status?.capacity ?? {};
    const u = used.get(n.metadata.name) ?? { cpu: 0, memory: 0, pods: 0 };
    for (const resource of ['cpu', 'memory', 'pods'] as const) {
      const q = alloc[resource];
      const allocatable = q === undefined ? 0 : milli(q);
      if (u[resource] > allocatable)
        out.push({ node: n.metadata.name, resource, requested: u[resource], allocatable });
    }
  }
  return out;
}

/** Reads nodes and all pods through the API and returns `overcommits` of them. */
export async function clusterOvercommits(kubectl: Kubectl): Promise<Overcommit[]> {
  const [nodes, pods] = await Promise.all([kubectl.nodes(), kubectl.pods()]);
  return overcommits(nodes, pods);
}

/** Pods (`namespace/name`) whose Scheduled Events name more than one node, or repeat. */
export function repeatedScheduledEvents(events: EventJson[]): Record<string, string[]> {
  const byPod = new Map<string, string[]>();
  for (const e of events) {
    if (e.reason !== 'Scheduled' || e.regarding?.name === undefined) continue;
    const key = `${e.regarding.namespace}/${e.regarding.name}`;
    byPod.set(key, [...(byPod.get(key) ?? []), e.note ?? '']);
  }
  const out: Record<string, string[]> = {};
  for (const [key, notes] of byPod) if (notes.length > 1) out[key] = notes;
  return out;
}

/** One line of a berth record (header, event envelope, or closing digest). */
export type RecordLine = Record<string, unknown> & {
  kind?: string;
  seq?: number;
  event?: Record<string, unknown> & { type?: string; key?: string; node?: string; kind?: string };
};

/**
 * Reads a berth record. A last line cut short by a crash is skipped; every complete line
 * must be JSON.
 */
export function readRecord(path: string): RecordLine[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const out: RecordLine[] = [];
  for (const [i, line] of lines.entries()) {
    if (line === '') continue;
    try {
      out.push(JSON.parse(line) as RecordLine);
    } catch (error) {
      if (i === lines.length - 1) continue;
      throw new Error(`${path}:${i + 1}: not JSON: ${(error as Error).message}`);
    }
  }
  return out;
}

/** The event envelopes of a record whose event has `type`. */
export function recordEvents(record: RecordLine[], type: string): RecordLine[] {
  return record.filter((l) => l.event?.type === type);
}

/** `key → nodes` for every pod with more than one BindSucceeded across the given records. */
export function doubleBindSuccesses(records: RecordLine[][]): Record<string, string[]> {
  const binds = new Map<string, string[]>();
  for (const record of records) {
    for (const l of recordEvents(record, 'BindSucceeded')) {
      const key = String(l.event?.key);
      binds.set(key, [...(binds.get(key) ?? []), String(l.event?.node)]);
    }
  }
  const out: Record<string, string[]> = {};
  for (const [key, nodes] of binds) if (nodes.length > 1) out[key] = nodes;
  return out;
}
