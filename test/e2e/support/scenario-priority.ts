// The "priority" e2e scenario: PriorityClasses, nodes, filler pods, preemptors, a PDB, and a pod watch recording what preemption did.
import type { Api, Watch } from './api.ts';
import { kwokNode, type Manifest, pod } from './manifests.ts';

/** Condition of a pod as the watch saw it. */
export interface PodConditionJson {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** The parts of a Pod this scenario reads (priority, nomination, start time). */
export interface PriorityPodJson {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation?: number;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec: { nodeName?: string; priority?: number; preemptionPolicy?: string };
  status?: {
    phase?: string;
    startTime?: string;
    nominatedNodeName?: string;
    conditions?: PodConditionJson[];
  };
}

/** PriorityClasses (cluster-scoped, created once for both schedulers). */
export const priorityClasses: Manifest[] = [
  ['low', 100],
  ['mid', 500],
  ['high', 1000],
].map(([name, value]) => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
}));
/** Same value as `high`, but may not preempt (the admission plugin copies the policy to the pod). */
priorityClasses.push({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name: 'high-never' },
  value: 1000,
  preemptionPolicy: 'Never',
});

export const priorityOf: Record<string, number> = { low: 100, mid: 500, high: 1000 };

/**
 * Pool `pick` (scenario 1): pick-a, pick-b, pick-c. Pool `pdb` (scenario 2): pdb-a, pdb-b.
 * All 4 cpu, 8Gi, 110 pods.
 */
export const priorityNodes: Manifest[] = [
  ...['pick-a', 'pick-b', 'pick-c'].map((n) =>
    kwokNode(n, { cpu: '4', memory: '8Gi', pods: 110, labels: { pool: 'pick' } }),
  ),
  ...['pdb-a', 'pdb-b'].map((n) =>
    kwokNode(n, { cpu: '4', memory: '8Gi', pods: 110, labels: { pool: 'pdb' } }),
  ),
];

interface PodSpecExtras {
  cpu: string;
  priorityClassName?: string;
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  labels?: Record<string, string>;
}

/** A test pod for `schedulerName` (grace period 0, so kwok removes a deleted pod at once). */
export function priorityPod(
  name: string,
  namespace: string,
  schedulerName: string,
  x: PodSpecExtras,
): Manifest {
  const p = pod(name, namespace, {
    cpu: x.cpu,
    schedulerName,
    labels: { scenario: 'priority', ...x.labels },
    ...(x.nodeSelector === undefined ? {} : { nodeSelector: x.nodeSelector }),
  });
  const spec = p.spec as Manifest;
  if (x.priorityClassName !== undefined) spec.priorityClassName = x.priorityClassName;
  if (x.nodeName !== undefined) spec.nodeName = x.nodeName;
  return p;
}

/** A filler pod already bound to `node` (created with spec.nodeName: no scheduler involved). */
function filler(ns: string, sched: string, name: string, node: string, cpu: string, cls: string) {
  return priorityPod(name, ns, sched, {
    cpu,
    priorityClassName: cls,
    nodeName: node,
    ...(name.startsWith('pdb-a-') ? { labels: { budget: 'guarded' } } : {}),
  });
}

/**
 * The filler that must be the oldest on pdb-b (created first, a second before the others, so
 * its status.startTime is strictly earlier: kube reprieves the more important, i.e. older, pod).
 */
export function oldestFiller(ns: string, sched: string): Manifest {
  return filler(ns, sched, 'pdb-b-old', 'pdb-b', '900m', 'low');
}

/**
 * Scenario 1 (pool pick), for a 3-cpu `high` preemptor:
 *  - pick-a: 4 × 900m low  → 3 victims (highest 100, sum 3 × (100 + 2^31))
 *  - pick-b: 2 × 1800m low → 2 victims (highest 100, sum 2 × (100 + 2^31))   ← kube's pick
 *  - pick-c: 1 × 3600m mid → 1 victim  (highest 500)
 * pick-c loses on "lowest highest-victim priority" though it has the fewest victims; pick-a
 * loses to pick-b on "smallest priority sum".
 *
 * Scenario 2 (pool pdb), for a 3-cpu `high` preemptor:
 *  - pdb-a: 2 × 1800m low, both selected by PDB `guarded` (disruptionsAllowed 0) → 2 victims,
 *    2 PDB violations
 *  - pdb-b: 4 × 900m low (pdb-b-old the oldest) → 3 victims, no violation   ← kube's pick
 * Without the PDB pdb-a would win (smaller sum); the oldest pod on pdb-b is reprieved.
 */
export function fillers(ns: string, sched: string): Manifest[] {
  return [
    ...[0, 1, 2, 3].map((i) => filler(ns, sched, `pick-a-${i}`, 'pick-a', '900m', 'low')),
    ...[0, 1].map((i) => filler(ns, sched, `pick-b-${i}`, 'pick-b', '1800m', 'low')),
    filler(ns, sched, 'pick-c-0', 'pick-c', '3600m', 'mid'),
    ...[0, 1].map((i) => filler(ns, sched, `pdb-a-${i}`, 'pdb-a', '1800m', 'low')),
    ...[1, 2, 3].map((i) => filler(ns, sched, `pdb-b-${i}`, 'pdb-b', '900m', 'low')),
  ];
}

