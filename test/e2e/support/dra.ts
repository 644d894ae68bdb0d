// DRA objects and probes for the fault and bad-input e2e tests: slices, claims, claim pods, a binding-refusing admission policy, claim reads.
import { randomUUID } from 'node:crypto';
import type { AllocationResult } from '../../../src/model/dra-types.ts';
import type { Api } from './api.ts';
import type { Cluster } from './control-plane.ts';
import { type PodJson, podScheduledCondition } from './kubectl.ts';
import { type Manifest, pod } from './manifests.ts';
import { waitFor } from './wait.ts';

/** The driver (and DeviceClass name) the DRA e2e tests use. */
export const gpuDriver = 'gpu.example.com';

/** The path of the namespace's ResourceClaims. */
export const claimsPath = (ns: string) =>
  `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`;

/** The parts of a ResourceClaim these tests read. */
export interface ClaimJson {
  metadata: { name: string; uid: string; finalizers?: string[] };
  status?: {
    allocation?: AllocationResult;
    reservedFor?: { resource: string; name: string; uid: string }[];
  };
}

/** A ResourceSlice of `node` with `count` devices gpu-0…, in a pool named after the node. */
export function gpuSlice(node: string, count = 1, name = `${node}-gpus`): Manifest {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name },
    spec: {
      driver: gpuDriver,
      nodeName: node,
      pool: { name: node, generation: 1, resourceSliceCount: 1 },
      devices: Array.from({ length: count }, (_, i) => ({ name: `gpu-${i}` })),
    },
  };
}

/** A claim with one request per entry of `classes` (request `r<i>`, one device of that class). */
export function gpuClaim(ns: string, name: string, classes: string[] = [gpuDriver]): Manifest {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name, namespace: ns },
    spec: {
      devices: {
        requests: classes.map((c, i) => ({ name: `r${i}`, exactly: { deviceClassName: c } })),
      },
    },
  };
}

/** A pod berth schedules that uses the claims named `claims`, optionally kept to `node`. */
export function claimPod(ns: string, name: string, claims: string[], node?: string): Manifest {
  const p = pod(
    name,
    ns,
    node === undefined ? {} : { nodeSelector: { 'kubernetes.io/hostname': node } },
  ) as {
    spec: { containers: { resources: Record<string, unknown> }[] } & Record<string, unknown>;
  };
  p.spec.resourceClaims = claims.map((c) => ({ name: c, resourceClaimName: c }));
  for (const c of p.spec.containers) c.resources.claims = claims.map((c) => ({ name: c }));
  return p as unknown as Manifest;
}

/**
 * Makes kube-apiserver refuse every Binding of the pods called `names` (a
 * ValidatingAdmissionPolicy, no webhook), and waits until it does (probing with a pod of the
 * first name in `probeNs`, deleted again). Returns a function that lifts the refusal.
 */
export async function refuseBindings(
  admin: Api,
  policy: string,
  names: string[],
  probeNs: string,
): Promise<() => Promise<void>> {
  const base = '/apis/admissionregistration.k8s.io/v1';
  await admin.ok('POST', `${base}/validatingadmissionpolicies`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: policy },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['pods/binding'],
          },
        ],
      },
      validations: [
        {
          expression: `!(request.name in ${JSON.stringify(names)})`,
          message: 'e2e: this Binding is refused on purpose',
        },
      ],
    },
  });
  await admin.ok('POST', `${base}/validatingadmissionpolicybindings`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: policy },
    spec: { policyName: policy, validationActions: ['Deny'] },
  });
  const probe = names[0] ?? 'probe';
  const created = await admin.createPod(probeNs, pod(probe, probeNs, { schedulerName: 'nobody' }));
  await waitFor('the admission policy to refuse Bindings', async () => {
    const r = await admin.request('POST', `/api/v1/namespaces/${probeNs}/pods/${probe}/binding`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: probe },
      target: { kind: 'Node', name: 'no-such-node' },
    });
    return { ok: r.status === 403 || r.status === 422, seen: r.status };
  });
  await admin.deletePod(probeNs, probe, created.metadata.uid);
  await waitFor('the probe pod gone', async () => {
    const r = await admin.request('GET', `/api/v1/namespaces/${probeNs}/pods/${probe}`);
    return { ok: r.status === 404, seen: r.status };
  });
  return async () => {
    await admin.ok('DELETE', `${base}/validatingadmissionpolicybindings/${policy}`);
    await admin.ok('DELETE', `${base}/validatingadmissionpolicies/${policy}`);
  };
}

/** The claim `ns/name` as the API server holds it. */
export function getClaim(admin: Api, ns: string, name: string): Promise<ClaimJson> {
  return admin.ok<ClaimJson>('GET', `${claimsPath(ns)}/${name}`);
}

/** The pod `ns/name` as the API server holds it. */
export function getPod(admin: Api, ns: string, name: string): Promise<PodJson> {
  return admin.ok<PodJson>('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
}

/** `pool/device` of every device allocated to a claim of `ns`, with the claims holding it. */
export async function devicesByHolder(admin: Api, ns: string): Promise<Map<string, string[]>> {
  const claims = await admin.ok<{ items: ClaimJson[] }>('GET', claimsPath(ns));
  const held = new Map<string, string[]>();
  for (const c of claims.items)
    for (const r of c.status?.allocation?.devices.results ?? []) {
      const id = `${r.pool}/${r.device}`;
      held.set(id, [...(held.get(id) ?? []), c.metadata.name]);
    }
  return held;
}

/** Waits until the pod `ns/name` is bound; returns its node. */
export async function waitBound(admin: Api, ns: string, name: string, check?: () => void) {
  return waitFor(`${ns}/${name} bound`, async () => {
    check?.();
    const p = await getPod(admin, ns, name);
    return { ok: p.spec.nodeName !== undefined, seen: p.spec.nodeName ?? p.status };
  });
}

/** Waits until the pod `ns/name` is marked unschedulable; returns the PodScheduled message. */
export async function waitUnschedulable(admin: Api, ns: string, name: string, check?: () => void) {
  return waitFor(`${ns}/${name} PodScheduled=False`, async () => {
    check?.();
    const p = await getPod(admin, ns, name);
    const c = podScheduledCondition(p);
    return {
      ok: p.spec.nodeName === undefined && c?.status === 'False',
      seen: c?.message ?? JSON.stringify(p.status),
    };
  });
}

/** Deletes the claim `ns/name` for good (its finalizer dropped, as its deallocation would). */
export async function dropClaim(admin: Api, ns: string, name: string): Promise<void> {
  await admin.ok('PATCH', `${claimsPath(ns)}/${name}`, { metadata: { finalizers: null } });
  await admin.ok('DELETE', `${claimsPath(ns)}/${name}`);
}

/**
 * Stores `object` (a cluster-scoped one when `namespace` is undefined) straight in etcd as
 * JSON, behind kube-apiserver's validation, as an older or buggier server could have left
 * it; kube-apiserver reads it back and sends it to watchers.
 */
export async function putInEtcd(
  cluster: Cluster,
  resource: string,
  object: Manifest & { metadata: { name: string; namespace?: string } },
): Promise<void> {
  const { name, namespace } = object.metadata;
  const key = `/registry/${resource}/${namespace === undefined ? '' : `${namespace}/`}${name}`;
  const stored = {
    ...object,
    metadata: {
      ...object.metadata,
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    },
  };
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  await cluster.etcd('kv/put', { key: b64(key), value: b64(JSON.stringify(stored)) });
}
