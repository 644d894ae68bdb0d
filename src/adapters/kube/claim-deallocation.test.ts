// Tests the DynamicResources PostFilter's claim write in the KubeBinder against a fake claim API: the status sent, conflicts, a claim gone, a refusal.
import { describe, expect, it } from 'vitest';
import { attempt } from '../../../test/adapters/kube-effects-harness.ts';
import { FakeClaimApi, statusError } from '../../../test/support/fake-claim-api.ts';
import { testEffects } from '../../../test/support/kube-api-doubles.ts';

const allocation = { devices: { results: [{ request: 'gpu', device: 'gpu-0' }] } };
const mine = { resource: 'pods', name: 'p', uid: 'uid-p' };
const other = { resource: 'pods', name: 'q', uid: 'uid-q' };

/** A fake API holding `ns/c1`, allocated and reserved for `holders`; `seen` is the version the cycle saw. */
function setup(holders: { uid: string }[] = []) {
  const api = new FakeClaimApi();
  api.put('ns/c1', 'uid-c1', { status: { allocation, reservedFor: holders } });
  const seen = api.claims.get('ns/c1')?.metadata.resourceVersion as string;
  const t = testEffects(api.clients());
  const deallocate = async (resourceVersion = seen) => {
    t.binder.execute({
      kind: 'deallocateClaim',
      pod: attempt('ns/p', 3),
      claim: { key: 'ns/c1', uid: 'uid-c1', resourceVersion },
    });
    await t.binder.idle();
  };
  const puts = () => api.calls.filter((c) => c.method === 'PUT');
  return { api, ...t, deallocate, seen, puts };
}

describe('KubeBinder DRA PostFilter deallocation', () => {
  it('updates the status without reservedFor, allocation and devices, with the version the cycle saw', async () => {
    const t = setup([mine]);
    await t.deallocate();
    expect(t.api.lines()).toEqual(['GET c1', 'PUT c1/status']);
    const sent = t.puts()[0]?.body as { metadata: { resourceVersion: string }; status: object };
    expect(sent.metadata.resourceVersion).toBe(t.seen);
    expect(sent.status).toEqual({});
    expect(t.api.claims.get('ns/c1')?.status).toEqual({});
    expect(t.ingested).toEqual([]);
  });

  it('after a conflict, re-reads and writes again while the claim is still free', async () => {
    const t = setup();
    t.api.touch('ns/c1');
    await t.deallocate();
    expect(t.api.lines()).toEqual(['GET c1', 'PUT c1/status', 'GET c1', 'PUT c1/status']);
    expect(t.api.claims.get('ns/c1')?.status).toEqual({});
    expect(t.ingested).toEqual([]);
  });

  it('after a conflict, leaves a claim another pod has reserved meanwhile', async () => {
    const t = setup();
    t.api.intercept = (call, api) => {
      if (call.method !== 'PUT') return undefined;
      api.put('ns/c1', 'uid-c1', { status: { allocation, reservedFor: [other] } });
      return statusError(409, 'Conflict', 'modified');
    };
    await t.deallocate();
    expect(t.api.lines()).toEqual(['GET c1', 'PUT c1/status', 'GET c1']);
    expect(t.api.claims.get('ns/c1')?.status?.reservedFor).toEqual([other]);
    expect(t.ingested).toEqual([]);
  });

  it('is done without writing when the claim is gone or replaced under its name', async () => {
    const gone = setup();
    gone.api.claims.delete('ns/c1');
    await gone.deallocate();
    expect(gone.api.lines()).toEqual(['GET c1']);
    const replaced = setup();
    replaced.api.put('ns/c1', 'uid-new', { status: { allocation } });
    await replaced.deallocate();
    expect(replaced.api.lines()).toEqual(['GET c1']);
    expect([...gone.ingested, ...replaced.ingested]).toEqual([]);
  });

  it('reports a refusal as ClaimDeallocationFailed naming the attempt', async () => {
    const t = setup();
    t.api.intercept = (call) =>
      call.method === 'PUT' ? statusError(403, 'Forbidden', 'forbidden: no') : undefined;
    await t.deallocate();
    expect(t.ingested).toEqual([
      {
        type: 'ClaimDeallocationFailed',
        uid: 'uid-p',
        key: 'ns/p',
        attempt: 3,
        claim: { key: 'ns/c1', uid: 'uid-c1', resourceVersion: t.seen },
        message: 'deallocate claim ns/c1: forbidden: no',
      },
    ]);
  });
});
