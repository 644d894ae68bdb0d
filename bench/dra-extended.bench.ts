// In-process workload modelled on kube's scheduler_perf ExtendedResource/Explicit_25classes_5000pods_500nodes (extended resources backed by DRA).
// 500 nodes each publish one ResourceSlice of 10 devices (kube's basic devices) and list no
// extended resource; 25 DeviceClasses select the driver's devices, class `test-class-<k>`
// backing `example.com/gpu-<k>`; 2,500 init pods then 2,500 measured pods each ask one
// `example.com/gpu-<i mod 25>` (request and limit), no claim. berth allocates a device through
// the special claim of each pod, the simulated API server creates it at PreBind. Only the
// measured pods' decisions count. Prints pods/s beside kube 1.37's CI threshold (120),
// decision p50/p99 and peak RSS.
//
//   npx tsx bench/dra-extended.bench.ts                  the 500-node workload, explicit names
//   npx tsx bench/dra-extended.bench.ts 200 1000 1000    NODES INIT MEASURED
//   BERTH_CLASS=implicit npx tsx bench/dra-extended.bench.ts   deviceclass.resource.kubernetes.io/test-class-<k>
import type { ManifestObject } from '../src/adapters/sim/manifests.ts';
import { defaultConfig, withFreshRunDefaults } from '../src/core/config.ts';
import type { PodObject } from '../src/model/objects.ts';
import { BaselineCheck, baselineFlags } from './support/baseline.ts';
import { measureSimulation } from './support/decision-window.ts';
import { driver, nodesOf, slice } from './support/dra-fixtures.ts';

const kubeThreshold = 120;
const classes = 25;
const implicit = process.env.BERTH_CLASS === 'implicit';

/** kube's deviceclass-extended-resource.yaml, `k`-th class. */
function deviceClass(k: number): ManifestObject {
  const object = {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: `test-class-${k}` },
    spec: {
      selectors: [{ cel: { expression: `device.driver == "${driver}"` } }],
      ...(implicit ? {} : { extendedResourceName: `example.com/gpu-${k}` }),
    },
  };
  return { kind: 'DeviceClass', object, origin: 'bench' };
}

const epoch = Date.UTC(2026, 0, 1);

/** kube's pod-with-extended-resource.yaml, `n` pods in `namespace` (created after `offset` others). */
function podsOf(namespace: string, n: number, offset: number): PodObject[] {
  return Array.from({ length: n }, (_, i) => {
    const resource = implicit
      ? `deviceclass.resource.kubernetes.io/test-class-${i % classes}`
      : `example.com/gpu-${i % classes}`;
    return {
      metadata: {
        name: `test-dra-${i}`,
        namespace,
        uid: `${namespace}-pod-${i}`,
        creationTimestamp: new Date(epoch + offset + i).toISOString(),
      },
      spec: {
        schedulerName: defaultConfig.schedulerName,
        containers: [
          {
            name: 'pause',
            image: 'registry.k8s.io/pause:3.9',
            resources: { requests: { [resource]: '1' }, limits: { [resource]: '1' } },
          },
        ],
      },
    } as PodObject;
  });
}

function main(): void {
  const flags = baselineFlags(process.argv.slice(2));
  const argv = flags.rest;
  const nodes = Number(argv[0] ?? 500);
  const init = Number(argv[1] ?? 2500);
  const measured = Number(argv[2] ?? 2500);
  const objects: ManifestObject[] = [];
  for (let i = 0; i < nodes; i++) objects.push(slice(i));
  for (let k = 0; k < classes; k++) objects.push(deviceClass(k));
  const run = measureSimulation(
    {
      nodes: nodesOf(nodes),
      pods: [...podsOf('init', init, 0), ...podsOf('test', measured, init)],
      objects,
      config: withFreshRunDefaults(defaultConfig),
    },
    (key) => key.startsWith('test/'),
  );
  const times = (run.perSecond / kubeThreshold).toFixed(2);
  const name = implicit ? 'Implicit' : 'Explicit';
  process.stdout.write(
    `ExtendedResource ${name}_${classes}classes ${nodes}n ${init} init + ${measured} measured pods: ` +
      `${run.perSecond} pods/s (kube 1.37 CI threshold ${kubeThreshold}: ${times}×); ` +
      `${run.perCpuSecond} pods per CPU-second\n` +
      `  measured: ${run.scheduled} reserved, ${run.unschedulable} unschedulable; all: ${run.bound} bound; ` +
      `decision p50 ${run.p50.toFixed(3)} ms, p99 ${run.p99.toFixed(3)} ms; peak RSS ${run.rssMiB} MiB\n`,
  );
  const baselines = new BaselineCheck('dra-extended', flags);
  baselines.check(`ExtendedResource-${name}_${classes}classes`, {
    shape: `${nodes} nodes, ${init} init + ${measured} measured pods`,
    figures: [
      { name: 'pods/s', value: run.perSecond },
      { name: 'pods/cpu-s', value: run.perCpuSecond },
    ],
    decisionDigest: run.decisionDigest,
  });
  baselines.finish();
}

main();
