// In-process DRA workload modelled on kube's scheduler_perf SchedulingWithResourceClaimTemplate/5000pods_500nodes.
// 500 nodes each publish one ResourceSlice of 10 devices (kube's basic-device attributes);
// 2,500 claims are allocated beforehand as kube's allocResourceClaims does (first node with a
// free device, so nodes 0–249 are full); then 2,500 pods, each with a claim from one
// template, are scheduled: the simulated resourceclaim controller makes each claim and
// names it in the pod's status, berth allocates a device and binds. Prints the measured
// pods/s beside kube 1.37's CI threshold (56), decision p50/p99 and peak RSS.
//
//   npx tsx bench/dra.bench.ts            the 500-node workload
//   npx tsx bench/dra.bench.ts 100 1000   NODES PODS (init claims = PODS)
import type { ManifestObject } from '../src/adapters/sim/manifests.ts';
import { defaultConfig } from '../src/core/config.ts';
import type { PodObject } from '../src/model/objects.ts';
import { BaselineCheck, baselineFlags } from './support/baseline.ts';
import { measureSimulation } from './support/decision-window.ts';
import { devicesPerNode, driver, nodeName, nodesOf, slice } from './support/dra-fixtures.ts';

const kubeThreshold = 56;

/** Init claim `c`, allocated to the `c`-th device in node order (kube's allocResourceClaims). */
function initClaim(c: number): ManifestObject {
  const node = Math.floor(c / devicesPerNode);
  const object = {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name: `test-claim-${c}`, namespace: 'init', uid: `init-claim-${c}` },
    spec: {
      devices: { requests: [{ name: 'req-0', exactly: { deviceClassName: 'test-class' } }] },
    },
    status: {
      allocation: {
        devices: {
          results: [
            {
              request: 'req-0',
              driver,
              pool: `resourceslice-${node}`,
              device: `basic-device-${c % devicesPerNode}`,
            },
          ],
        },
        nodeSelector: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName(node)] }] },
          ],
        },
      },
    },
  };
  return { kind: 'ResourceClaim', object, origin: 'bench' };
}

function objectsOf(nodes: number, initClaims: number): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (let i = 0; i < nodes; i++) out.push(slice(i));
  out.push({
    kind: 'DeviceClass',
    object: {
      kind: 'DeviceClass',
      metadata: { name: 'test-class' },
      spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
    },
    origin: 'bench',
  });
  for (let c = 0; c < initClaims; c++) out.push(initClaim(c));
  out.push({
    kind: 'ResourceClaimTemplate',
    object: {
      kind: 'ResourceClaimTemplate',
      metadata: { name: 'test-claim-template', namespace: 'test' },
      spec: {
        spec: {
          devices: { requests: [{ name: 'req-0', exactly: { deviceClassName: 'test-class' } }] },
        },
      },
    },
    origin: 'bench',
  });
  return out;
}

const epoch = Date.UTC(2026, 0, 1);

function podsOf(n: number): PodObject[] {
  return Array.from(
    { length: n },
    (_, i) =>
      ({
        metadata: {
          name: `test-dra-${i}`,
          namespace: 'test',
          uid: `pod-${i}`,
          creationTimestamp: new Date(epoch + i).toISOString(),
        },
        spec: {
          schedulerName: defaultConfig.schedulerName,
          containers: [
            { name: 'pause', image: 'pause', resources: { claims: [{ name: 'resource' }] } },
          ],
          resourceClaims: [{ name: 'resource', resourceClaimTemplateName: 'test-claim-template' }],
        },
      }) as PodObject,
  );
}

function main(): void {
  const flags = baselineFlags(process.argv.slice(2));
  const argv = flags.rest;
  const nodes = Number(argv[0] ?? 500);
  const pods = Number(argv[1] ?? 2500);
  const run = measureSimulation({
    nodes: nodesOf(nodes),
    pods: podsOf(pods),
    objects: objectsOf(nodes, pods),
    config: defaultConfig,
  });
  const times = (run.perSecond / kubeThreshold).toFixed(1);
  process.stdout.write(
    `SchedulingWithResourceClaimTemplate ${nodes}n ${pods} init claims + ${pods}p: ` +
      `${run.perSecond} pods/s (kube 1.37 CI threshold ${kubeThreshold}: ${times}×); ` +
      `${run.perCpuSecond} pods per CPU-second\n` +
      `  ${run.scheduled} reserved, ${run.unschedulable} unschedulable, ${run.bound} bound; ` +
      `decision p50 ${run.p50.toFixed(3)} ms, p99 ${run.p99.toFixed(3)} ms; ` +
      `peak RSS ${run.rssMiB} MiB\n`,
  );
  const baselines = new BaselineCheck('dra', flags);
  baselines.check('SchedulingWithResourceClaimTemplate', {
    shape: `${nodes} nodes, ${pods} init claims + ${pods} pods`,
    figures: [
      { name: 'pods/s', value: run.perSecond },
      { name: 'pods/cpu-s', value: run.perCpuSecond },
    ],
    decisionDigest: run.decisionDigest,
  });
  baselines.finish();
}

main();
