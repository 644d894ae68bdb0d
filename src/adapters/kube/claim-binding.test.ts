// Tests DRA PreBind and Unreserve in the KubeBinder against a fake claim API: request order, conflict retries, kube's messages, undo on failure.
import { describe, expect, it } from 'vitest';
import { attempt } from '../../../test/adapters/kube-effects-harness.ts';
import { FakeClaimApi, modified, statusError } from '../../../test/support/fake-claim-api.ts';
import { manualBucket, testEffects } from '../../../test/support/kube-api-doubles.ts';
import type { AllocationResult } from '../../model/dra-types.ts';
import type { KubeEffectsOptions } from './effects.ts';
import { FencedWriteError } from './write-fence.ts';

const allocation: AllocationResult = {
  devices: {
    results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' }],
  },
};
/** Another device than `allocation`'s: a claim allocated so was allocated elsewhere. */
const otherDevices: AllocationResult = {
  devices: {
    results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-1' }],
  },
};
/** The fake clock of testEffects, as metav1.Time writes it. */
const stamp = '2030-01-02T03:04:05Z';
const podRef = { resource: 'pods', name: 'p', uid: 'uid-p' };
const unreserve = (claimUid: string) => ({
  metadata: { uid: claimUid },
  status: { reservedFor: [{ $patch: 'delete', uid: 'uid-p' }] },
});

function setup(over: Partial<KubeEffectsOptions> = {}) {
  const api = new FakeClaimApi();
  const t = testEffects(api.clients(), over);
  const bind = async (claims: { name: string; uid: string; allocated?: boolean }[]) => {
    t.binder.execute({
      kind: 'bind',
      attempt: attempt('ns/p', 2),
      node: 'n1',
      claims: claims.map((c) => ({
        namespace: 'ns',
        name: c.name,
        uid: c.uid,
        ...(c.allocated === false ? {} : { allocation }),
      })),
    });
    await t.binder.idle();
  };
  const failed = (message: string, extra: Record<string, unknown> = {}) => [
    {
      type: 'BindFailed',
      uid: 'uid-p',
      key: 'ns/p',
      attempt: 2,
      node: 'n1',
      reason: 'Error',
      message,
      // kube: the PreBind's error, `running PreBind plugin "DynamicResources": …`.
      plugin: 'DynamicResources',
      ...extra,
    },
  ];
  /** A failure of the Binding itself (the DefaultBinder's): no PreBind plugin named. */
  const bindFailed = (message: string, extra: Record<string, unknown> = {}) =>
    failed(message, extra).map(({ plugin: _, ...rest }) => rest);
  return { api, ...t, bind, failed, bindFailed };
}