/** The PDB guarding pdb-a's pods (status written by the test: no controller-manager runs). */
export function guardedBudget(ns: string): Manifest {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'guarded', namespace: ns },
    spec: { minAvailable: 2, selector: { matchLabels: { budget: 'guarded' } } },
  };
}

/** What the disruption controller would write for `guarded` with both pods healthy. */
export const guardedStatus = {
  status: {
    observedGeneration: 1,
    disruptionsAllowed: 0,
    currentHealthy: 2,
    desiredHealthy: 2,
    expectedPods: 2,
  },
};

/** The two preemptors: scenario 1 (pool pick) and scenario 2 (pool pdb). */
export function preemptors(ns: string, sched: string): Manifest[] {
  return [
    priorityPod('preemptor-pick', ns, sched, {
      cpu: '3',
      priorityClassName: 'high',
      nodeSelector: { pool: 'pick' },
    }),
    priorityPod('preemptor-pdb', ns, sched, {
      cpu: '3',
      priorityClassName: 'high',
      nodeSelector: { pool: 'pdb' },
    }),
  ];
}

/**
 * Scenario 3: pods that stay unschedulable once scenarios 1 and 2 are done, each with a
 * different PostFilter (preemption) outcome, and what each exercises.
 */
export const messagePodCases: [name: string, what: string][] = [
  ['msg-too-big', 'high, 5 cpu > every node: Preemption is not helpful'],
  ['msg-pinned-equal', 'high, 2 cpu, pinned to pdb-b: only an equal-priority pod is in the way'],
  ['msg-low-no-victims', 'low, 3 cpu, pool pick: No preemption victims found'],
  ['msg-never', 'high with preemptionPolicy Never, 3 cpu, pool pick: not eligible'],
  ['msg-plain', 'no PriorityClass (priority 0), 3 cpu'],
];

export function messagePods(ns: string, sched: string): Manifest[] {
  return [
    priorityPod('msg-too-big', ns, sched, { cpu: '5', priorityClassName: 'high' }),
    priorityPod('msg-pinned-equal', ns, sched, {
      cpu: '2',
      priorityClassName: 'high',
      nodeSelector: { 'kubernetes.io/hostname': 'pdb-b' },
    }),
    priorityPod('msg-low-no-victims', ns, sched, {
      cpu: '3',
      priorityClassName: 'low',
      nodeSelector: { pool: 'pick' },
    }),
    priorityPod('msg-never', ns, sched, {
      cpu: '3',
      priorityClassName: 'high-never',
      nodeSelector: { pool: 'pick' },
    }),
    priorityPod('msg-plain', ns, sched, { cpu: '3' }),
  ];
}

/** What the pod watch saw of one pod while the scenario ran. */
export interface WatchedPod {
  uid: string;
  priority: number | undefined;
  /** The last spec.nodeName seen. */
  nodeName: string | undefined;
  /** Every distinct status.nominatedNodeName, in order. */
  nominated: string[];
  /** The DisruptionTarget condition, if it was ever seen. */
  disruptionTarget: PodConditionJson | undefined;
  /** Every distinct PodScheduled=False message, in order. */
  unschedulableMessages: string[];
  /** Whether a deletionTimestamp was seen before the pod went away (a graceful deletion). */
  terminating: boolean;
  deleted: boolean;
}

/** Watches the pods of `namespace` and keeps what preemption does to them (victims are gone fast). */
export class PodRecorder {
  readonly pods = new Map<string, WatchedPod>();
  private watch: Watch | undefined;

  constructor(
    private readonly api: Api,
    readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    const path = `/api/v1/namespaces/${this.namespace}/pods`;
    const rv = await this.api.listResourceVersion(path);
    this.watch = this.api.watch<PriorityPodJson>(path, rv, (e) => {
      if (e.type === 'BOOKMARK' || e.type === 'ERROR') return;
      this.see(e.object, e.type === 'DELETED');
    });
  }

  private see(p: PriorityPodJson, deleted: boolean): void {
    const name = p.metadata.name;
    const prev = this.pods.get(name);
    const w: WatchedPod =
      prev?.uid === p.metadata.uid
        ? prev
        : {
            uid: p.metadata.uid,
            priority: p.spec.priority,
            nodeName: undefined,
            nominated: [],
            disruptionTarget: undefined,
            unschedulableMessages: [],
            terminating: false,
            deleted: false,
          };
    w.nodeName = p.spec.nodeName ?? w.nodeName;
    const nominated = p.status?.nominatedNodeName;
    if (nominated !== undefined && nominated !== '' && w.nominated.at(-1) !== nominated)
      w.nominated.push(nominated);
    for (const c of p.status?.conditions ?? []) {
      if (c.type === 'DisruptionTarget') w.disruptionTarget ??= c;
      if (c.type === 'PodScheduled' && c.status === 'False' && c.message !== undefined) {
        if (!w.unschedulableMessages.includes(c.message)) w.unschedulableMessages.push(c.message);
      }
    }
    if (p.metadata.deletionTimestamp !== undefined) w.terminating = true;
    if (deleted) w.deleted = true;
    this.pods.set(name, w);
  }

  stop(): void {
    this.watch?.stop();
  }
}
