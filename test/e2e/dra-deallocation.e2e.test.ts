// berth's DynamicResources PostFilter on a real API server under the chart's RBAC: a claim allocated on a node the pod may not use, reserved for nobody, is deallocated, and the pod lands on its node with the claim allocated there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AllocationResult } from '../../src/model/dra-types.ts';
import { Api } from './support/api.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { eventsAbout } from './support/kubectl.ts';
import { deviceClass, kwokNode, type Manifest, namespace, pod } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'dra-dealloc';
const nodeA = 'dealloc-a';
const nodeB = 'dealloc-b';
const driver = 'gpu.example.com';
const claimsPath = `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`;

interface ClaimJson {
  metadata: { name: string; uid: string; resourceVersion: string; finalizers?: string[] };
  status?: {
    allocation?: AllocationResult;
    reservedFor?: { resource: string; name: string; uid: string }[];
  };
}

const onlyOn = (node: string) => ({
  nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
});

/** The ResourceSlice of `node`: one GPU in a pool named after the node. */
const slice = (node: string): Manifest => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceSlice',
  metadata: { name: `${node}-gpus` },
  spec: {
    driver,
    nodeName: node,
    pool: { name: node, generation: 1, resourceSliceCount: 1 },
    devices: [{ name: 'gpu-0' }],
  },
});

/** A pod using claim c1, required on `node` by node affinity; berth schedules it. */
function claimPod(name: string, node: string): Manifest {
  const p = pod(name, ns, {
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: onlyOn(node) } },
  }) as {
    spec: { containers: { resources: Record<string, unknown> }[] } & Record<string, unknown>;
  };
  p.spec.resourceClaims = [{ name: 'gpu', resourceClaimName: 'c1' }];
  for (const c of p.spec.containers) c.resources.claims = [{ name: 'gpu' }];
  return p as unknown as Manifest;
}

describe('DRA PostFilter deallocation by berth (chart RBAC, kube-apiserver 1.37.2)', () => {
  const cluster = useCluster('dra-deallocation');
  let admin: Api;
  let berth: BerthRun | undefined;
  let before: ClaimJson;

  const getClaim = () => admin.ok<ClaimJson>('GET', `${claimsPath}/c1`);

  beforeAll(async () => {
    const c = cluster();
    admin = new Api(c.kubeconfig);
    await admin.ok('POST', '/api/v1/namespaces', namespace(ns));
    for (const n of [nodeA, nodeB])
      await admin.ok('POST', '/api/v1/nodes', kwokNode(n, { cpu: '4', memory: '8Gi' }));
    await admin.ok('POST', '/apis/resource.k8s.io/v1/deviceclasses', deviceClass(driver));
    for (const n of [nodeA, nodeB])
      await admin.ok('POST', '/apis/resource.k8s.io/v1/resourceslices', slice(n));
    // c1 allocated on A (as an earlier pod's scheduling left it), reserved for nobody.
    const created = await admin.ok<ClaimJson>('POST', claimsPath, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'c1', namespace: ns },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: driver } }] } },
    });
    before = await admin.ok<ClaimJson>('PUT', `${claimsPath}/c1/status`, {
      ...created,
      status: {
        allocation: {
          devices: { results: [{ request: 'gpu', driver, pool: nodeA, device: 'gpu-0' }] },
          nodeSelector: onlyOn(nodeA),
        },
      },
    });
    await admin.createPod(ns, claimPod('p', nodeB));
    berth = await startBerth(c);
  });

  afterAll(async () => {
    await berth?.stop('SIGTERM', 10_000);
    admin?.close();
  });

  it('deallocates the claim, then binds the pod to B with the claim allocated on B and reserved for it', async () => {
    const placed = await waitFor('the pod bound with its claim on B', async () => {
      const p = await admin.ok<{ metadata: { uid: string }; spec: { nodeName?: string } }>(
        'GET',
        `/api/v1/namespaces/${ns}/pods/p`,
      );
      const claim = await getClaim();
      const pool = claim.status?.allocation?.devices.results[0]?.pool;
      return { ok: p.spec.nodeName === nodeB && pool === nodeB, seen: { p, claim } };
    });
    const { p, claim } = placed;
    expect(claim.metadata.uid).toBe(before.metadata.uid);
    expect(claim.status?.allocation?.nodeSelector).toEqual(onlyOn(nodeB));
    expect(claim.status?.reservedFor).toEqual([
      { resource: 'pods', name: 'p', uid: p.metadata.uid },
    ]);
  });

  it('said so in the FailedScheduling Event of the failed attempt', async () => {
    const notes = await waitFor('the FailedScheduling Event', async () => {
      const events = eventsAbout(await cluster().kubectl.events(ns), 'p', 'FailedScheduling');
      const seen = events.map((e) => e.note ?? '');
      return { ok: seen.length > 0, seen };
    });
    expect(notes).toContainEqual(
      expect.stringContaining('deallocation of ResourceClaim completed'),
    );
  });
});
