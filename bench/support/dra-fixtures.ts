// kube scheduler_perf's DRA fixtures, shared by the in-process DRA benches: nodes with the test driver and their 10-device ResourceSlices.
import type { ManifestObject } from '../../src/adapters/sim/manifests.ts';
import type { NodeObject } from '../../src/model/objects.ts';

/** kube's test driver. */
export const driver = 'test-driver.cdi.k8s.io';
/** Devices in each node's slice (kube's numDevices: 10). */
export const devicesPerNode = 10;

/** kube's node-with-dra-test-driver.yaml name for node `i`. */
export const nodeName = (i: number) => `scheduler-perf-dra-${i}`;

/** kube's resourceslice-basic-devices.yaml for node `i`: 10 devices, 2 PCI roots. */
export function slice(i: number): ManifestObject {
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

/** kube's node-with-dra-test-driver.yaml, `n` times: 4 cpu, 32Gi, 110 pods. */
export function nodesOf(n: number): NodeObject[] {
  return Array.from({ length: n }, (_, i) => ({
    metadata: { name: nodeName(i), labels: { 'node-with-dra': 'true' } },
    status: { allocatable: { pods: '110', cpu: '4', memory: '32Gi' } },
  }));
}
