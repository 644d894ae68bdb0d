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
import type { KubeObject } from './support/dra-shape.ts';
import * as shape from './support/dra-shape.ts';
import { percentile } from './support/measure.ts';

const wrap = (object: KubeObject): ManifestObject => ({
  kind: object.kind as ManifestObject['kind'],
  object,
  origin: 'bench',
});

/** Init claim `c`, allocated to the `c`-th device in node order (kube's allocResourceClaims). */
function initClaim(c: number): ManifestObject {
  const claim = shape.draInitClaim(c, 'init');
  const metadata = { ...(claim.metadata as KubeObject), uid: `init-claim-${c}` };
  return wrap({ ...claim, metadata, status: { allocation: shape.draInitAllocation(c) } });
}

function objectsOf(nodes: number, initClaims: number): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (let i = 0; i < nodes; i++) out.push(wrap(shape.draSlice(i)));
  out.push(wrap(shape.draDeviceClass()));
  for (let c = 0; c < initClaims; c++) out.push(initClaim(c));
  out.push(wrap(shape.draClaimTemplate('test')));
  return out;
}

function nodesOf(n: number): NodeObject[] {
  return Array.from({ length: n }, (_, i) => ({
    metadata: { name: shape.draNodeName(i), labels: { 'node-with-dra': 'true' } },
    status: { allocatable: { pods: '110', cpu: '4', memory: '32Gi' } },
  }));
}

const epoch = Date.UTC(2026, 0, 1);

function podsOf(n: number): PodObject[] {
  return Array.from({ length: n }, (_, i) => {
    const pod = shape.draPod(`test-dra-${i}`, 'test', defaultConfig.schedulerName);
    const creationTimestamp = new Date(epoch + i).toISOString();
    const metadata = { ...(pod.metadata as KubeObject), uid: `pod-${i}`, creationTimestamp };
    return { ...pod, metadata } as unknown as PodObject;
  });
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
  const times = (perSecond / shape.kubeDraThreshold).toFixed(1);
  process.stdout.write(
    `SchedulingWithResourceClaimTemplate ${nodes}n ${pods} init claims + ${pods}p: ` +
      `${perSecond} pods/s (kube 1.37 CI threshold ${shape.kubeDraThreshold}: ${times}×)\n` +
      `  ${scheduled} reserved, ${unschedulable} unschedulable, ${summary.scheduled} bound; ` +
      `decision p50 ${percentile(sorted, 50).toFixed(3)} ms, p99 ${percentile(sorted, 99).toFixed(3)} ms; ` +
      `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB\n`,
  );
}

main();
