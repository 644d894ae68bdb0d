// DRA acceptance on faults against a real API server under the chart's RBAC: a Binding refused after PreBind wrote the claim, berth SIGKILLed between the claim write and the Binding, a ResourceSlice deleted under a pending pod.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api } from './support/api.ts';
import { type BerthRun, startBerth } from './support/berth.ts';
import { useCluster } from './support/cluster.ts';
import {
  claimPod,
  devicesByHolder,
  dropClaim,
  getClaim,
  getPod,
  gpuClaim,
  gpuSlice,
  refuseBindings,
  waitBound,
  waitUnschedulable,
} from './support/dra.ts';
import { eventsAbout } from './support/kubectl.ts';
import { deviceClass, kwokNode, namespace } from './support/manifests.ts';
import { delay, waitFor } from './support/wait.ts';

const slices = '/apis/resource.k8s.io/v1/resourceslices';
const ns = 'dra-faults';
const bindNode = 'f-bind';
const crashNode = 'f-crash';
const sliceNode = 'f-slice';

describe('DRA faults (berth as the chart installs it, kube-apiserver 1.37.2)', () => {
  const cluster = useCluster('dra-faults');
  let admin: Api;
  let berth: BerthRun;
  const alive = () => berth.checkAlive();

  beforeAll(async () => {
    admin = new Api(cluster().kubeconfig);
    await admin.ok('POST', '/api/v1/namespaces', namespace(ns));
    for (const n of [bindNode, crashNode, sliceNode]) {
      await admin.ok('POST', '/api/v1/nodes', kwokNode(n, { cpu: '4', memory: '8Gi' }));
      await admin.ok('POST', slices, gpuSlice(n));
    }
    await admin.ok(
      'POST',
      '/apis/resource.k8s.io/v1/deviceclasses',
      deviceClass('gpu.example.com'),
    );
    berth = await startBerth(cluster(), { name: 'berth-1' });
  });

  afterAll(async () => {
    await berth?.stop('SIGTERM', 10_000);
    admin?.close();
  });

  it('a Binding refused after PreBind wrote the claim: the pod leaves reservedFor, is retried, and the device goes to the next pod', async () => {
    // Deterministic: kube-apiserver's admission refuses every Binding of b1, so each of
    // berth's attempts writes the claim (PreBind) and then fails at the Binding.
    const lift = await refuseBindings(admin, 'refuse-b1', ['b1'], ns);
    await admin.ok(
      'POST',
      `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`,
      gpuClaim(ns, 'bc1'),
    );
    const b1 = await admin.createPod(ns, claimPod(ns, 'b1', ['bc1'], bindNode));
    const uid = b1.metadata.uid as string;
    // Retried: berth logs each refused Binding with its attempt number.
    const retried = await waitFor(
      'a second refused Binding of b1 (the pod is retried)',
      async () => {
        alive();
        const failed = berth.logs().filter((e) => e.msg === 'bind failed' && e.uid === uid);
        return { ok: failed.length >= 2, seen: failed.map((e) => e.attempt) };
      },
    );
    expect(retried.slice(0, 2)).toEqual([1, 2]);
    const notes = eventsAbout(await cluster().kubectl.events(ns), 'b1', 'FailedScheduling');
    expect(notes.map((e) => e.note).join('\n')).toMatch(/refused on purpose/);
    // Unreserve: between attempts the claim is allocated on f-bind and reserved for nobody.
    const released = await waitFor(
      'bc1 allocated and b1 out of its reservedFor',
      async () => {
        alive();
        const c = await getClaim(admin, ns, 'bc1');
        const reserved = (c.status?.reservedFor ?? []).some((r) => r.uid === uid);
        return { ok: c.status?.allocation !== undefined && !reserved, seen: c.status };
      },
      { intervalMs: 50 },
    );
    expect(released?.allocation?.devices.results.map((r) => `${r.pool}/${r.device}`)).toEqual([
      `${bindNode}/gpu-0`,
    ]);
    expect((await getPod(admin, ns, 'b1')).spec.nodeName).toBeUndefined();
    // The pod goes away and its claim with it: the one device is free again, and berth must
    // not still hold it for b1's failed attempts.
    await admin.deletePod(ns, 'b1', uid);
    await dropClaim(admin, ns, 'bc1');
    await lift();
    await admin.ok(
      'POST',
      `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`,
      gpuClaim(ns, 'bc2'),
    );
    await admin.createPod(ns, claimPod(ns, 'b2', ['bc2'], bindNode));
    expect(await waitBound(admin, ns, 'b2', alive)).toBe(bindNode);
    const c2 = await getClaim(admin, ns, 'bc2');
    expect(c2.status?.allocation?.devices.results[0]?.device).toBe('gpu-0');
  });

  it('berth SIGKILLed between the claim write and the Binding: after a restart the pod is bound with its claim and no device is allocated twice', async () => {
    const lift = await refuseBindings(admin, 'refuse-k1', ['k1'], ns);
    await admin.ok(
      'POST',
      `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`,
      gpuClaim(ns, 'kc1'),
    );
    const k1 = await admin.createPod(ns, claimPod(ns, 'k1', ['kc1'], crashNode));
    const uid = k1.metadata.uid as string;
    // Kill as soon as the claim shows the allocation (the Binding cannot have succeeded).
    const atKill = await waitFor(
      'kc1 allocated by berth',
      async () => {
        alive();
        const c = await getClaim(admin, ns, 'kc1');
        return { ok: c.status?.allocation !== undefined, seen: c.status };
      },
      { intervalMs: 10 },
    );
    expect((await berth.stop('SIGKILL')).signal).toBe('SIGKILL');
    const reservedAtKill = (atKill?.reservedFor ?? []).some((r) => r.uid === uid);
    process.stderr.write(
      `[e2e] dra-faults: killed with k1 ${reservedAtKill ? 'in' : 'out of'} kc1's reservedFor\n`,
    );
    expect((await getPod(admin, ns, 'k1')).spec.nodeName).toBeUndefined();
    await lift();
    berth = await startBerth(cluster(), { name: 'berth-2' });
    expect(await waitBound(admin, ns, 'k1', alive)).toBe(crashNode);
    await admin.ok(
      'POST',
      `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`,
      gpuClaim(ns, 'kc2'),
    );
    await admin.createPod(ns, claimPod(ns, 'k2', ['kc2'], crashNode));
    expect(await waitUnschedulable(admin, ns, 'k2', alive)).toMatch(/cannot allocate all claims/);
    const kc1 = await getClaim(admin, ns, 'kc1');
    expect(kc1.status?.reservedFor).toEqual([{ resource: 'pods', name: 'k1', uid }]);
    expect(kc1.status?.allocation?.devices.results[0]).toMatchObject({
      pool: crashNode,
      device: 'gpu-0',
    });
    expect((await getClaim(admin, ns, 'kc2')).status?.allocation).toBeUndefined();
    const twice = [...(await devicesByHolder(admin, ns))].filter(
      ([, holders]) => holders.length > 1,
    );
    expect(twice).toEqual([]);
  });

  it('a ResourceSlice deleted under a pending pod: the pod stays pending with a reason, and is placed once a slice is back', async () => {
    // The one device is taken by h1; s1 waits for it.
    await admin.ok(
      'POST',
      `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`,
      gpuClaim(ns, 'hc'),
    );
    await admin.createPod(ns, claimPod(ns, 'h1', ['hc'], sliceNode));
    expect(await waitBound(admin, ns, 'h1', alive)).toBe(sliceNode);
    await admin.ok(
      'POST',
      `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`,
      gpuClaim(ns, 'sc'),
    );
    await admin.createPod(ns, claimPod(ns, 's1', ['sc'], sliceNode));
    expect(await waitUnschedulable(admin, ns, 's1', alive)).toMatch(/cannot allocate all claims/);
    // The slice goes, then the device's holder: nothing is left that s1 could use.
    await admin.ok('DELETE', `${slices}/${sliceNode}-gpus`);
    const h1 = await getPod(admin, ns, 'h1');
    await admin.deletePod(ns, 'h1', h1.metadata.uid);
    await dropClaim(admin, ns, 'hc');
    await delay(3_000);
    alive();
    const s1 = await getPod(admin, ns, 's1');
    expect(s1.spec.nodeName).toBeUndefined();
    expect(await waitUnschedulable(admin, ns, 's1', alive)).toMatch(/cannot allocate all claims/);
    expect((await getClaim(admin, ns, 'sc')).status?.allocation).toBeUndefined();
    await admin.ok('POST', slices, gpuSlice(sliceNode, 1, `${sliceNode}-gpus-again`));
    expect(await waitBound(admin, ns, 's1', alive)).toBe(sliceNode);
    const sc = await getClaim(admin, ns, 'sc');
    expect(sc.status?.allocation?.devices.results[0]).toMatchObject({
      pool: sliceNode,
      device: 'gpu-0',
    });
  });
});
