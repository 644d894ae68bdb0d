// The objects of kube scheduler_perf's SchedulingWithResourceClaimTemplate, shared by the in-process and end-to-end DRA benches.

/** A Kubernetes object as plain JSON. */
export type KubeObject = Record<string, unknown>;

/** The driver every slice and the DeviceClass name. */
export const draDriver = 'test-driver.cdi.k8s.io';
/** Devices in each node's ResourceSlice (kube's numDevices). */
export const devicesPerNode = 10;
/** kube 1.37's CI threshold for SchedulingWithResourceClaimTemplate/5000pods_500nodes, pods/s. */
export const kubeDraThreshold = 56;
/** The DeviceClass and ResourceClaimTemplate names. */
export const draClassName = 'test-class';
export const draTemplateName = 'test-claim-template';

/** kube's node-with-dra-test-driver.yaml name for node `i`. */
export const draNodeName = (i: number) => `scheduler-perf-dra-${i}`;

const oneDevice = {
  devices: { requests: [{ name: 'req-0', exactly: { deviceClassName: draClassName } }] },
};

/** kube's resourceslice-basic-devices.yaml for node `i`: 10 devices on 2 PCI roots. */
export function draSlice(i: number): KubeObject {
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
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: `resourceslice-${i}` },
    spec: {
      pool: { name: `resourceslice-${i}`, generation: 1, resourceSliceCount: 1 },
      driver: draDriver,
      nodeName: draNodeName(i),
      devices,
    },
  };
}

/** kube's deviceclass.yaml: every device of the test driver. */
export function draDeviceClass(): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name: draClassName },
    spec: { selectors: [{ cel: { expression: `device.driver == "${draDriver}"` } }] },
  };
}

/** kube's resourceclaim.yaml: init claim `c` in `namespace`, one device of the class. */
export function draInitClaim(c: number, namespace: string): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name: `test-claim-${c}`, namespace },
    spec: oneDevice,
  };
}

/**
 * Init claim `c`'s allocation as kube's allocResourceClaims leaves it: the first free device
 * in node order, i.e. device `c mod 10` of node `c div 10`.
 */
export function draInitAllocation(c: number): KubeObject {
  const node = Math.floor(c / devicesPerNode);
  return {
    devices: {
      results: [
        {
          request: 'req-0',
          driver: draDriver,
          pool: `resourceslice-${node}`,
          device: `basic-device-${c % devicesPerNode}`,
        },
      ],
    },
    nodeSelector: {
      nodeSelectorTerms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: [draNodeName(node)] }] },
      ],
    },
  };
}

/** kube's resourceclaimtemplate.yaml with one request and no selectors or constraints. */
export function draClaimTemplate(namespace: string): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaimTemplate',
    metadata: { name: draTemplateName, namespace },
    spec: { spec: oneDevice },
  };
}

/**
 * kube's pod-with-claim-template.yaml as pod `name`: one pause container using the claim
 * made from the template; `schedulerName` null leaves it out (the default scheduler).
 */
export function draPod(name: string, namespace: string, schedulerName: string | null): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      ...(schedulerName === null ? {} : { schedulerName }),
      containers: [
        {
          name: 'pause',
          image: 'registry.k8s.io/pause:3.10.1',
          resources: { claims: [{ name: 'resource' }] },
        },
      ],
      resourceClaims: [{ name: 'resource', resourceClaimTemplateName: draTemplateName }],
    },
  };
}
