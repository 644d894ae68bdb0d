// Pins a bind's claim writes on the simulated API server (kube-scheduler's PreBind): finalizer, allocation, reservedFor, their watch events before the bind, refusals and Unreserve.
import { describe, expect, it } from 'vitest';
import { podObject } from '../../../test/support/objects.ts';
import { manualSim } from '../../../test/support/sim-harness.ts';
import type { ClaimBinding } from '../../core/commands.ts';
import type { InputEvent } from '../../events/types.ts';
import type { AllocationResult } from '../../model/dra-types.ts';
import type { JsonRecord } from '../../model/record.ts';
import type { ManifestObject } from './manifests.ts';

const allocation: AllocationResult = {
  devices: {
    results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' }],
  },
};
const other: AllocationResult = {
  devices: {
    results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'n2', device: 'gpu-9' }],
  },
};
const spec = {
  devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] },
};

/** A claim in namespace `ns` as a manifest gives it. */
function claim(
  name: string,
  extra: { status?: JsonRecord; meta?: JsonRecord } = {},
): ManifestObject {
  return {
    kind: 'ResourceClaim',
    object: {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7', ...extra.meta },
      spec,
      ...(extra.status === undefined ? {} : { status: extra.status }),
    },
    origin: 'test',
  };
}

const pending = (name = 'p') => podObject(name, { namespace: 'ns' });
const binding = (name: string, alloc?: AllocationResult): ClaimBinding => ({
  namespace: 'ns',
  name,
  uid: `uid-${name}`,
  ...(alloc === undefined ? {} : { allocation: alloc }),
});

/** A sim holding `claims` and pending pod p; binds p to n1 with `bindings` and lets it land. */
function bindWith(claims: ManifestObject[], bindings: ClaimBinding[], pods = [pending()]) {
  const t = manualSim({ pods, objects: claims });
  const uid = t.uidOf('p');
  t.sim.execute({
    kind: 'bind',
    attempt: { uid, key: 'ns/p', attempt: 1 },
    node: 'n1',
    claims: bindings,
  });
  t.advance(5);
  const stored = (name: string): JsonRecord => {
    const found = t.sim.claimObjects().find((c) => (c.metadata as JsonRecord).name === name);
    if (found === undefined) throw new Error(`no claim ${name}`);
    return found;
  };
  return { ...t, uid, stored };
}

/** Each event as one line: its type and, for claims, the claim's name and resourceVersion. */
function lines(seen: InputEvent[]): string[] {
  return seen.map((e) => {
    if (e.type === 'ObjectUpserted') {
      const m = e.object.metadata as JsonRecord;
      return `${e.type} ${e.kind} ${m.name} rv=${m.resourceVersion}`;
    }
    if (e.type === 'BindFailed') return `BindFailed ${e.reason}: ${e.message}`;
    return e.type;
  });
}