describe('KubeBinder DRA PreBind', () => {
  it('puts the finalizer on, then writes the allocation (stamped) and the pod in one status update, then binds', async () => {
    const t = setup();
    t.api.put('ns/c1', 'uid-c1');
    await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
    expect(t.api.lines()).toEqual([
      'GET c1',
      'PUT c1',
      'PUT c1/status',
      'POST /api/v1/namespaces/ns/pods/p/binding',
    ]);
    const claim = t.api.claims.get('ns/c1');
    expect(claim?.metadata.finalizers).toEqual(['resource.kubernetes.io/delete-protection']);
    expect(claim?.status).toEqual({
      allocation: { ...allocation, allocationTimestamp: stamp },
      reservedFor: [podRef],
    });
    expect(t.ingested).toEqual([
      { type: 'BindSucceeded', uid: 'uid-p', key: 'ns/p', attempt: 2, node: 'n1' },
    ]);
  });

  it('does not update the claim when the finalizer is on already (an interrupted earlier attempt)', async () => {
    const t = setup();
    t.api.put('ns/c1', 'uid-c1', { finalizers: ['resource.kubernetes.io/delete-protection'] });
    await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
    expect(t.api.lines()).toEqual([
      'GET c1',
      'PUT c1/status',
      'POST /api/v1/namespaces/ns/pods/p/binding',
    ]);
  });

  it('only appends the pod to an allocated claim (shared), and skips a claim already reserved for it', async () => {
    const t = setup();
    const other = { resource: 'pods', name: 'q', uid: 'uid-q' };
    t.api.put('ns/shared', 'uid-s', { status: { allocation, reservedFor: [other] } });
    t.api.put('ns/mine', 'uid-m', { status: { allocation, reservedFor: [podRef] } });
    await t.bind([
      { name: 'shared', uid: 'uid-s', allocated: false },
      { name: 'mine', uid: 'uid-m', allocated: false },
    ]);
    expect(t.api.lines()).toEqual([
      'GET shared',
      'PUT shared/status',
      'GET mine',
      'POST /api/v1/namespaces/ns/pods/p/binding',
    ]);
    // An allocation already on the claim is not stamped: the API server refuses any change to it.
    expect(t.api.claims.get('ns/shared')?.status).toEqual({
      allocation,
      reservedFor: [other, podRef],
    });
    expect(t.ingested.map((e) => e.type)).toEqual(['BindSucceeded']);
  });

  it('on a conflict refetches the claim and tries again, as retry.RetryOnConflict does', async () => {
    const t = setup();
    t.api.put('ns/c1', 'uid-c1');
    let bumped = false;
    t.api.intercept = (call, api) => {
      // Another writer (a label update) between the finalizer update and the status update.
      if (call.path.endsWith('/status') && !bumped) {
        bumped = true;
        api.touch('ns/c1');
      }
      return undefined;
    };
    await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
    expect(t.api.lines()).toEqual([
      'GET c1',
      'PUT c1',
      'PUT c1/status',
      'GET c1',
      'PUT c1/status',
      'POST /api/v1/namespaces/ns/pods/p/binding',
    ]);
    expect(t.api.claims.get('ns/c1')?.status?.reservedFor).toEqual([podRef]);
    expect(t.ingested.map((e) => e.type)).toEqual(['BindSucceeded']);
  });

  it('gives up after 5 conflicts with the last one, naming the step (kube: add allocation and reservation to claim)', async () => {
    const t = setup();
    t.api.put('ns/c1', 'uid-c1', { finalizers: ['resource.kubernetes.io/delete-protection'] });
    t.api.intercept = (call, api) => {
      if (call.method === 'PUT') api.touch('ns/c1');
      return undefined;
    };
    await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
    expect(t.api.lines()).toEqual(
      Array.from({ length: 5 }, () => ['GET c1', 'PUT c1/status']).flat(),
    );
    expect(t.ingested).toEqual(
      t.failed(`add allocation and reservation to claim ns/c1: ${modified('c1')}`, { code: 409 }),
    );
  });

  it.each([
    [
      'got allocated elsewhere (other devices)',
      (api: FakeClaimApi) => api.put('ns/c1', 'uid-c1', { status: { allocation: otherDevices } }),
      'claim ns/c1 got allocated elsewhere in the meantime',
    ],
    [
      'got deleted (deletionTimestamp)',
      (api: FakeClaimApi) =>
        api.put('ns/c1', 'uid-c1', { deletionTimestamp: '2030-01-01T00:00:00Z' }),
      'claim ns/c1 got deleted in the meantime',
    ],
    [
      'got deleted (recreated under its name: another uid)',
      (api: FakeClaimApi) => api.put('ns/c1', 'uid-other'),
      'claim ns/c1 got deleted in the meantime',
    ],
  ])(
    'after a conflict, refuses a claim that %s, with no status code',
    async (_n, change, message) => {
      const t = setup();
      t.api.put('ns/c1', 'uid-c1');
      let changed = false;
      t.api.intercept = (call, api) => {
        if (call.method !== 'PUT' || changed) return undefined;
        changed = true;
        change(api);
        return statusError(409, 'Conflict', modified('c1'));
      };
      await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
      expect(t.api.lines()).toEqual(['GET c1', 'PUT c1', 'GET c1']);
      expect(t.ingested).toEqual(t.failed(message));
    },
  );

  it('refuses to reserve an unallocated claim it was not told to allocate (deallocated elsewhere)', async () => {
    const t = setup();
    t.api.put('ns/c1', 'uid-c1');
    await t.bind([{ name: 'c1', uid: 'uid-c1', allocated: false }]);
    expect(t.api.lines()).toEqual(['GET c1']);
    expect(t.ingested).toEqual(t.failed('claim ns/c1 got deallocated elsewhere in the meantime'));
  });

  it('reports a failed step as the scheduler error kube makes of it, with the status code (a 404 is no pod gone)', async () => {
    const t = setup();
    t.api.put('ns/c1', 'uid-c1');
    t.api.intercept = (call) =>
      call.method === 'PUT'
        ? statusError(403, 'Forbidden', 'resourceclaims "c1" is forbidden')
        : undefined;
    await t.bind([
      { name: 'c1', uid: 'uid-c1' },
      { name: 'gone', uid: 'uid-g' },
    ]);
    expect(t.ingested).toEqual(
      t.failed('add finalizer to claim ns/c1: resourceclaims "c1" is forbidden', { code: 403 }),
    );
    const again = setup();
    again.api.put('ns/c1', 'uid-c1');
    await again.bind([
      { name: 'c1', uid: 'uid-c1' },
      { name: 'gone', uid: 'uid-g' },
    ]);
    expect(again.ingested).toEqual(
      again.failed('get claim ns/gone: resourceclaims.resource.k8s.io "gone" not found', {
        code: 404,
      }),
    );
    // The first claim was reserved: Unreserve takes the pod out again, the allocation stays.
    expect(again.api.lines().slice(-1)).toEqual(['PATCH c1/status']);
    expect(again.api.claims.get('ns/c1')?.status).toEqual({
      allocation: { ...allocation, allocationTimestamp: stamp },
      reservedFor: [],
    });
  });
});

