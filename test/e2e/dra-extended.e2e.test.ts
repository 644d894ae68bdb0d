// berth schedules pods asking for extended resources backed by DRA on a real API server under the chart's RBAC: the special claim created, allocated, reserved and named in the pod's status; a node listing the resource keeps the ordinary path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AllocationResult } from '../../src/model/dra-types.ts';
import { Api } from './support/api.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { kwokNode, type Manifest, namespace, pod } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'dra-extended';
const draNode = 'ext-dra';
const pluginNode = 'ext-plugin';
const driver = 'gpu.example.com';
const resource = 'example.com/gpu';
const claimsPath = `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`;

interface ClaimJson {
  metadata: {
    name: string;
    uid: string;
    annotations?: Record<string, string>;
    ownerReferences?: Record<string, unknown>[];
    finalizers?: string[];
  };
  spec: { devices: { requests: Record<string, unknown>[] } };
  status?: { allocation?: AllocationResult; reservedFor?: { name: string; uid: string }[] };
}

interface PodJson {
  metadata: { uid: string };
  spec: { nodeName?: string };
  status?: { extendedResourceClaimStatus?: Record<string, unknown> };
}

/** A pod asking `count` of `name` (request and limit), pinned to `node`. */
function gpuPod(podName: string, node: string, name: string, count: string): Manifest {
  const p = pod(podName, ns, { nodeSelector: { 'kubernetes.io/hostname': node } }) as {
    spec: { containers: { resources: Record<string, Record<string, string>> }[] };
  };
  const c = p.spec.containers[0] as { resources: Record<string, Record<string, string>> };
  c.resources = { requests: { ...c.resources.requests, [name]: count }, limits: { [name]: count } };
  return p as unknown as Manifest;
}

describe('extended resources backed by DRA (chart RBAC, kube-apiserver 1.37.2)', () => {
  const cluster = useCluster('dra-extended');
  let admin: Api;
  let berth: BerthRun | undefined;

  const getPod = (name: string) =>
    admin.ok<PodJson>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
  const claims = async () => (await admin.ok<{ items: ClaimJson[] }>('GET', claimsPath)).items;

  beforeAll(async () => {
    const c = cluster();
    admin = new Api(c.kubeconfig);
    await admin.ok('POST', '/api/v1/namespaces', namespace(ns));
    await admin.ok('POST', '/api/v1/nodes', kwokNode(draNode, { cpu: '8', memory: '16Gi' }));
    // The device plugin's node: it lists the resource in its allocatable.
    const plugin = kwokNode(pluginNode, { cpu: '8', memory: '16Gi' }) as {
      status: { capacity: Record<string, string>; allocatable: Record<string, string> };
    };
    plugin.status.capacity[resource] = '2';
    plugin.status.allocatable[resource] = '2';
    await admin.ok('POST', '/api/v1/nodes', plugin);
    await admin.ok('POST', '/apis/resource.k8s.io/v1/deviceclasses', {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'gpu-class' },
      spec: {
        selectors: [{ cel: { expression: `device.driver == "${driver}"` } }],
        extendedResourceName: resource,
      },
    });
    await admin.ok('POST', '/apis/resource.k8s.io/v1/resourceslices', {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: `${draNode}-gpus` },
      spec: {
        driver,
        nodeName: draNode,
        pool: { name: draNode, generation: 1, resourceSliceCount: 1 },
        devices: [{ name: 'gpu-0' }, { name: 'gpu-1' }],
      },
    });
    await admin.createPod(ns, gpuPod('explicit', draNode, resource, '1'));
    await admin.createPod(
      ns,
      gpuPod('implicit', draNode, 'deviceclass.resource.kubernetes.io/gpu-class', '1'),
    );
    await admin.createPod(ns, gpuPod('plugin', pluginNode, resource, '1'));
    // Both devices are taken by the two above: this one cannot fit on the DRA node.
    await admin.createPod(ns, gpuPod('third', draNode, resource, '1'));
    berth = await startBerth(c);
  });

  afterAll(async () => {
    await berth?.stop('SIGTERM', 10_000);
    admin?.close();
  });

  it('binds a pod asking example.com/gpu: 1 with its special claim allocated, reserved and named in its status', async () => {
    const { p, claim } = await waitFor('explicit bound, its claim allocated', async () => {
      const p = await getPod('explicit');
      const claim = (await claims()).find(
        (c) => c.metadata.ownerReferences?.[0]?.name === 'explicit',
      );
      const named = p.status?.extendedResourceClaimStatus?.resourceClaimName;
      return {
        ok: p.spec.nodeName === draNode && claim !== undefined && named !== undefined,
        seen: { p, claim },
      };
    });
    if (claim === undefined) throw new Error('no claim');
    expect(claim.metadata.name).toMatch(/^explicit-extended-resources-[a-z0-9]{5}$/);
    expect(claim.metadata.annotations).toEqual({
      'resource.kubernetes.io/extended-resource-claim': 'true',
    });
    expect(claim.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'explicit', uid: p.metadata.uid, controller: true },
    ]);
    expect(claim.metadata.finalizers).toEqual(['resource.kubernetes.io/delete-protection']);
    expect(claim.spec.devices.requests).toEqual([
      {
        name: 'container-0-request-1',
        exactly: { deviceClassName: 'gpu-class', allocationMode: 'ExactCount', count: 1 },
      },
    ]);
    expect(claim.status?.allocation?.devices.results).toEqual([
      expect.objectContaining({ request: 'container-0-request-1', driver, pool: draNode }),
    ]);
    expect(claim.status?.reservedFor).toEqual([
      { resource: 'pods', name: 'explicit', uid: p.metadata.uid },
    ]);
    expect(p.status?.extendedResourceClaimStatus).toEqual({
      resourceClaimName: claim.metadata.name,
      requestMappings: [
        { containerName: 'c', resourceName: resource, requestName: 'container-0-request-1' },
      ],
    });
  });

  it('serves the implicit deviceclass.resource.kubernetes.io/<class> name from the other device', async () => {
    await waitFor('implicit bound with its claim', async () => {
      const p = await getPod('implicit');
      return { ok: p.status?.extendedResourceClaimStatus !== undefined, seen: p };
    });
    const devices = (await claims()).flatMap(
      (c) => c.status?.allocation?.devices.results.map((r) => r.device) ?? [],
    );
    expect(devices.sort()).toEqual(['gpu-0', 'gpu-1']);
  });

  it('binds on a node listing the resource with no claim (NodeResourcesFit’s path), and leaves the third pod pending with kube’s message', async () => {
    await waitFor('plugin bound', async () => {
      const p = await getPod('plugin');
      return { ok: p.spec.nodeName === pluginNode, seen: p };
    });
    expect((await getPod('plugin')).status?.extendedResourceClaimStatus).toBeUndefined();
    expect((await claims()).some((c) => c.metadata.ownerReferences?.[0]?.name === 'plugin')).toBe(
      false,
    );
    const third = await waitFor('third unschedulable', async () => {
      const p = await admin.ok<{ status?: { conditions?: { type: string; message?: string }[] } }>(
        'GET',
        `/api/v1/namespaces/${ns}/pods/third`,
      );
      const cond = p.status?.conditions?.find((x) => x.type === 'PodScheduled');
      return { ok: cond?.message !== undefined, seen: cond };
    });
    expect(third?.message).toBe(
      "0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
  });
});
