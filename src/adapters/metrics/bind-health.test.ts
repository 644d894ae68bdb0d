// Tests that refused binds (401/403) in a row fail readiness with the missing permission, and a successful bind clears it.
import { describe, expect, it } from 'vitest';
import type { BerthEvent } from '../../events/types.ts';
import { BindHealth } from './bind-health.ts';

const forbidden =
  'pods "web" is forbidden: User "system:serviceaccount:berth:berth" cannot create resource "pods/binding" in API group "" in the namespace "default"';

function given(threshold = 3, windowMs = 60_000) {
  let now = 1_000;
  let seq = 0;
  const health = new BindHealth({ now: () => now, threshold, windowMs });
  const ref = () => ({ uid: `u${seq}`, key: `default/p${seq}`, attempt: 1, node: 'n1' });
  const feed = (event: BerthEvent) => health.envelope({ seq: ++seq, time: 0, event });
  return {
    health,
    advance(ms: number) {
      now += ms;
    },
    refused(code = 403, message = forbidden) {
      feed({ type: 'BindFailed', ...ref(), reason: 'Error', message, code });
    },
    failed(reason: 'Conflict' | 'NotFound' | 'Error', code?: number) {
      feed({
        type: 'BindFailed',
        ...ref(),
        reason,
        message: 'x',
        ...(code === undefined ? {} : { code }),
      });
    },
    bound() {
      feed({ type: 'BindSucceeded', ...ref() });
    },
  };
}

describe('BindHealth', () => {
  it('fails after `threshold` binds in a row refused with 403, naming the missing RBAC permission', () => {
    const t = given();
    t.refused();
    t.refused();
    expect(t.health.problem()).toBeUndefined();
    t.advance(2_000);
    t.refused();
    t.advance(4_000);
    expect(t.health.problem()).toBe(
      `bind: 403 forbidden: ${forbidden} (RBAC: berth's ClusterRole lacks create on pods/binding; 3 binds refused in a row, the last 4 s ago, none succeeded since)`,
    );
  });

  it("names the chart's bind fence when the admission policy refused the binds", () => {
    const t = given(1);
    const fenced =
      "pods \"web\" is forbidden: ValidatingAdmissionPolicy 'berth-system-berth-bind-fence' with binding 'berth-system-berth-bind-fence' denied request: berth bind fence: the replica that sent this bind does not hold Lease berth-system/berth (another replica leads, or none does)";
    t.refused(403, fenced);
    expect(t.health.problem()).toContain(
      "(the chart's bind fence: the Lease the binds name is not held by this replica as the API server sees it; 1 binds refused in a row",
    );
  });

  it('clears on a successful bind, and counts again from zero after it', () => {
    const t = given();
    for (let i = 0; i < 4; i++) t.refused();
    expect(t.health.problem()).toBeDefined();
    t.bound();
    expect(t.health.problem()).toBeUndefined();
    t.refused();
    t.refused();
    expect(t.health.problem()).toBeUndefined();
  });

  it('ignores failures that say nothing about permissions: conflicts, not found, 422, 5xx, no answer', () => {
    const t = given(1);
    t.failed('Conflict', 409);
    t.failed('NotFound', 404);
    t.failed('Error', 422);
    t.failed('Error', 500);
    t.failed('Error');
    expect(t.health.problem()).toBeUndefined();
    // Nor do they break a run of refusals.
    const u = given(2);
    u.refused();
    u.failed('Error', 503);
    u.refused();
    expect(u.health.problem()).toMatch(/^bind: 403 forbidden: /);
  });

  it('clears once no bind has been refused for the window (nothing is trying any more)', () => {
    const t = given(1, 60_000);
    t.refused();
    t.advance(60_000);
    expect(t.health.problem()).toBeDefined();
    t.advance(1);
    expect(t.health.problem()).toBeUndefined();
  });

  it('names rejected credentials for a 401, and a 403 of another kind (an admission webhook) without guessing RBAC', () => {
    const t = given(1);
    t.refused(401, '401 Unauthorized');
    expect(t.health.problem()).toMatch(
      /^bind: 401 unauthorized: 401 Unauthorized \(authentication: the API server rejects berth's credentials/,
    );
    const u = given(1);
    u.refused(403, 'admission webhook "deny.example.com" denied the request: no');
    expect(u.health.problem()).toMatch(
      /check its RBAC \(create on pods\/binding\) and admission webhooks;/,
    );
  });

  it('refuses a threshold below 1 or a window that is not positive', () => {
    expect(() => new BindHealth({ now: () => 0, threshold: 0 })).toThrow(RangeError);
    expect(() => new BindHealth({ now: () => 0, windowMs: 0 })).toThrow(RangeError);
  });
});
