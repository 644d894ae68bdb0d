// berth's KubeBinder writes a bind's ResourceClaims (finalizer, allocation, reservedFor) before the Binding on a real API server, under the chart's RBAC, and takes the pod out of them again when the Binding fails.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig, makeClients } from '../../src/adapters/kube/config.ts';
import { kubeEffects } from '../../src/adapters/kube/effects.ts';
import { TokenBucket } from '../../src/adapters/kube/rate-limiter.ts';
import type { BindCommand } from '../../src/core/commands.ts';
import type { InputEvent } from '../../src/events/types.ts';
import type { AllocationResult } from '../../src/model/dra-types.ts';
import { Api } from './support/api.ts';
import { chartAccess } from './support/chart-access.ts';
import { useCluster } from './support/cluster.ts';
import { kwokNode, type Manifest, namespace, pod } from './support/manifests.ts';

const ns = 'dra-prebind';
const node = 'gpu-node';
const driver = 'gpu.example.com';
const claimsPath = `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`;
const finalizer = 'resource.kubernetes.io/delete-protection';

interface ClaimJson {
  metadata: { name: string; uid: string; finalizers?: string[]; labels?: Record<string, string> };
  status?: {
    allocation?: AllocationResult;
    reservedFor?: { resource: string; name: string; uid: string }[];
  };
}

/** A claim for one device of the test's class. */
function claim(name: string): Manifest {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name, namespace: ns },
    spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: driver } }] } },
  };
}

/** A pod using `claims` by name; no scheduler serves `nobody`, only the test binds it. */
function claimPod(name: string, claims: string[]): Manifest {
  const p = pod(name, ns, { schedulerName: 'nobody' }) as {
    spec: { containers: { resources: Record<string, unknown> }[] } & Record<string, unknown>;
  };
  p.spec.resourceClaims = claims.map((c) => ({ name: c, resourceClaimName: c }));
  for (const c of p.spec.containers) c.resources.claims = claims.map((c) => ({ name: c }));
  return p as unknown as Manifest;
}

function allocation(device: string): AllocationResult {
  return {
    devices: { results: [{ request: 'gpu', driver, pool: node, device }] },
    nodeSelector: {
      nodeSelectorTerms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] },
      ],
    },
  };
}

