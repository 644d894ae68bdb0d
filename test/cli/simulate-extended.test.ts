// `berth simulate` with extended resources backed by DRA, through the real command: the pod lands on the node without the resource in allocatable, on a device of the class; the device plugin's node keeps its own count.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'berth-ext-'));

const gpuPod = (name: string, node: string, resource: string) => `
apiVersion: v1
kind: Pod
metadata: { name: ${name}, namespace: ml }
spec:
  schedulerName: berth
  nodeSelector: { kubernetes.io/hostname: ${node} }
  containers:
    - name: c
      image: example/train
      resources: { limits: { "${resource}": 1 } }
`;

const manifests = `
apiVersion: v1
kind: Node
metadata: { name: dra-node, labels: { kubernetes.io/hostname: dra-node } }
status: { allocatable: { cpu: "8", memory: 16Gi, pods: "110" } }
---
apiVersion: v1
kind: Node
metadata: { name: plugin-node, labels: { kubernetes.io/hostname: plugin-node } }
status: { allocatable: { cpu: "8", memory: 16Gi, pods: "110", example.com/gpu: "1" } }
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: { name: gpu.example.com }
spec:
  selectors: [{ cel: { expression: device.driver == "gpu.example.com" } }]
  extendedResourceName: example.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: { name: dra-node-gpus }
spec:
  driver: gpu.example.com
  nodeName: dra-node
  pool: { name: dra-node, generation: 1, resourceSliceCount: 1 }
  devices: [{ name: gpu-0 }, { name: gpu-1 }]
---${gpuPod('explicit', 'dra-node', 'example.com/gpu')}---${gpuPod('implicit', 'dra-node', 'deviceclass.resource.kubernetes.io/gpu.example.com')}---${gpuPod('plugin', 'plugin-node', 'example.com/gpu')}---${gpuPod('plugin-2', 'plugin-node', 'example.com/gpu')}`;

describe('berth simulate: extended resources backed by DRA', () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('allocates devices through the special claim on the node without the resource, and counts the device plugin’s elsewhere', () => {
    writeFileSync(join(work, 'cluster.yaml'), manifests);
    const r = spawnSync(
      process.execPath,
      [join(root, 'bin/berth.js'), 'simulate', '--cluster', 'cluster.yaml', '--json'],
      { encoding: 'utf8', cwd: work },
    );
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.placements).toEqual({
      'ml/explicit': 'dra-node',
      'ml/implicit': 'dra-node',
      'ml/plugin': 'plugin-node',
    });
    expect(out.devices).toEqual({
      'ml/explicit': ['gpu.example.com/dra-node/gpu-0'],
      'ml/implicit': ['gpu.example.com/dra-node/gpu-1'],
    });
    expect(out).toMatchObject({ scheduled: 3, unschedulable: 1 });
  });
});
