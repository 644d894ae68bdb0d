// kube scheduler_perf's DRA fixtures as the in-process DRA benches feed them to the simulated cluster: nodes with the test driver and their 10-device ResourceSlices (from dra-shape.ts).
import type { ManifestObject } from '../../src/adapters/sim/manifests.ts';
import type { NodeObject } from '../../src/model/objects.ts';
import { devicesPerNode, draDriver, draNodeName, draSlice } from './dra-shape.ts';

/** kube's test driver. */
export const driver = draDriver;
export { devicesPerNode };

/** kube's node-with-dra-test-driver.yaml name for node `i`. */
export const nodeName = draNodeName;

/** kube's resourceslice-basic-devices.yaml for node `i`, as a manifest of the simulated cluster. */
export function slice(i: number): ManifestObject {
  return { kind: 'ResourceSlice', object: draSlice(i), origin: 'bench' };
}

/** kube's node-with-dra-test-driver.yaml, `n` times: 4 cpu, 32Gi, 110 pods. */
export function nodesOf(n: number): NodeObject[] {
  return Array.from({ length: n }, (_, i) => ({
    metadata: { name: nodeName(i), labels: { 'node-with-dra': 'true' } },
    status: { allocatable: { pods: '110', cpu: '4', memory: '32Gi' } },
  }));
}