describe('DRA PreBind and Unreserve of the KubeBinder (chart RBAC, kube-apiserver 1.37.2)', () => {
  const cluster = useCluster('dra-prebind');
  let admin: Api;
  const ingested: InputEvent[] = [];
  /** Requests the binder sent (`METHOD path` past the namespace), in order. */
  const sent: string[] = [];
  /** Runs once before the binder's next request matching the key (`METHOD path`), then is dropped. */
  const before = new Map<string, () => Promise<void>>();
  let binder: ReturnType<typeof kubeEffects>['binder'];

  const getClaim = (name: string) => admin.ok<ClaimJson>('GET', `${claimsPath}/${name}`);
  const nodeOf = async (name: string) =>
    (
      await admin.ok<{ spec: { nodeName?: string } }>(
        'GET',
        `/api/v1/namespaces/${ns}/pods/${name}`,
      )
    ).spec.nodeName;
  const makeClaim = (name: string) => admin.ok<ClaimJson>('POST', claimsPath, claim(name));
  const bind = async (command: Omit<BindCommand, 'kind' | 'node'>) => {
    binder.execute({ kind: 'bind', node, ...command });
    await binder.idle();
    return ingested.at(-1);
  };

  beforeAll(async () => {
    const c = cluster();
    admin = new Api(c.kubeconfig);
    await admin.ok('POST', '/api/v1/namespaces', namespace(ns));
    await admin.ok('POST', '/api/v1/nodes', kwokNode(node, { cpu: '8', memory: '16Gi' }));
    await admin.ok('POST', '/apis/resource.k8s.io/v1/deviceclasses', {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: driver },
      spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
    });
    const clients = makeClients(loadKubeConfig({ kubeconfig: (await chartAccess(c)).kubeconfig }));
    const http = clients.http;
    const request = http.request.bind(http);
    // Records each request and runs the test's interleaving (another writer) before it.
    http.request = async (method, path, body, opts) => {
      const line = `${method} ${path.replace(/^.*\/namespaces\/[^/]+\//, '')}`;
      sent.push(line);
      const hook = before.get(line);
      before.delete(line);
      await hook?.();
      return request(method, path, body, opts);
    };
    ({ binder } = kubeEffects({
      clients,
      limiter: new TokenBucket({ qps: 100, burst: 100 }),
      reportLimiter: new TokenBucket({ qps: 100, burst: 100 }),
      ingest: (e) => ingested.push(e),
      logger: pino({ level: 'warn' }),
      reportingInstance: 'berth-e2e',
      schedulerName: 'berth',
    }));
  });

  afterAll(() => {
    binder?.stop();
    admin?.close();
  });

  it('writes the finalizer, the allocation and the pod in reservedFor, then binds the pod', async () => {
    const c1 = await makeClaim('c1');
    const p1 = await admin.createPod(ns, claimPod('p1', ['c1']));
    const uid = p1.metadata.uid as string;
    sent.length = 0;
    const result = await bind({
      attempt: { uid, key: `${ns}/p1`, attempt: 1 },
      claims: [
        { namespace: ns, name: 'c1', uid: c1.metadata.uid, allocation: allocation('gpu-0') },
      ],
    });
    expect(result).toEqual({ type: 'BindSucceeded', uid, key: `${ns}/p1`, attempt: 1, node });
    expect(sent).toEqual([
      'GET resourceclaims/c1',
      'PUT resourceclaims/c1',
      'PUT resourceclaims/c1/status',
      'POST pods/p1/binding',
    ]);
    const stored = await getClaim('c1');
    expect(stored.metadata.finalizers).toEqual([finalizer]);
    const { allocationTimestamp, ...written } =
      stored.status?.allocation ?? ({} as AllocationResult);
    expect(written).toEqual(allocation('gpu-0'));
    expect(Date.parse(allocationTimestamp ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(stored.status?.reservedFor).toEqual([{ resource: 'pods', name: 'p1', uid }]);
    expect(await nodeOf('p1')).toBe(node);
  });

  it('reserves an allocated claim for a second pod (shared) without touching its allocation', async () => {
    const before1 = await getClaim('c1');
    const p2 = await admin.createPod(ns, claimPod('p2', ['c1']));
    const uid = p2.metadata.uid as string;
    const result = await bind({
      attempt: { uid, key: `${ns}/p2`, attempt: 1 },
      claims: [{ namespace: ns, name: 'c1', uid: before1.metadata.uid }],
    });
    expect(result?.type).toBe('BindSucceeded');
    const stored = await getClaim('c1');
    expect(stored.status?.allocation).toEqual(before1.status?.allocation);
    expect(stored.status?.reservedFor?.map((r) => r.name)).toEqual(['p1', 'p2']);
    expect(await nodeOf('p2')).toBe(node);
  });

  it('when the Binding fails (the pod was recreated under its name: 409), takes the pod out of reservedFor again; the allocation stays', async () => {
    const c3 = await makeClaim('c3');
    const old = await admin.createPod(ns, claimPod('p3', ['c3']));
    const oldUid = old.metadata.uid as string;
    expect((await admin.deletePod(ns, 'p3', oldUid)).status).toBe(200);
    const recreated = await admin.createPod(ns, claimPod('p3', ['c3']));
    sent.length = 0;
    const result = await bind({
      attempt: { uid: oldUid, key: `${ns}/p3`, attempt: 1 },
      claims: [
        { namespace: ns, name: 'c3', uid: c3.metadata.uid, allocation: allocation('gpu-1') },
      ],
    });
    expect(result).toMatchObject({
      type: 'BindFailed',
      uid: oldUid,
      reason: 'Conflict',
      code: 409,
    });
    expect(sent).toEqual([
      'GET resourceclaims/c3',
      'PUT resourceclaims/c3',
      'PUT resourceclaims/c3/status',
      'POST pods/p3/binding',
      'PATCH resourceclaims/c3/status',
    ]);
    const stored = await getClaim('c3');
    expect(stored.status?.reservedFor ?? []).toEqual([]);
    expect(stored.status?.allocation?.devices.results).toEqual(allocation('gpu-1').devices.results);
    expect(stored.metadata.finalizers).toEqual([finalizer]);
    expect(await nodeOf('p3')).toBeUndefined();
    expect(recreated.metadata.uid).not.toBe(oldUid);
  });

  it('when another writer changes the claim between read and write (409), reads it again and still binds', async () => {
    const c4 = await makeClaim('c4');
    const p4 = await admin.createPod(ns, claimPod('p4', ['c4']));
    const uid = p4.metadata.uid as string;
    before.set('PUT resourceclaims/c4/status', async () => {
      await admin.ok('PATCH', `${claimsPath}/c4`, { metadata: { labels: { touched: 'yes' } } });
    });
    sent.length = 0;
    const result = await bind({
      attempt: { uid, key: `${ns}/p4`, attempt: 1 },
      claims: [
        { namespace: ns, name: 'c4', uid: c4.metadata.uid, allocation: allocation('gpu-2') },
      ],
    });
    expect(result?.type).toBe('BindSucceeded');
    expect(sent).toEqual([
      'GET resourceclaims/c4',
      'PUT resourceclaims/c4',
      'PUT resourceclaims/c4/status',
      'GET resourceclaims/c4',
      'PUT resourceclaims/c4/status',
      'POST pods/p4/binding',
    ]);
    const stored = await getClaim('c4');
    expect(stored.metadata.labels).toEqual({ touched: 'yes' });
    expect(stored.metadata.finalizers).toEqual([finalizer]);
    expect(stored.status?.reservedFor).toEqual([{ resource: 'pods', name: 'p4', uid }]);
    expect(await nodeOf('p4')).toBe(node);
  });
});
