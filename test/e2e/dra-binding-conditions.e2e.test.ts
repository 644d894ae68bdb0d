// DRA device binding conditions with berth on a real API server under the chart's RBAC, the test playing the driver: a pod binds only once its device's condition is True; a binding-failure condition leaves it unbound and its claim released; the recording replays.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AllocationResult } from '../../src/model/dra-types.ts';
import { Api } from './support/api.ts';
import { type BerthRun, berthCommand, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import { eventsAbout } from './support/kubectl.ts';
import { deviceClass, kwokNode, type Manifest, namespace, pod } from './support/manifests.ts';
import { waitFor } from './support/wait.ts';

const ns = 'dra-bindcond';
const node = 'bc-node';
const driver = 'fabric.example.com';
const claimsPath = `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`;

interface ClaimJson {
  metadata: { name: string; uid: string; resourceVersion: string };
  status?: {
    allocation?: AllocationResult;
    reservedFor?: { resource: string; name: string; uid: string }[];
    devices?: { conditions?: { type: string; status: string }[] }[];
  };
}

/** n1's pool: two devices that bind to their node once the driver sets `Attached`. */
const slice: Manifest = {
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceSlice',
  metadata: { name: `${node}-fabric` },
  spec: {
    driver,
    nodeName: node,
    pool: { name: node, generation: 1, resourceSliceCount: 1 },
    devices: ['gpu-0', 'gpu-1'].map((name) => ({
      name,
      bindsToNode: true,
      bindingConditions: ['Attached'],
      bindingFailureConditions: ['AttachFailed'],
    })),
  },
};

const claim = (name: string): Manifest => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name, namespace: ns },
  spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: driver } }] } },
});

/** A pod berth schedules, using claim `claimName`. */
function claimPod(name: string, claimName: string): Manifest {
  const p = pod(name, ns) as {
    spec: { containers: { resources: Record<string, unknown> }[] } & Record<string, unknown>;
  };
  p.spec.resourceClaims = [{ name: 'gpu', resourceClaimName: claimName }];
  for (const c of p.spec.containers) c.resources.claims = [{ name: 'gpu' }];
  return p as unknown as Manifest;
}

