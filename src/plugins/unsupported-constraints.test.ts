// Table tests for UnsupportedConstraints (berth's PreFilter for constraints it cannot check yet).
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import { success } from '../framework/types.ts';
import { name, unsupportedConstraints } from './unsupported-constraints.ts';

describe('UnsupportedConstraints', () => {
  const reason =
    'berth does not support spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution yet';
  const cases = [
    { name: 'A pod asking for nothing unsupported passes', unsupported: undefined, want: success },
    {
      name: 'A pod with required pod anti-affinity is rejected, naming the field, unresolvably',
      unsupported: reason,
      want: { code: 'UnschedulableAndUnresolvable', reasons: [reason], plugin: name },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const pod = makePod({ unsupported: c.unsupported });
      expect(unsupportedConstraints.preFilter(pod)).toEqual(c.want);
    });
  }

  it('No cluster change requeues a pod it rejected (only the pod’s own update can)', () => {
    const node = makeNode({ name: 'n' });
    expect(
      unsupportedConstraints.queueingHint({
        kind: 'node',
        name: 'n',
        before: undefined,
        after: node,
      }),
    ).toBe(false);
  });
});
