// Pins the sim's resourceclaim controller and garbage collector when pods go: reservations released, claims reserved for nobody deallocated, a pod's own claims deleted.
import { describe, expect, it } from 'vitest';
import {
  allocation,
  claimPod,
  finalizer,
  fromTemplate,
  lines,
  sharedClaim,
  started,
} from '../../../test/support/sim-dra.ts';
import type { JsonRecord } from '../../model/record.ts';

describe('SimClaimController: pods that go', () => {
  it('deleting a pending pod deletes its unallocated claim after the latency', () => {
    const t = started([claimPod('p', [fromTemplate()])]);
    t.advance(5);
    const name = t.nameOf(t.claimOf('p'));
    t.seen.length = 0;
    t.sim.deletePod('ml/p');
    t.advance(5);
    expect(lines(t.seen)).toEqual(['PodDeleted', `deleted ml/${name}`]);
    expect(t.sim.claimObjects()).toEqual([]);
  });

  it('deleting a pod deletes the claims it owns that its status never named', () => {
    const t = started([claimPod('p', [fromTemplate('first'), fromTemplate('second', 'missing')])]);
    t.advance(5);
    expect(t.sim.claimObjects()).toHaveLength(1);
    expect(t.sim.podObjects()[0]?.status?.resourceClaimStatuses).toBeUndefined();
    t.sim.deletePod('ml/p');
    t.advance(5);
    expect(t.sim.claimObjects()).toEqual([]);
  });

  it('a pod that finished before its claim was made gets the claim, which is then deleted', () => {
    const done = claimPod('p', [fromTemplate()]);
    done.status = { phase: 'Failed' };
    const t = started([done]);
    t.advance(5);
    expect(lines(t.seen).map((l) => l.replace(/-[a-z0-9]{5}$/, '-*'))).toEqual([
      'ResourceClaim p-accel-*',
      'Pod p',
      'deleted ml/p-accel-*',
    ]);
    expect(t.sim.claimObjects()).toEqual([]);
  });

  it('deleting a bound pod releases its allocated claim (reservation, allocation, finalizer), then deletes it', () => {
    const t = started([claimPod('p', [fromTemplate()])]);
    t.advance(5);
    const name = t.nameOf(t.claimOf('p')) as string;
    t.bind('p', [name]);
    t.seen.length = 0;
    t.sim.deletePod('ml/p');
    t.advance(5);
    expect(lines(t.seen)).toEqual([
      'PodDeleted',
      `ResourceClaim ${name}`,
      `ResourceClaim ${name}`,
      `deleted ml/${name}`,
    ]);
    const released = (t.seen[1] as { object: JsonRecord }).object;
    expect(released.status).toEqual({});
    expect((released.metadata as JsonRecord).finalizers).toEqual([finalizer]);
    expect(
      ((t.seen[2] as { object: JsonRecord }).object.metadata as JsonRecord).finalizers,
    ).toBeUndefined();
  });

  it.each([
    {
      name: 'a shared claim reserved for two pods keeps the other pod and its allocation',
      users: ['p', 'q'],
      status: (q: string) => ({
        allocation: { ...allocation, allocationTimestamp: '1970-01-01T00:16:40Z' },
        reservedFor: [{ resource: 'pods', name: 'q', uid: q }],
      }),
      finalizers: [finalizer],
    },
    {
      name: "a shared claim reserved for nobody is deallocated and stays, without kube's finalizer",
      users: ['p'],
      status: () => ({}),
      finalizers: undefined,
    },
  ])('$name', ({ users, status, finalizers }) => {
    const pods = users.map((u) => claimPod(u, [{ name: 'gpu', resourceClaimName: 'shared' }]));
    const t = started(pods, [sharedClaim('shared')]);
    t.bind('p', ['shared']);
    if (users.includes('q')) t.bind('q', ['shared'], []);
    t.sim.deletePod('ml/p');
    t.advance(5);
    const claim = t.claim('shared') as JsonRecord;
    expect(claim.status).toEqual(status(t.uidOf('q')));
    expect((claim.metadata as JsonRecord).finalizers).toEqual(finalizers);
  });

  it("a pod's claim still reserved for another pod is marked deleted, and goes when that pod does", () => {
    const t = started([claimPod('p', [fromTemplate()])]);
    t.advance(5);
    const name = t.nameOf(t.claimOf('p')) as string;
    t.sim.createPod(claimPod('q', [{ name: 'gpu', resourceClaimName: name }]));
    t.bind('p', [name]);
    t.bind('q', [name], []);
    t.sim.deletePod('ml/p');
    t.advance(5);
    const held = t.claim(name) as JsonRecord;
    expect((held.metadata as JsonRecord).deletionTimestamp).toBe('1970-01-01T00:16:40Z');
    expect((held.status as JsonRecord).reservedFor).toEqual([
      { resource: 'pods', name: 'q', uid: t.uidOf('q') },
    ]);
    t.sim.deletePod('ml/q');
    t.advance(5);
    expect(t.sim.claimObjects()).toEqual([]);
  });

  it('a claim left allocated after a refused bind is deallocated and deleted with its pod', () => {
    const t = started([claimPod('p', [fromTemplate()])]);
    t.advance(5);
    const name = t.nameOf(t.claimOf('p')) as string;
    t.sim.execute({
      kind: 'bind',
      attempt: { uid: 'uid-stale', key: 'ml/p', attempt: 1 },
      node: 'n1',
      claims: [
        {
          namespace: 'ml',
          name,
          uid: t.claimUid(name),
          allocation,
        },
      ],
    });
    t.advance(5);
    expect((t.claim(name) as JsonRecord).status).toEqual({
      allocation: { ...allocation, allocationTimestamp: '1970-01-01T00:16:40Z' },
    });
    t.seen.length = 0;
    t.sim.deletePod('ml/p');
    t.advance(5);
    expect(lines(t.seen)).toEqual([
      'PodDeleted',
      `ResourceClaim ${name}`, // marked deleted (the finalizer holds it)
      `ResourceClaim ${name}`, // deallocated
      `deleted ml/${name}`, // finalizer gone
    ]);
  });

  it.each([
    {
      name: 'a bound pod that finished (Succeeded) releases its claim, which is then deleted',
      bound: true,
      change: { status: { phase: 'Succeeded' } },
    },
    {
      name: 'a pod deleted before it was scheduled, held by a finalizer, loses its claim',
      bound: false,
      change: { metadata: { deletionTimestamp: '2025-01-01T00:00:00Z' } },
    },
  ])('$name', ({ bound, change }) => {
    const t = started([claimPod('p', [fromTemplate()])]);
    t.advance(5);
    const name = t.nameOf(t.claimOf('p')) as string;
    if (bound) t.bind('p', [name]);
    const pod = claimPod('p', [fromTemplate()]);
    pod.metadata = { ...pod.metadata, ...change.metadata };
    pod.status = {
      ...change.status,
      resourceClaimStatuses: [{ name: 'accel', resourceClaimName: name }],
    };
    t.sim.updatePod(pod);
    t.advance(5);
    expect(t.sim.claimObjects()).toEqual([]);
    expect(t.sim.podObjects()).toHaveLength(1);
  });
});
