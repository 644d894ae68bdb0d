// In-process workloads modelled on kube's scheduler_perf: affinity, spreading, node affinity, ReplicaSets.
// Each workload schedules its initial pods, then its measured pods; prints the measured
// pods/s beside kube's CI floor for the same workload, decision p50/p99 and peak RSS.
//
//   npx tsx bench/scheduler-perf.bench.ts                 every workload once
//   npx tsx bench/scheduler-perf.bench.ts PodAntiAffinity  one workload
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ManifestObject } from '../src/adapters/sim/manifests.ts';
import { defaultConfig } from '../src/core/config.ts';
import type { NodeObject, PodObject } from '../src/model/objects.ts';
import { simulate } from '../src/runtime/simulate.ts';
import { decisionWindow } from './support/decision-window.ts';
import { percentile } from './support/measure.ts';

type Json = Record<string, unknown>;

/** One workload: how nodes are labelled, what the initial and measured pods ask for. */
interface Workload {
  name: string;
  nodes: number;
  initPods: number;
  measurePods: number;
  /** kube's scheduler_perf CI threshold for this workload (pods/s), if it has one. */
  kubeFloor?: number;
  /** Node labels beyond hostname, by node index. */
  nodeLabels?: (i: number) => Record<string, string>;
  /** Extra pod fields for initial (`init`) and measured pods. */
  pod: (
    phase: 'init' | 'measure',
    i: number,
  ) => { labels?: Record<string, string>; spec?: Json; owner?: boolean };
  /** Objects the cluster holds (e.g. the ReplicaSet owning the pods). */
  objects?: ManifestObject[];
}

const host = 'kubernetes.io/hostname';
const zone = 'topology.kubernetes.io/zone';
const namespaces = ['sched-0', 'sched-1'];

const antiAffinity = (labels: Record<string, string>): Json => ({
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { labelSelector: { matchLabels: labels }, topologyKey: host, namespaces },
    ],
  },
});

/** One preferred (anti-)affinity term, weight 1, toward pods labelled `foo` on the same host. */
const preferredFoo = (kind: 'podAffinity' | 'podAntiAffinity'): Json => ({
  [kind]: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      {
        weight: 1,
        podAffinityTerm: {
          labelSelector: { matchLabels: { foo: '' } },
          topologyKey: host,
          namespaces,
        },
      },
    ],
  },
});

const workloads: Workload[] = [
  {
    // kube: SchedulingPodAntiAffinity/5000Nodes; init and measured pods repel each other per host.
    name: 'PodAntiAffinity',
    nodes: 5000,
    initPods: 1000,
    measurePods: 2000,
    kubeFloor: 60,
    pod: (phase) => ({
      labels: { color: phase === 'init' ? 'green' : 'blue', name: 'test' },
      spec: { affinity: antiAffinity({ color: phase === 'init' ? 'green' : 'blue' }) },
    }),
  },
  {
    // kube: SchedulingPodAffinity/5000Nodes; every node in one zone, pods attract each other by zone.
    name: 'PodAffinity',
    nodes: 5000,
    initPods: 5000,
    measurePods: 5000,
    kubeFloor: 35,
    nodeLabels: () => ({ [zone]: 'zone1' }),
    pod: () => ({
      labels: { foo: '' },
      spec: {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              {
                labelSelector: { matchExpressions: [{ key: 'foo', operator: 'Exists' }] },
                topologyKey: zone,
                namespaces,
              },
            ],
          },
        },
      },
    }),
  },
  {
    // kube: SchedulingPreferredPodAntiAffinity/5000Nodes.
    name: 'PreferredPodAntiAffinity',
    nodes: 5000,
    initPods: 1000,
    measurePods: 1000,
    kubeFloor: 90,
    pod: () => ({
      labels: { foo: '' },
      spec: { affinity: preferredFoo('podAntiAffinity') },
    }),
  },
  {
    // kube: SchedulingPreferredPodAffinity/5000Nodes.
    name: 'PreferredPodAffinity',
    nodes: 5000,
    initPods: 1000,
    measurePods: 1000,
    kubeFloor: 90,
    pod: () => ({
      labels: { foo: '' },
      spec: { affinity: preferredFoo('podAffinity') },
    }),
  },
  {
    // kube: TopologySpreading/5000Nodes; three zones, DoNotSchedule on zone.
    name: 'TopologySpreading',
    nodes: 5000,
    initPods: 5000,
    measurePods: 2000,
    nodeLabels: (i) => ({ [zone]: `moon-${i % 3}` }),
    pod: (phase) => ({
      labels: { color: 'blue' },
      spec:
        phase === 'init'
          ? {}
          : {
              topologySpreadConstraints: [
                {
                  maxSkew: 5,
                  topologyKey: zone,
                  whenUnsatisfiable: 'DoNotSchedule',
                  labelSelector: {
                    matchExpressions: [{ key: 'color', operator: 'In', values: ['blue'] }],
                  },
                },
              ],
            },
    }),
  },
  {
    // kube: SchedulingNodeAffinity/5000Nodes; nodes in zone1, pods require zone1 or zone2.
    name: 'NodeAffinity',
    nodes: 5000,
    initPods: 5000,
    measurePods: 10000,
    kubeFloor: 220,
    nodeLabels: () => ({ [zone]: 'zone1' }),
    pod: () => ({
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: zone, operator: 'In', values: ['zone1', 'zone2'] }] },
              ],
            },
          },
        },
      },
    }),
  },
  {
    // kube: SchedulingBasic/5000Nodes with pods owned by a ReplicaSet: system default spreading.
    // The floor is SchedulingBasic's (5000 nodes, 10000 pods), which has no spreading.
    name: 'BasicReplicaSet',
    nodes: 5000,
    initPods: 1000,
    measurePods: 1000,
    kubeFloor: 680,
    nodeLabels: (i) => ({ [zone]: `zone-${i % 3}` }),
    pod: () => ({ labels: { app: 'web' }, owner: true }),
    objects: [0, 1].map((n) => ({
      kind: 'ReplicaSet' as const,
      object: {
        kind: 'ReplicaSet',
        metadata: { name: 'web', namespace: `sched-${n}`, uid: `rs-${n}` },
        spec: { selector: { matchLabels: { app: 'web' } } },
      },
      origin: 'bench',
    })),
  },
];