describe('KubeBinder DRA Unreserve', () => {
  it('after a failed Binding takes the pod out of every reserved claim by a strategic merge patch with the claim uid, then reports', async () => {
    let reportedAt = -1;
    const ingested: unknown[] = [];
    const t = setup({
      ingest: (e) => {
        reportedAt = t.api.calls.length;
        ingested.push(e);
      },
    });
    t.api.put('ns/c1', 'uid-c1');
    t.api.put('ns/c2', 'uid-c2', { status: { allocation, reservedFor: [] } });
    const refused = 'Precondition failed: UID in precondition: uid-p, UID in object meta: uid-new';
    t.api.bind = () => statusError(409, 'Conflict', refused);
    await t.bind([
      { name: 'c1', uid: 'uid-c1' },
      { name: 'c2', uid: 'uid-c2', allocated: false },
    ]);
    const patches = t.api.calls.filter((c) => c.method === 'PATCH');
    expect(patches).toEqual([
      {
        method: 'PATCH',
        path: expect.stringMatching(/c1\/status$/),
        body: unreserve('uid-c1'),
        contentType: 'application/strategic-merge-patch+json',
      },
      {
        method: 'PATCH',
        path: expect.stringMatching(/c2\/status$/),
        body: unreserve('uid-c2'),
        contentType: 'application/strategic-merge-patch+json',
      },
    ]);
    expect(reportedAt).toBe(t.api.calls.length);
    expect(ingested).toEqual([{ ...t.bindFailed(refused)[0], reason: 'Conflict', code: 409 }]);
    expect(t.api.claims.get('ns/c1')?.status?.reservedFor).toEqual([]);
    expect(t.api.claims.get('ns/c1')?.status?.allocation).toBeDefined();
  });

  it('logs an Unreserve that fails and still reports the BindFailed', async () => {
    const t = setup();
    t.api.put('ns/c1', 'uid-c1');
    t.api.bind = () => statusError(500, 'InternalError', 'etcd timed out');
    t.api.intercept = (call) =>
      call.method === 'PATCH' ? statusError(500, 'InternalError', 'no') : undefined;
    await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
    expect(t.ingested).toEqual(t.bindFailed('etcd timed out', { code: 500 }));
    expect(t.logLines.find((l) => l.msg === 'unreserve')).toMatchObject({
      level: 50,
      claim: 'ns/c1',
      code: 500,
    });
  });

  it('unreserves when the node was deleted while the claims were written, and sends no Binding', async () => {
    const nodes = new Set(['n1']);
    const t = setup({ nodeExists: (n) => nodes.has(n) });
    t.api.put('ns/c1', 'uid-c1');
    t.api.intercept = (call) => {
      if (call.path.endsWith('/status') && call.method === 'PUT') nodes.delete('n1');
      return undefined;
    };
    await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
    expect(t.api.lines()).toEqual(['GET c1', 'PUT c1', 'PUT c1/status', 'PATCH c1/status']);
    expect(t.ingested).toEqual([
      {
        ...t.bindFailed('node n1 was deleted before the bind was sent')[0],
        reason: 'NotFound',
      },
    ]);
  });
});

describe('KubeBinder DRA PreBind under the limiter and the fence', () => {
  it('takes a bind token for every request and sends nothing more once stopped, not even an Unreserve', async () => {
    const tokens = manualBucket(2);
    const t = setup({ limiter: tokens.bucket });
    t.api.put('ns/c1', 'uid-c1');
    t.binder.execute({
      kind: 'bind',
      attempt: attempt('ns/p', 2),
      node: 'n1',
      claims: [{ namespace: 'ns', name: 'c1', uid: 'uid-c1', allocation }],
    });
    await new Promise((r) => setImmediate(r));
    expect(t.api.lines()).toEqual(['GET c1', 'PUT c1']);
    t.stop();
    await tokens.tick();
    await t.binder.idle();
    expect(t.api.lines()).toEqual(['GET c1', 'PUT c1']);
    expect(t.ingested).toEqual([]);
  });

  it('a claim write the fence refused ends the bind: nothing more is sent, nothing is reported', async () => {
    const t = setup();
    t.api.put('ns/c1', 'uid-c1');
    t.api.intercept = (call) =>
      call.path.endsWith('/status')
        ? new FencedWriteError(call.method, call.path, 'not the leader')
        : undefined;
    await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
    expect(t.api.lines()).toEqual(['GET c1', 'PUT c1', 'PUT c1/status']);
    expect(t.ingested).toEqual([]);
    expect(t.logLines.some((l) => l.msg === 'bind fenced')).toBe(true);
  });

  it('writes no claim for a node already deleted', async () => {
    const t = setup({ nodeExists: () => false });
    t.api.put('ns/c1', 'uid-c1');
    await t.bind([{ name: 'c1', uid: 'uid-c1' }]);
    expect(t.api.calls).toEqual([]);
    expect(t.ingested).toEqual([
      {
        ...t.bindFailed('node n1 was deleted before the bind was sent')[0],
        reason: 'NotFound',
      },
    ]);
  });
});
