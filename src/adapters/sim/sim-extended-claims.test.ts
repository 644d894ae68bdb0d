// Pins the sim's PreBind for DRA-backed extended resources: the special claim created as kube makes it, named in the pod's status, deleted when the bind fails or the pod goes.
import { describe, expect, it } from 'vitest';
import { podObject } from '../../../test/support/objects.ts';
import { allocation, finalizer, lines, started } from '../../../test/support/sim-dra.ts';
import type { JsonRecord } from '../../model/record.ts';

const extended = {
  requests: [
    {
      name: 'container-0-request-0',
      exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount' as const, count: 1 },
    },
  ],
  mappings: [
    { containerName: 'c', resourceName: 'example.com/gpu', requestName: 'container-0-request-0' },
  ],
};

function bindSpecial(t: ReturnType<typeof started>, pod: string) {
  t.sim.execute({
    kind: 'bind',
    attempt: { uid: t.uidOf(pod), key: `ml/${pod}`, attempt: 1 },
    node: 'n1',
    claims: [
      { namespace: 'ml', name: '<extended-resources>', uid: 'stand-in', allocation, extended },
    ],
  });
  t.advance(5);
}

describe('SimCluster: extended resources backed by DRA', () => {
  it('creates the special claim (owned by the pod, annotated), allocates it, names it in the pod status, binds', () => {
    const t = started([podObject('p', { namespace: 'ml' })], []);
    bindSpecial(t, 'p');
    const [claim] = t.sim.claimObjects();
    const meta = claim?.metadata as JsonRecord;
    expect(meta.name).toMatch(/^p-extended-resources-[a-z0-9]{5}$/);
    expect(meta.annotations).toEqual({ 'resource.kubernetes.io/extended-resource-claim': 'true' });
    expect(meta.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: t.uidOf('p'), controller: true },
    ]);
    expect(meta.finalizers).toEqual([finalizer]);
    expect(claim?.spec).toEqual({ devices: { requests: extended.requests } });
    expect((claim as JsonRecord).status).toMatchObject({ allocation });
    const pod = t.sim.podObjects()[0];
    expect(pod?.spec?.nodeName).toBe('n1');
    expect((pod as unknown as { status: JsonRecord }).status.extendedResourceClaimStatus).toEqual({
      requestMappings: extended.mappings,
      resourceClaimName: meta.name,
    });
    expect(t.seen.map((e) => e.type)).toContain('BindSucceeded');
    // The pod goes: the garbage collector deletes the claim it owns.
    t.seen.length = 0;
    t.sim.deletePod('ml/p');
    t.advance(5);
    expect(t.sim.claimObjects()).toEqual([]);
    expect(lines(t.seen).at(-1)).toBe(`deleted ml/${meta.name}`);
  });

  it('deletes the claim it created (finalizer off) when the Binding is refused: the pod is bound already', () => {
    const bound = podObject('p', { namespace: 'ml' });
    bound.spec.nodeName = 'n2';
    const t = started([bound], []);
    bindSpecial(t, 'p');
    expect(t.sim.claimObjects()).toEqual([]);
    const kinds = lines(t.seen);
    expect(kinds[0]).toMatch(/^ResourceClaim p-extended-resources-/);
    expect(kinds.at(-2)).toMatch(/^deleted ml\/p-extended-resources-/);
    expect(kinds.at(-1)).toBe('BindFailed');
  });
});
