// kube scheduler_perf's GangScheduling/5000Nodes_* and TopologyAwareScheduling/5000Nodes_* shapes in-process, pods/s beside kube's threshold.
// Built as kube 1.37.2's test/integration/scheduler_perf/podgroup/{gangscheduling,tas}
// configs build them: N nodes of 4 cpu, 32Gi and 110 pods (kube's makeBaseNode; for the
// topology shapes kube's tas/templates/node.yaml, racks of 100 nodes), G core PodGroups
// (scheduling.k8s.io/v1beta1, gang minCount = the group's size, and for the topology shapes
// schedulingConstraints.topology on topology.kubernetes.io/rack), then G × size pods of 100m
// and 100Mi, pod i joining gang-(i div size) by spec.schedulingGroup.podGroupName. The
// measured window is the decision window of bench/support (bench/README.md says how it
// compares with kube's throughput collector). Each shape runs in a process of its own.
//
//   npx tsx bench/gang-kube.bench.ts                          every shape once
//   npx tsx bench/gang-kube.bench.ts --runs 3 Gang_1000x3     three runs, median reported
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ManifestObject } from '../src/adapters/sim/manifests.ts';
import { defaultConfig } from '../src/core/config.ts';
import type { NodeObject, PodObject } from '../src/model/objects.ts';
import { BaselineCheck, baselineFlags } from './support/baseline.ts';
import { type MeasuredRun, measureSimulation } from './support/decision-window.ts';
import { parseRunsAndNames } from './support/measure.ts';

/** One kube shape: its name here, kube's workload name, nodes, groups and pods per group. */
interface Shape {
  name: string;
  kube: string;
  nodes: number;
  groups: number;
  size: number;
  /** True for kube's TopologyAwareScheduling shapes: racks of 100 nodes, one rack per group. */
  topology: boolean;
}

/**
 * kube's pods/s threshold the shapes are compared with. kube 1.37.2's GangScheduling and
 * TopologyAwareScheduling configs set none; the one gang threshold kube has is 1.38's for
 * GangTopologyAwareScheduling/5000Nodes_50Racks_750Groups_3000Pods, 400 pods/s.
 */
const kubeThreshold = 400;
const rackLabel = 'topology.kubernetes.io/rack';
const namespace = 'gang-ns-0';
const epoch = Date.UTC(2026, 0, 1);

/** kube's workload `GangScheduling/...` (or `TopologyAwareScheduling/...` with `topology`) of `groups` × `size` on 5,000 nodes. */
function shape(topology: boolean, groups: number, size: number): Shape {
  const area = topology ? 'TopologyAwareScheduling' : 'GangScheduling';
  const tail = size === 1000 ? '_1000PerGroup' : '';
  return {
    name: `${topology ? 'TAS' : 'Gang'}_${groups}x${size}`,
    kube: `${area}/5000Nodes_${groups}Gangs_${groups * size}Pods${tail}`,
    nodes: 5000,
    groups,
    size,
    topology,
  };
}
const gang = (groups: number, size: number) => shape(false, groups, size);
const tas = (groups: number, size: number) => shape(true, groups, size);

const shapes: Shape[] = [
  gang(1000, 3),
  gang(2000, 3),
  gang(3000, 3),
  gang(3, 1000),
  gang(6, 1000),
  gang(9, 1000),
  tas(750, 4),
  tas(1500, 4),
  tas(2250, 4),
  tas(3, 1000),
  tas(6, 1000),
  tas(9, 1000),
];

/** kube's makeBaseNode (4 cpu, 32Gi, 110 pods); with `topology`, tas/templates/node.yaml's labels. */
function nodeOf(i: number, topology: boolean): NodeObject {
  const name = `node-${i}`;
  const domain = Math.floor(i / 100);
  const labels = topology
    ? {
        'kubernetes.io/hostname': name,
        'topology.kubernetes.io/zone': `zone-${domain}`,
        [rackLabel]: `rack-${domain}`,
      }
    : { 'kubernetes.io/hostname': name };
  const allocatable = { cpu: '4', memory: '32Gi', pods: '110' };
  return {
    metadata: { name, labels },
    status: { capacity: allocatable, allocatable },
  } as NodeObject;
}