function nodesOf(w: Workload): NodeObject[] {
  const nodes: NodeObject[] = [];
  for (let i = 0; i < w.nodes; i++) {
    const name = `node-${String(i).padStart(5, '0')}`;
    nodes.push({
      metadata: { name, labels: { [host]: name, ...(w.nodeLabels?.(i) ?? {}) } },
      status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' } },
    });
  }
  return nodes;
}

const epoch = Date.UTC(2026, 0, 1);

function podsOf(w: Workload): PodObject[] {
  const pods: PodObject[] = [];
  const total = w.initPods + w.measurePods;
  for (let i = 0; i < total; i++) {
    const phase = i < w.initPods ? 'init' : 'measure';
    const extra = w.pod(phase, i);
    const ns = phase === 'init' ? 'sched-0' : 'sched-1';
    const owner = extra.owner
      ? {
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'web',
              uid: `rs-${ns.slice(-1)}`,
              controller: true,
            },
          ],
        }
      : {};
    pods.push({
      metadata: {
        name: `${phase}-${i}`,
        namespace: ns,
        uid: `uid-${i}`,
        // One second apart, so the queue takes the initial pods first.
        creationTimestamp: new Date(epoch + i * 1000).toISOString(),
        ...(extra.labels === undefined ? {} : { labels: extra.labels }),
        ...owner,
      },
      spec: {
        schedulerName: defaultConfig.schedulerName,
        containers: [
          { name: 'c', image: 'pause', resources: { requests: { cpu: '100m', memory: '500Mi' } } },
        ],
        ...(extra.spec ?? {}),
      },
    } as PodObject);
  }
  return pods;
}

interface Result {
  workload: string;
  nodes: number;
  initPods: number;
  measurePods: number;
  measuredScheduled: number;
  measuredUnschedulable: number;
  podsPerSecond: number;
  kubeFloor: number | undefined;
  timesFloor: number | undefined;
  decisionP50Ms: number;
  decisionP99Ms: number;
  peakRssMiB: number;
}

/** Runs one workload: the measured window runs from the first measured decision's cycle to the last. */
function run(w: Workload): Result {
  const nodes = nodesOf(w);
  const pods = podsOf(w);
  const window = decisionWindow((key) => key.startsWith('sched-1/'));
  simulate({
    nodes,
    pods,
    ...(w.objects === undefined ? {} : { objects: w.objects }),
    seed: 42,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    cycleDurations: window.cycles,
    inspect: window.inspect,
  });
  const measured = window.durations.slice(-w.measurePods).sort((a, b) => a - b);
  const podsPerSecond = window.podsPerSecond();
  const { scheduled, unschedulable } = window.counts();
  return {
    workload: w.name,
    nodes: w.nodes,
    initPods: w.initPods,
    measurePods: w.measurePods,
    measuredScheduled: scheduled,
    measuredUnschedulable: unschedulable,
    podsPerSecond,
    kubeFloor: w.kubeFloor,
    timesFloor: w.kubeFloor === undefined ? undefined : +(podsPerSecond / w.kubeFloor).toFixed(1),
    decisionP50Ms: +percentile(measured, 50).toFixed(3),
    decisionP99Ms: +percentile(measured, 99).toFixed(3),
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

function report(r: Result): string {
  const floor =
    r.kubeFloor === undefined ? '' : ` (kube CI floor ${r.kubeFloor}: ${r.timesFloor}×)`;
  return (
    `${r.workload} ${r.nodes}n ${r.initPods}+${r.measurePods}p: ${r.podsPerSecond} pods/s${floor}\n` +
    `  measured ${r.measuredScheduled} scheduled, ${r.measuredUnschedulable} unschedulable; ` +
    `decision p50 ${r.decisionP50Ms} ms, p99 ${r.decisionP99Ms} ms; peak RSS ${r.peakRssMiB} MiB\n`
  );
}

if (process.argv[2] === '--child') {
  const w = workloads.find((x) => x.name === process.argv[3]);
  if (w === undefined) throw new Error(`unknown workload ${process.argv[3]}`);
  process.stdout.write(`${JSON.stringify(run(w))}\n`);
} else {
  const names = process.argv.slice(2);
  for (const n of names)
    if (!workloads.some((w) => w.name === n))
      throw new Error(`unknown workload ${n}; known: ${workloads.map((w) => w.name).join(', ')}`);
  const self = fileURLToPath(import.meta.url);
  for (const w of workloads) {
    if (names.length > 0 && !names.includes(w.name)) continue;
    // One workload per process, so peak RSS belongs to that workload alone.
    const out = execFileSync(process.execPath, ['--import', 'tsx', self, '--child', w.name], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    process.stdout.write(report(JSON.parse(out.trim().split('\n').pop() as string) as Result));
  }
}
