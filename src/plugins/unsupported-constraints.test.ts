// Table tests for UnsupportedConstraints (berth's PreFilter for constraints it cannot check yet).
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import { success } from '../framework/types.ts';
import { name, newUnsupportedConstraints } from './unsupported-constraints.ts';

describe('UnsupportedConstraints', () => {
  const reason =
    'berth does not support dynamic resource allocation yet: spec.resourceClaims[0] (gpu)';
  const refusing = newUnsupportedConstraints(true);
  const cases = [
    { name: 'A pod asking for nothing unsupported passes', unsupported: undefined, want: success },
    {
      name: 'Refusing claims (a log recorded before DRA): rejected, naming the field, unresolvably',
      unsupported: reason,
      want: { code: 'UnschedulableAndUnresolvable', reasons: [reason], plugin: name },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const pod = makePod({ unsupported: c.unsupported });
      expect(refusing.preFilter(pod, new Map(), undefined as never)).toEqual(c.want);
    });
  }

  it('Allocating claims (fresh runs): a pod with claims passes to DynamicResources', () => {
    const pod = makePod({ unsupported: reason });
    expect(newUnsupportedConstraints().preFilter(pod, new Map(), undefined as never)).toEqual(
      success,
    );
  });

  it('No cluster change requeues a pod it rejected (only the pod’s own update can)', () => {
    const node = makeNode({ name: 'n' });
    expect(
      refusing.queueingHint?.({
        kind: 'node',
        name: 'n',
        before: undefined,
        after: node,
      }),
    ).toBe(false);
  });
});
