// kube-controller-manager's resourceclaim controller in the test control plane: a pod's claim template becomes a ResourceClaim the pod owns and names in its status, the claim goes with the pod, and the kube-scheduler oracle allocates it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { useCluster } from './support/cluster.ts';
import { startKubeScheduler } from './support/kube-scheduler.ts';
import type { OwnerReferenceJson } from './support/kubectl.ts';
import { kwokNode, type Manifest, namespace, pod } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'claims';
const claimsPath = `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`;
const templatesPath = `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaimtemplates`;
/** No scheduler has this name: the pods stay pending, so their claims stay unallocated. */
const schedulerName = 'berth-test-none';
/** The pod's name for its claim (spec.resourceClaims[].name). */
const podClaimName = 'accel';

interface ObjectMeta {
  name: string;
  generateName?: string;
  uid: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReferenceJson[];
  finalizers?: string[];
  deletionTimestamp?: string;
}

interface ClaimJson {
  metadata: ObjectMeta;
  spec: unknown;
  status?: {
    allocation?: { devices?: { results?: Record<string, unknown>[] } };
    reservedFor?: Record<string, unknown>[];
  };
}

interface TemplateJson {
  metadata: ObjectMeta;
  spec: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> } };
}

interface ClaimPodJson {
  metadata: ObjectMeta;
  spec: { nodeName?: string };
  status?: { resourceClaimStatuses?: { name: string; resourceClaimName?: string }[] };
}

const template: Manifest = {
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaimTemplate',
  metadata: { name: 'two-gpus', namespace: ns },
  spec: {
    metadata: {
      labels: { 'example.com/claim-of': 'two-gpus' },
      annotations: { 'example.com/note': 'copied from the template' },
    },
    spec: {
      devices: {
        requests: [
          {
            name: 'gpu',
            exactly: {
              deviceClassName: 'gpu.example.com',
              allocationMode: 'ExactCount',
              count: 2,
              selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }],
            },
          },
        ],
      },
    },
  },
};

/**
 * A pod whose container uses a claim made from the template; pending unless `scheduler` is
 * given (no scheduler serves the default one).
 */
function claimPod(
  name: string,
  opts: { finalizers?: string[]; scheduler?: string } = {},
): Manifest {
  const { finalizers, scheduler = schedulerName } = opts;
  const p = pod(name, ns, { schedulerName: scheduler }) as {
    metadata: Record<string, unknown>;
    spec: { containers: { resources: Record<string, unknown> }[] } & Record<string, unknown>;
  };
  if (finalizers !== undefined) p.metadata.finalizers = finalizers;
  p.spec.resourceClaims = [{ name: podClaimName, resourceClaimTemplateName: 'two-gpus' }];
  for (const c of p.spec.containers) c.resources.claims = [{ name: podClaimName }];
  return p;
}