describe('SimCluster bind with claims', () => {
  it('writes the finalizer, then the allocation with the pod reserved, then binds the pod', () => {
    const t = bindWith([claim('c')], [binding('c', allocation)]);
    expect(lines(t.seen)).toEqual([
      'ObjectUpserted ResourceClaim c rv=8',
      'ObjectUpserted ResourceClaim c rv=9',
      'BindSucceeded',
      'PodUpserted',
    ]);
    const first = (t.seen[0] as { object: JsonRecord }).object;
    expect((first.metadata as JsonRecord).finalizers).toEqual([
      'resource.kubernetes.io/delete-protection',
    ]);
    expect(first.status).toBeUndefined();
    expect(t.stored('c')).toMatchObject({
      metadata: { uid: 'uid-c', finalizers: ['resource.kubernetes.io/delete-protection'] },
      status: { allocation, reservedFor: [{ resource: 'pods', name: 'p', uid: t.uid }] },
    });
    expect(t.sim.podObjects()[0]?.spec.nodeName).toBe('n1');
  });

  it.each([
    {
      name: 'reserves an allocated claim for the pod, leaving its allocation and finalizer',
      claims: [
        claim('c', {
          meta: { finalizers: ['resource.kubernetes.io/delete-protection'] },
          status: { allocation, reservedFor: [{ resource: 'pods', name: 'q', uid: 'uid-q' }] },
        }),
      ],
      bindings: [binding('c')],
      events: ['ObjectUpserted ResourceClaim c rv=8', 'BindSucceeded', 'PodUpserted'],
      reserved: ['uid-q', 'pod'],
    },
    {
      name: 'does not reserve a claim twice for the same pod (no write)',
      claims: [claim('c', { status: { allocation, reservedFor: [] } })],
      bindings: [binding('c'), binding('c')],
      events: ['ObjectUpserted ResourceClaim c rv=8', 'BindSucceeded', 'PodUpserted'],
      reserved: ['pod'],
    },
    {
      name: 'keeps a finalizer already there and writes the allocation once',
      claims: [claim('c', { meta: { finalizers: ['resource.kubernetes.io/delete-protection'] } })],
      bindings: [binding('c', allocation)],
      events: ['ObjectUpserted ResourceClaim c rv=8', 'BindSucceeded', 'PodUpserted'],
      reserved: ['pod'],
    },
    {
      name: 'accepts an allocation equal to the one the claim already has',
      claims: [claim('c', { status: { allocation } })],
      bindings: [binding('c', allocation)],
      events: [
        'ObjectUpserted ResourceClaim c rv=8',
        'ObjectUpserted ResourceClaim c rv=9',
        'BindSucceeded',
        'PodUpserted',
      ],
      reserved: ['pod'],
    },
  ])('$name', ({ claims, bindings, events, reserved }) => {
    const t = bindWith(claims, bindings);
    expect(lines(t.seen)).toEqual(events);
    const uids = ((t.stored('c').status as JsonRecord).reservedFor as JsonRecord[]).map(
      (r) => r.uid,
    );
    expect(uids).toEqual(reserved.map((u) => (u === 'pod' ? t.uid : u)));
  });

  it.each([
    {
      name: 'a claim that is gone',
      claims: [],
      failure: 'BindFailed NotFound: claim ns/c got deleted in the meantime',
    },
    {
      name: 'a claim replaced under its name (another uid)',
      claims: [claim('c', { meta: { uid: 'uid-new' } })],
      failure: 'BindFailed NotFound: claim ns/c got deleted in the meantime',
    },
    {
      name: 'a claim being deleted',
      claims: [
        claim('c', { meta: { deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['x'] } }),
      ],
      failure: 'BindFailed NotFound: claim ns/c got deleted in the meantime',
    },
    {
      name: 'a claim allocated to other devices',
      claims: [claim('c', { status: { allocation: other } })],
      failure: 'BindFailed Conflict: claim ns/c got allocated elsewhere in the meantime',
    },
    {
      name: 'a claim reserved for 256 consumers already',
      claims: [
        claim('c', {
          status: {
            reservedFor: Array.from({ length: 256 }, (_, i) => ({
              resource: 'pods',
              name: `q${i}`,
              uid: `uid-q${i}`,
            })),
          },
        }),
      ],
      failure:
        'BindFailed Error: add reservation to claim ns/c: status.reservedFor: Too many: 257: must have at most 256 items',
    },
  ])('refuses the bind for $name, writing nothing', ({ claims, failure }) => {
    const t = bindWith(claims, [binding('c', allocation)]);
    expect(lines(t.seen)).toEqual([failure]);
    expect(t.sim.podObjects()[0]?.spec.nodeName).toBeUndefined();
  });

  it('reserves a PodGroup’s claim for the PodGroup, once for all its members (kube’s BindTo)', () => {
    const podGroup = { name: 'train', uid: 'uid-train' };
    const groupRef = { apiGroup: 'scheduling.k8s.io', resource: 'podgroups', ...podGroup };
    const t = bindWith([claim('c')], [{ ...binding('c', allocation), podGroup }]);
    expect(t.stored('c')).toMatchObject({ status: { allocation, reservedFor: [groupRef] } });
    // A second member's bind finds the claim reserved for its group: nothing more is written.
    const q = podObject('q', { namespace: 'ns' });
    const t2 = bindWith(
      [claim('c', { status: { allocation, reservedFor: [groupRef] } })],
      [{ ...binding('c', allocation), podGroup }],
      [pending(), q],
    );
    expect(lines(t2.seen)).toEqual(['BindSucceeded', 'PodUpserted']);
    expect((t2.stored('c').status as JsonRecord).reservedFor).toEqual([groupRef]);
  });

  it('after a refusal, takes the pod out of the claims it reserved and keeps their allocation', () => {
    const t = bindWith([claim('a')], [binding('a', allocation), binding('gone', allocation)]);
    expect(lines(t.seen)).toEqual([
      'ObjectUpserted ResourceClaim a rv=8',
      'ObjectUpserted ResourceClaim a rv=9',
      'ObjectUpserted ResourceClaim a rv=10',
      'BindFailed NotFound: claim ns/gone got deleted in the meantime',
    ]);
    expect(t.stored('a')).toMatchObject({
      metadata: { finalizers: ['resource.kubernetes.io/delete-protection'] },
      status: { allocation },
    });
    expect((t.stored('a').status as JsonRecord).reservedFor).toBeUndefined();
  });

  it.each([
    { name: 'deleted', change: (t: ReturnType<typeof manualSim>) => t.sim.deletePod('ns/p') },
    { name: 'recreated', change: (t: ReturnType<typeof manualSim>) => t.sim.createPod(pending()) },
  ])(
    'writes the claims, then undoes them when the Binding is refused (pod $name)',
    ({ change }) => {
      const t = manualSim({
        pods: [pending(), podObject('q', { namespace: 'ns' })],
        objects: [claim('c')],
      });
      const uid = t.uidOf('p');
      t.sim.execute({
        kind: 'bind',
        attempt: { uid, key: 'ns/p', attempt: 1 },
        node: 'n1',
        claims: [binding('c', allocation)],
      });
      change(t);
      t.seen.length = 0;
      t.advance(5);
      expect(lines(t.seen).map((l) => l.replace(/: .*/, ''))).toEqual([
        'ObjectUpserted ResourceClaim c rv=8',
        'ObjectUpserted ResourceClaim c rv=9',
        'ObjectUpserted ResourceClaim c rv=10',
        expect.stringMatching(/^BindFailed (NotFound|Conflict)$/),
      ]);
      const status = t.sim.claimObjects()[0]?.status as JsonRecord;
      // Stamped when written, as kube 1.37 stamps it (whole seconds of the write's time).
      expect(status.allocation).toEqual({
        ...allocation,
        allocationTimestamp: '1970-01-01T00:16:40Z',
      });
      expect(status.reservedFor).toBeUndefined();
    },
  );

  it('relists the claims as they are now, trimmed', () => {
    const t = bindWith([claim('c')], [binding('c', allocation)]);
    t.seen.length = 0;
    t.sim.relist();
    const relisted = t.seen.filter((e) => e.type === 'ObjectUpserted');
    expect(relisted).toHaveLength(1);
    expect((relisted[0] as { object: JsonRecord }).object).toMatchObject({
      metadata: { name: 'c', resourceVersion: '9' },
      status: { allocation, reservedFor: [{ resource: 'pods', name: 'p', uid: t.uid }] },
    });
  });
});
