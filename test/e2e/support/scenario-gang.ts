// The "gang" e2e scenarios: PodGroups, their member pods, kwok nodes by pool, and probes that time the members' binds.
import { inputEventTypes } from '../../../src/events/types.ts';
import type { Api, Watch } from './api.ts';
import type { RecordLine } from './invariants.ts';
import type { PodJson } from './kubectl.ts';
import { kwokNode, type Manifest, pod } from './manifests.ts';
import { delay } from './wait.ts';

/** The label a pod joins a PodGroup of its namespace with. */
export const podGroupLabel = 'scheduling.x-k8s.io/pod-group';
/** The label that keeps each scenario's pods on its own nodes. */
export const poolLabel = 'gang-pool';
/** Where PodGroups are served once the chart's CRD is applied. */
export const podGroupApi = '/apis/scheduling.x-k8s.io/v1alpha1';

/** The parts of a PodGroup the scenarios read. */
export interface PodGroupJson {
  metadata: { name: string; namespace: string };
  spec?: { minMember?: number; scheduleTimeoutSeconds?: number };
  status?: {
    phase?: string;
    scheduled?: number;
    running?: number;
    succeeded?: number;
    failed?: number;
    scheduleStartTime?: string;
  };
}

/** A scheduler-plugins PodGroup `name` in `namespace` needing `minMember` members placed together. */
export function podGroup(
  namespace: string,
  name: string,
  minMember: number,
  scheduleTimeoutSeconds?: number,
): Manifest {
  return {
    apiVersion: 'scheduling.x-k8s.io/v1alpha1',
    kind: 'PodGroup',
    metadata: { name, namespace },
    spec: {
      minMember,
      ...(scheduleTimeoutSeconds === undefined ? {} : { scheduleTimeoutSeconds }),
    },
  };
}

/** A kwok node of pool `pool` (label gang-pool) with `cpu` and 4Gi. */
export function poolNode(pool: string, name: string, cpu: string): Manifest {
  return kwokNode(name, { cpu, memory: '4Gi', labels: { [poolLabel]: pool } });
}

/** Nodes `${pool}-0 … ${pool}-(count−1)` of pool `pool`. */
export function poolNodes(pool: string, count: number, cpu: string): Manifest[] {
  return Array.from({ length: count }, (_, i) => poolNode(pool, `${pool}-${i}`, cpu));
}

/** Pod `name` (scheduler berth) joining group `group` when given, kept to pool `pool`'s nodes. */
export function poolPod(
  namespace: string,
  name: string,
  opts: { group?: string; pool: string; cpu: string },
): Manifest {
  return pod(name, namespace, {
    cpu: opts.cpu,
    memory: '64Mi',
    nodeSelector: { [poolLabel]: opts.pool },
    labels: opts.group === undefined ? {} : { [podGroupLabel]: opts.group },
  });
}

/** Members `${group}-${i}` for each i of `indexes` of group `group`, kept to pool `pool`. */
export function members(
  namespace: string,
  group: string,
  indexes: number[],
  opts: { pool: string; cpu: string },
): Manifest[] {
  return indexes.map((i) => poolPod(namespace, `${group}-${i}`, { ...opts, group }));
}

/** The PodScheduled condition of `p`, if set. */
export function scheduled(p: PodJson | undefined) {
  return p?.status?.conditions?.find((c) => c.type === 'PodScheduled');
}

