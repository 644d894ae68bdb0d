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
import type { NodeObject, PodObject } from '../src/model/objects.ts';
import { simulate } from '../src/runtime/simulate.ts';
import { decisionWindow } from './support/decision-window.ts';
import { percentile } from './support/measure.ts';

const driver = 'test-driver.cdi.k8s.io';
const devicesPerNode = 10;
const kubeThreshold = 56;

const nodeName = (i: number) => `scheduler-perf-dra-${i}`;

/** kube's resourceslice-basic-devices.yaml for node `i`: 10 devices, 2 PCI roots. */
function slice(i: number): ManifestObject {
  const devices = Array.from({ length: devicesPerNode }, (_, d) => ({
    name: `basic-device-${d}`,
    attributes: {
      driver: { string: 'xe' },
      driverVersion: { version: '1.2.3' },
      'resource.k8s.io/pciRoot': { string: String(d % 2) },
      family: { string: 'Arc Pro B-Series' },
      health: { string: 'Healthy' },
      model: { string: 'B60' },
      pciAddress: { string: `0000:0${d}:00.0` },
      pciId: { string: '0xe211' },
      pciRoot: { string: `0${d % 2}` },
      'resource.kubernetes.io/pciBusID': { string: `0000:0${d}:00.0` },
      'resource.kubernetes.io/pciRoot': { string: `pci0000:0${d % 2}` },
      sriov: { bool: true },
      type: { string: 'gpu' },
    },
    capacity: { memory: { value: '24480Mi' }, millicores: { value: '1k' } },
  }));
  const object = {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: `resourceslice-${i}` },
    spec: {
      pool: { name: `resourceslice-${i}`, generation: 1, resourceSliceCount: 1 },
      driver,
      nodeName: nodeName(i),
      devices,
    },
  };
  return { kind: 'ResourceSlice', object, origin: 'bench' };
}

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

function nodesOf(n: number): NodeObject[] {
  return Array.from({ length: n }, (_, i) => ({
    metadata: { name: nodeName(i), labels: { 'node-with-dra': 'true' } },
    status: { allocatable: { pods: '110', cpu: '4', memory: '32Gi' } },
  }));
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
  const nodes = Number(process.argv[2] ?? 500);
  const pods = Number(process.argv[3] ?? 2500);
  const window = decisionWindow();
  const summary = simulate({
    nodes: nodesOf(nodes),
    pods: podsOf(pods),
    objects: objectsOf(nodes, pods),
    seed: 42,
    config: defaultConfig,
    bindLatencyMs: 5,
    bindFailureRate: 0,
    cycleDurations: window.cycles,
    inspect: window.inspect,
  });
  const perSecond = window.podsPerSecond();
  const { scheduled, unschedulable } = window.counts();
  const sorted = [...window.durations].sort((a, b) => a - b);
  const times = (perSecond / kubeThreshold).toFixed(1);
  process.stdout.write(
    `SchedulingWithResourceClaimTemplate ${nodes}n ${pods} init claims + ${pods}p: ` +
      `${perSecond} pods/s (kube 1.37 CI threshold ${kubeThreshold}: ${times}×); ` +
      `${window.podsPerCpuSecond()} pods per CPU-second\n` +
      `  ${scheduled} reserved, ${unschedulable} unschedulable, ${summary.scheduled} bound; ` +
      `decision p50 ${percentile(sorted, 50).toFixed(3)} ms, p99 ${percentile(sorted, 99).toFixed(3)} ms; ` +
      `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB\n`,
  );
}

main();