describe('kube-controller-manager (resourceclaim and garbage collector controllers)', () => {
  // The garbage collector too: kube's resourceclaim controller deletes the unallocated claim of a
  // pod deleted before it was scheduled only while its cache still holds the pod (with its
  // deletionTimestamp); once the pod is gone from it, it leaves the claim to the garbage collector.
  const cluster = useCluster('resourceclaim', {
    controllers: ['resourceclaim-controller', 'garbage-collector-controller'],
  });
  let api: Api;
  let storedTemplate: TemplateJson;

  const claims = async () => (await api.ok<{ items: ClaimJson[] }>('GET', claimsPath)).items;
  const getPod = (name: string) =>
    api.request<ClaimPodJson>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
  /** Waits for the claim whose controlling owner is the pod with `uid`. */
  const claimOwnedBy = (uid: string) =>
    waitFor(`a ResourceClaim owned by pod ${uid}`, async () => {
      const owned = (await claims()).filter((c) =>
        c.metadata.ownerReferences?.some((o) => o.uid === uid && o.controller === true),
      );
      return { ok: owned.length === 1, seen: owned[0] as ClaimJson };
    });
  const claimGone = (name: string) =>
    waitFor(`ResourceClaim ${name} deleted`, async () => {
      const r = await api.request<ClaimJson>('GET', `${claimsPath}/${name}`);
      return { ok: r.status === 404, seen: { status: r.status, body: r.body } };
    });

  beforeAll(async () => {
    api = new Api(cluster().kubeconfig);
    await api.ok('POST', '/api/v1/namespaces', namespace(ns));
    storedTemplate = await api.ok<TemplateJson>('POST', templatesPath, template);
  });

  afterAll(() => api?.close());

  it('runs next to a kube-apiserver that serves resource.k8s.io/v1 with DeviceTaintRules', async () => {
    expect(Object.keys(cluster().pids())).toContain('kube-controller-manager');
    const group = await api.ok<{ groupVersion: string; resources: { name: string }[] }>(
      'GET',
      '/apis/resource.k8s.io/v1',
    );
    expect(group.groupVersion).toBe('resource.k8s.io/v1');
    expect(group.resources.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'deviceclasses',
        'devicetaintrules',
        'resourceclaims',
        'resourceclaims/status',
        'resourceclaimtemplates',
        'resourceslices',
      ]),
    );
  });

  it("turns a pod's claim template into a ResourceClaim the pod owns and names in its status", async () => {
    const created = await api.createPod(ns, claimPod('trainer'));
    const uid = created.metadata.uid as string;
    const claim = await claimOwnedBy(uid);

    expect(claim.metadata.generateName).toBe(`trainer-${podClaimName}-`);
    expect(claim.metadata.annotations).toEqual({
      ...storedTemplate.spec.metadata?.annotations,
      'resource.kubernetes.io/pod-claim-name': podClaimName,
    });
    expect(claim.metadata.labels).toEqual(storedTemplate.spec.metadata?.labels);
    // The controlling owner, without blockOwnerDeletion (kube 1.37 sets only controller).
    expect(claim.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'trainer', uid, controller: true },
    ]);
    // The template's spec as the API server stored it (with its defaults), unallocated.
    expect(claim.spec).toEqual((storedTemplate.spec as { spec: unknown }).spec);
    expect(claim.status?.allocation).toBeUndefined();

    const statuses = await waitFor('pod.status.resourceClaimStatuses', async () => {
      const p = (await getPod('trainer')).body;
      return { ok: p.status?.resourceClaimStatuses !== undefined, seen: p.status };
    });
    expect(statuses?.resourceClaimStatuses).toEqual([
      { name: podClaimName, resourceClaimName: claim.metadata.name },
    ]);
    // Nothing scheduled it.
    expect((await getPod('trainer')).body.spec.nodeName).toBeUndefined();
  });

  it('deleting the pod deletes its unallocated claim', async () => {
    const created = await api.createPod(ns, claimPod('brief'));
    const uid = created.metadata.uid as string;
    const claim = await claimOwnedBy(uid);
    const r = await api.deletePod(ns, 'brief', uid);
    expect(r.status).toBe(200);
    await claimGone(claim.metadata.name);
  });

  it('a pod deleted before it was scheduled but held by a finalizer loses its claim (the resourceclaim controller)', async () => {
    const created = await api.createPod(ns, claimPod('held', { finalizers: ['example.com/hold'] }));
    const uid = created.metadata.uid as string;
    const claim = await claimOwnedBy(uid);
    await api.deletePod(ns, 'held', uid);
    await claimGone(claim.metadata.name);
    // The owner still exists (deleting, not scheduled): the garbage collector leaves its
    // dependents alone, so it was the resourceclaim controller that deleted the claim.
    const held = (await getPod('held')).body;
    expect(held.metadata.deletionTimestamp).toBeDefined();
    await api.ok('PATCH', `/api/v1/namespaces/${ns}/pods/held`, {
      metadata: { finalizers: null },
    });
  });

  it('kube-scheduler 1.37.2, started as the tests start the oracle, allocates the claim from a ResourceSlice and binds the pod', async () => {
    const node = 'gpu-node';
    await api.ok('POST', '/api/v1/nodes', kwokNode(node, { cpu: '4', memory: '8Gi' }));
    await api.ok('POST', '/apis/resource.k8s.io/v1/deviceclasses', {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'gpu.example.com' },
      spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
    });
    await api.ok('POST', '/apis/resource.k8s.io/v1/resourceslices', {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: `${node}-gpus` },
      spec: {
        driver: 'gpu.example.com',
        nodeName: node,
        pool: { name: node, generation: 1, resourceSliceCount: 1 },
        devices: [{ name: 'gpu-0' }, { name: 'gpu-1' }, { name: 'gpu-2' }],
      },
    });
    const scheduler = startKubeScheduler(cluster());
    try {
      const created = await api.createPod(
        ns,
        claimPod('oracle', { scheduler: 'default-scheduler' }),
      );
      const uid = created.metadata.uid as string;
      const claim = await waitFor('the claim allocated and reserved for the pod', async () => {
        const c = (await claims()).find((x) => x.metadata.ownerReferences?.[0]?.uid === uid);
        return { ok: (c?.status?.reservedFor?.length ?? 0) > 0, seen: c };
      });
      const results = claim?.status?.allocation?.devices?.results ?? [];
      expect(results).toHaveLength(2);
      for (const r of results)
        expect(r).toMatchObject({ request: 'gpu', driver: 'gpu.example.com', pool: node });
      expect(claim?.status?.reservedFor).toEqual([{ resource: 'pods', name: 'oracle', uid }]);
      const bound = await waitFor('the pod bound', async () => {
        const p = (await getPod('oracle')).body;
        return { ok: p.spec.nodeName !== undefined, seen: p };
      });
      expect(bound.spec.nodeName).toBe(node);
    } finally {
      await scheduler.stop();
    }
  });
});