/** kube's templates/podgroup.yaml for group `g`. */
function podGroupOf(g: number, s: Shape): ManifestObject {
  const constraints = s.topology
    ? { schedulingConstraints: { topology: [{ key: rackLabel }] } }
    : {};
  const object = {
    apiVersion: 'scheduling.k8s.io/v1beta1',
    kind: 'PodGroup',
    metadata: { name: `gang-${g}`, namespace, creationTimestamp: new Date(epoch).toISOString() },
    spec: { schedulingPolicy: { gang: { minCount: s.size } }, ...constraints },
  };
  return { kind: 'CorePodGroup', object, origin: 'bench' };
}

/** kube's templates/gang-pod.yaml for pod `i`, created in index order. */
function podOf(i: number, s: Shape): PodObject {
  const r = { cpu: '100m', memory: '100Mi' };
  return {
    metadata: {
      name: `${s.topology ? 'test-tas-scheduling' : 'test-gang-scheduling'}-${i}`,
      namespace,
      uid: `pod-${i}`,
      creationTimestamp: new Date(epoch + 1000 + i).toISOString(),
    },
    spec: {
      schedulerName: defaultConfig.schedulerName,
      schedulingGroup: { podGroupName: `gang-${Math.floor(i / s.size)}` },
      containers: [
        { name: 'pause', image: 'registry.k8s.io/pause:3.10.1', resources: { requests: r } },
      ],
    },
  } as unknown as PodObject;
}

/** One run of `s`; throws when a pod is left unplaced (every shape fits its cluster). */
function runShape(s: Shape): MeasuredRun {
  const pods = s.groups * s.size;
  const run = measureSimulation({
    nodes: Array.from({ length: s.nodes }, (_, i) => nodeOf(i, s.topology)),
    pods: Array.from({ length: pods }, (_, i) => podOf(i, s)),
    objects: Array.from({ length: s.groups }, (_, g) => podGroupOf(g, s)),
    config: defaultConfig,
  });
  if (run.scheduled !== pods || run.bound !== pods)
    throw new Error(`${s.name}: ${run.scheduled} reserved, ${run.bound} bound of ${pods} pods`);
  return run;
}

const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;

if (process.argv[2] === '--child') {
  const s = shapes.find((x) => x.name === process.argv[3]);
  if (s === undefined) throw new Error(`unknown shape ${process.argv[3]}`);
  // A tenth of the shape first, so that the measured run finds the code compiled.
  runShape({ ...s, nodes: s.nodes / 10, groups: Math.ceil(s.groups / 10) });
  process.stdout.write(`${JSON.stringify(runShape(s))}\n`);
} else {
  const flags = baselineFlags(process.argv.slice(2));
  const { runs, names } = parseRunsAndNames(
    flags.rest,
    shapes.map((s) => s.name),
  );
  const baselines = new BaselineCheck('gang-kube', flags);
  const self = fileURLToPath(import.meta.url);
  const execArgv = process.execArgv.length > 0 ? process.execArgv : ['--import', 'tsx'];
  const summary: string[] = [];
  for (const s of shapes) {
    if (names.length > 0 && !names.includes(s.name)) continue;
    const results: MeasuredRun[] = [];
    for (let r = 0; r < runs; r++) {
      const load = loadavg()[0]?.toFixed(1);
      const out = execFileSync(process.execPath, [...execArgv, self, '--child', s.name], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
      const run = JSON.parse(out.trim().split('\n').pop() as string) as MeasuredRun;
      results.push(run);
      process.stdout.write(
        `${s.kube} (${s.name}): ${run.perSecond} pods/s (${(run.perSecond / kubeThreshold).toFixed(1)}× kube's ${kubeThreshold}); ` +
          `${run.perCpuSecond} pods per CPU-second; step p50 ${run.p50.toFixed(2)} ms, p99 ${run.p99.toFixed(2)} ms; ` +
          `peak RSS ${run.rssMiB} MiB; load ${load}\n`,
      );
    }
    const m = median(results.map((r) => r.perSecond));
    const c = median(results.map((r) => r.perCpuSecond));
    baselines.check(s.name, {
      shape: `${s.nodes} nodes, ${s.groups} groups × ${s.size}`,
      figures: [
        { name: 'pods/s', value: m },
        { name: 'pods/cpu-s', value: c },
      ],
      decisionDigest: (results[0] as MeasuredRun).decisionDigest,
    });
    summary.push(
      `  ${s.kube}: median ${m} pods/s (${(m / kubeThreshold).toFixed(1)}×), ${c} per CPU-second; runs ${results.map((r) => r.perSecond).join(', ')}`,
    );
  }
  process.stdout.write(
    `gang kube shapes (${runs} run(s) each; load now ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}):\n${summary.join('\n')}\n`,
  );
  baselines.finish();
}