describe('DRA binding conditions with berth (chart RBAC, kube-apiserver 1.37.2)', () => {
  const cluster = useCluster('dra-binding-conditions');
  let admin: Api;
  let berth: BerthRun | undefined;
  let record = '';

  const getClaim = (name: string) => admin.ok<ClaimJson>('GET', `${claimsPath}/${name}`);
  const getPod = (name: string) =>
    admin.ok<{ metadata: { uid: string }; spec: { nodeName?: string } }>(
      'GET',
      `/api/v1/namespaces/${ns}/pods/${name}`,
    );
  /** Waits until claim `name` is allocated and reserved for pod `podName`. */
  const reservedFor = (name: string, podName: string) =>
    waitFor(`claim ${name} allocated for ${podName}`, async () => {
      const c = await getClaim(name);
      const held = c.status?.reservedFor?.some((r) => r.name === podName) === true;
      return { ok: c.status?.allocation !== undefined && held, seen: c };
    });
  /** The driver: sets `type` True on the claim's allocated device (a status update). */
  const driverSets = async (name: string, type: string, reason: string, message: string) => {
    const c = await getClaim(name);
    const r = c.status?.allocation?.devices.results[0];
    if (r === undefined) throw new Error(`claim ${name} is not allocated`);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const conditions = [{ type, status: 'True', reason, message, lastTransitionTime: now }];
    await admin.ok('PUT', `${claimsPath}/${name}/status`, {
      ...c,
      status: {
        ...c.status,
        devices: [{ driver: r.driver, pool: r.pool, device: r.device, conditions }],
      },
    });
  };

  beforeAll(async () => {
    const c = cluster();
    admin = new Api(c.kubeconfig);
    await admin.ok('POST', '/api/v1/namespaces', namespace(ns));
    await admin.ok('POST', '/api/v1/nodes', kwokNode(node, { cpu: '4', memory: '8Gi' }));
    await admin.ok('POST', '/apis/resource.k8s.io/v1/deviceclasses', deviceClass(driver));
    await admin.ok('POST', '/apis/resource.k8s.io/v1/resourceslices', slice);
    for (const n of ['c-ok', 'c-fail']) await admin.ok('POST', claimsPath, claim(n));
    record = join(c.dir, 'binding-conditions.record.jsonl');
    berth = await startBerth(c, { name: 'berth-bindcond', args: ['--record', record] });
  });

  afterAll(async () => {
    await berth?.stop('SIGKILL', 5_000);
    admin?.close();
  });

  it('holds the pod unbound after writing its claim, until the driver sets the condition True; then binds it', async () => {
    await admin.createPod(ns, claimPod('p-ok', 'c-ok'));
    const written = await reservedFor('c-ok', 'p-ok');
    expect(written.status?.allocation?.devices.results[0]).toMatchObject({
      bindingConditions: ['Attached'],
      bindingFailureConditions: ['AttachFailed'],
    });
    // bindsToNode: the allocation is limited to the node it was made for.
    expect(written.status?.allocation?.nodeSelector).toEqual({
      nodeSelectorTerms: [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] },
      ],
    });
    expect(written.status?.allocation?.allocationTimestamp).toMatch(/Z$/);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await getPod('p-ok')).spec.nodeName).toBeUndefined();
    const pending = eventsAbout(
      await cluster().kubectl.events(ns),
      'p-ok',
      'BindingConditionsPending',
    );
    expect(pending.map((e) => e.note)).toContain(
      `waiting for binding conditions for device on node ${node}`,
    );
    await driverSets('c-ok', 'Attached', 'Attached', 'attached to the node');
    await waitFor('p-ok bound', async () => {
      const p = await getPod('p-ok');
      return { ok: p.spec.nodeName === node, seen: p.spec };
    });
  });

  it('on a binding failure leaves the pod unbound, takes it out of the claim and deallocates the claim', async () => {
    await admin.createPod(ns, claimPod('p-fail', 'c-fail'));
    await reservedFor('c-fail', 'p-fail');
    // Every state of the claim from now on, as its watch shows it.
    const states: string[] = [];
    const rv = await admin.listResourceVersion(claimsPath);
    const watch = admin.watch<ClaimJson>(
      `${claimsPath}?fieldSelector=metadata.name%3Dc-fail`,
      rv,
      (e) => {
        const st = e.object?.status;
        if (e.type === 'BOOKMARK' || st === undefined) return;
        const failed = st.devices?.some((d) => d.conditions?.some((c) => c.status === 'True'));
        states.push(
          `${st.allocation ? 'allocated' : 'free'} holders=${st.reservedFor?.length ?? 0}${failed ? ' failed' : ''}`,
        );
      },
    );
    try {
      await driverSets('c-fail', 'AttachFailed', 'NoPort', 'no free fabric port');
      await waitFor('the claim unreserved, then deallocated', async () => ({
        ok: states.includes('free holders=0'),
        seen: states,
      }));
    } finally {
      watch.stop();
    }
    // The driver's write, kube's Unreserve (the allocation and the failure stay), the
    // next cycle's PostFilter deallocation (status.devices cleared with it).
    expect(states.slice(0, 3)).toEqual([
      'allocated holders=1 failed',
      'allocated holders=0 failed',
      'free holders=0',
    ]);
    expect((await getPod('p-fail')).spec.nodeName).toBeUndefined();
    const notes = await waitFor('the FailedScheduling Events of p-fail', async () => {
      const events = eventsAbout(await cluster().kubectl.events(ns), 'p-fail', 'FailedScheduling');
      const seen = events.map((e) => e.note ?? '');
      return { ok: seen.some((n) => n.includes('deallocation of ResourceClaim completed')), seen };
    });
    expect(notes).toContain(
      'running PreBind plugin "DynamicResources": device binding failed: claim=c-fail, reason=NoPort, message="no free fabric port"',
    );
  });

  it('berth replay reproduces every recorded decision', async () => {
    await berth?.stop('SIGTERM', 10_000);
    berth = undefined;
    const r = await berthCommand(['replay', record, '--json', '--allow-unsealed']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { placements: Record<string, string> };
    expect(summary.placements[`${ns}/p-ok`]).toBe(node);
    expect(summary.placements[`${ns}/p-fail`]).toBeUndefined();
  });
});