/** The pods of `namespace` joining group `group`, by name. */
export async function groupPods(api: Api, namespace: string, group: string): Promise<PodJson[]> {
  const selector = encodeURIComponent(`${podGroupLabel}=${group}`);
  const list = await api.ok<{ items: PodJson[] }>(
    'GET',
    `/api/v1/namespaces/${namespace}/pods?labelSelector=${selector}`,
  );
  return list.items.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

/** PodGroup `namespace/name` as the API serves it. */
export function getPodGroup(api: Api, namespace: string, name: string): Promise<PodGroupJson> {
  return api.ok<PodGroupJson>('GET', `${podGroupApi}/namespaces/${namespace}/podgroups/${name}`);
}

/** One poll of a group: when (ms since the epoch) and how many members were bound. */
export interface BoundSample {
  t: number;
  bound: number;
  total: number;
}

/**
 * Polls group `group`'s pods every `intervalMs` until `expected` are bound or `timeoutMs`
 * passes; returns every sample (the last one has all bound unless time ran out).
 * `checkAlive` is called before each poll (it throws when berth is gone).
 */
export async function sampleUntilBound(
  api: Api,
  namespace: string,
  group: string,
  expected: number,
  opts: { intervalMs?: number; timeoutMs?: number; checkAlive?: () => void } = {},
): Promise<BoundSample[]> {
  const { intervalMs = 100, timeoutMs = 60_000 } = opts;
  const deadline = Date.now() + timeoutMs;
  const samples: BoundSample[] = [];
  for (;;) {
    opts.checkAlive?.();
    const ps = await groupPods(api, namespace, group);
    const bound = ps.filter((p) => p.spec.nodeName !== undefined).length;
    samples.push({ t: Date.now(), bound, total: ps.length });
    if (bound >= expected || Date.now() >= deadline) return samples;
    await delay(intervalMs);
  }
}

/**
 * The longest time (ms) a partial placement (1 … expected−1 members bound) was seen to last:
 * from the first to the last poll of a run of consecutive polls that each saw one. 0 when
 * at most one poll in a row saw it (it did not persist from one poll to the next).
 */
export function longestPartialMs(samples: BoundSample[], expected: number): number {
  let longest = 0;
  let start: number | undefined;
  for (const s of samples) {
    if (s.bound > 0 && s.bound < expected) {
      start ??= s.t;
      longest = Math.max(longest, s.t - start);
    } else start = undefined;
  }
  return longest;
}

/** What the pod watch saw of one pod (by name; a recreated pod starts afresh). */
export interface WatchedMember {
  uid: string;
  /** When (ms since the epoch) spec.nodeName was first seen set, and to what. */
  boundAt: number | undefined;
  node: string | undefined;
  /** Every distinct PodScheduled=False message, in order. */
  messages: string[];
  deleted: boolean;
}

/** Watches the pods of one namespace: when each was bound and what it was told while pending. */
export class BindWatch {
  readonly pods = new Map<string, WatchedMember>();
  private watch: Watch | undefined;

  constructor(
    private readonly api: Api,
    readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    const path = `/api/v1/namespaces/${this.namespace}/pods`;
    const rv = await this.api.listResourceVersion(path);
    this.watch = this.api.watch<PodJson>(path, rv, (e) => {
      if (e.type === 'BOOKMARK' || e.type === 'ERROR') return;
      this.see(e.object, e.type === 'DELETED');
    });
  }

  private see(p: PodJson, deleted: boolean): void {
    const name = p.metadata.name;
    const prev = this.pods.get(name);
    const w: WatchedMember =
      prev !== undefined && prev.uid === p.metadata.uid
        ? prev
        : { uid: p.metadata.uid ?? '', boundAt: undefined, node: undefined, messages: [], deleted };
    if (p.spec.nodeName !== undefined && w.boundAt === undefined) {
      w.boundAt = Date.now();
      w.node = p.spec.nodeName;
    }
    const c = scheduled(p);
    if (c?.status === 'False' && c.message !== undefined && !w.messages.includes(c.message))
      w.messages.push(c.message);
    if (deleted) w.deleted = true;
    this.pods.set(name, w);
  }

  /** The watched pods whose name starts with `${group}-`. */
  group(group: string): [string, WatchedMember][] {
    return [...this.pods.entries()]
      .filter(([n]) => n.startsWith(`${group}-`))
      .sort(([a], [b]) => (a < b ? -1 : 1));
  }

  stop(): void {
    this.watch?.stop();
  }
}

/** One scheduling step's reservations of a group's members: the first one's seq, and the pods. */
export interface PlacementStep {
  seq: number;
  keys: string[];
}

/**
 * The PodReserved decisions of group `group`'s members (pods `${namespace}/${group}-*`),
 * split into steps: decisions with no input event between them came from one step.
 */
export function placementSteps(
  lines: RecordLine[],
  namespace: string,
  group: string,
): PlacementStep[] {
  const steps: PlacementStep[] = [];
  let current: PlacementStep | undefined;
  for (const l of lines) {
    const type = l.event?.type;
    if (type === undefined) continue;
    if ((inputEventTypes as readonly string[]).includes(type)) {
      current = undefined;
      continue;
    }
    if (type !== 'PodReserved' || !String(l.event?.key).startsWith(`${namespace}/${group}-`))
      continue;
    if (current === undefined) {
      current = { seq: Number(l.seq), keys: [] };
      steps.push(current);
    }
    current.keys.push(String(l.event?.key));
  }
  for (const s of steps) s.keys.sort();
  return steps;
}
