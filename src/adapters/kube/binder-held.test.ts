// The KubeBinder's binds held for DRA binding conditions: ClaimsReserved after the claim writes, then the Binding or kube's Unreserve and PreBind error when the core completes them.
import { describe, expect, it } from 'vitest';
import { attempt } from '../../../test/adapters/kube-effects-harness.ts';
import { FakeClaimApi } from '../../../test/support/fake-claim-api.ts';
import { testEffects } from '../../../test/support/kube-api-doubles.ts';
import type { AllocationResult } from '../../model/dra-types.ts';

const allocation: AllocationResult = {
  devices: {
    results: [
      {
        request: 'gpu',
        driver: 'gpu.example.com',
        pool: 'n1',
        device: 'gpu-0',
        bindingConditions: ['Attached'],
      },
    ],
  },
};
const held = { uid: 'uid-p', key: 'ns/p', attempt: 2, node: 'n1' };
const claims = [{ namespace: 'ns', name: 'c1', uid: 'uid-c1' }];

function setup() {
  const api = new FakeClaimApi();
  const t = testEffects(api.clients());
  api.put('ns/c1', 'uid-c1');
  const hold = async () => {
    t.binder.execute({
      kind: 'bind',
      attempt: attempt('ns/p', 2),
      node: 'n1',
      claims: [{ ...claims[0], allocation } as never],
      awaitBindingConditions: true,
    });
    await t.binder.idle();
  };
  return { api, ...t, hold };
}

describe('KubeBinder binds held for binding conditions', () => {
  it('writes the claims, reports ClaimsReserved and sends no Binding', async () => {
    const t = setup();
    await t.hold();
    expect(t.api.lines()).toEqual(['GET c1', 'PUT c1', 'PUT c1/status']);
    expect(t.ingested).toEqual([{ type: 'ClaimsReserved', ...held }]);
  });

  it('sends the Binding when completed, and BindSucceeded comes back', async () => {
    const t = setup();
    await t.hold();
    t.binder.execute({ kind: 'completeBind', attempt: attempt('ns/p', 2), node: 'n1', claims });
    await t.binder.idle();
    expect(t.api.lines().at(-1)).toBe('POST /api/v1/namespaces/ns/pods/p/binding');
    expect(t.ingested.at(-1)).toEqual({ type: 'BindSucceeded', ...held });
  });

  it('on a failure takes the pod out of the claims and reports the PreBind error, without a Binding', async () => {
    const t = setup();
    await t.hold();
    const message = 'device binding timeout: context deadline exceeded';
    t.binder.execute({
      kind: 'completeBind',
      attempt: attempt('ns/p', 2),
      node: 'n1',
      claims,
      failure: { plugin: 'DynamicResources', message },
    });
    await t.binder.idle();
    expect(t.api.lines().slice(3)).toEqual(['PATCH c1/status']);
    expect(t.api.claims.get('ns/c1')?.status?.reservedFor ?? []).toEqual([]);
    expect(t.ingested.at(-1)).toEqual({
      type: 'BindFailed',
      ...held,
      reason: 'Error',
      message,
      plugin: 'DynamicResources',
    });
  });
});
