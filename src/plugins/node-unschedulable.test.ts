// Table tests for NodeUnschedulable, after kube's TestNodeUnschedulable.
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import { success } from '../framework/types.ts';
import { ErrReasonUnschedulable, name, nodeUnschedulable } from './node-unschedulable.ts';

const rejected = {
  code: 'UnschedulableAndUnresolvable',
  reasons: [ErrReasonUnschedulable],
  plugin: name,
};

describe('NodeUnschedulable', () => {
  const cases = [
    {
      name: 'Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)',
      pod: makePod(),
      node: makeNode({ unschedulable: true }),
      want: rejected,
    },
    {
      name: 'Schedule pod to normal node',
      pod: makePod(),
      node: makeNode({ unschedulable: false }),
      want: success,
    },
    {
      name: 'Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)',
      pod: makePod({
        tolerations: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
      }),
      node: makeNode({ unschedulable: true }),
      want: success,
    },
    {
      name: 'Schedule pod with an Exists toleration of every taint to unschedulable node',
      pod: makePod({ tolerations: [{ operator: 'Exists' }] }),
      node: makeNode({ unschedulable: true }),
      want: success,
    },
    {
      name: 'Does not schedule pod whose toleration has the wrong effect (NoExecute)',
      pod: makePod({
        tolerations: [
          { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' },
        ],
      }),
      node: makeNode({ unschedulable: true }),
      want: rejected,
    },
    {
      name: 'Does not schedule pod whose Equal toleration carries a value the taint lacks',
      pod: makePod({
        tolerations: [{ key: 'node.kubernetes.io/unschedulable', value: 'true' }],
      }),
      node: makeNode({ unschedulable: true }),
      want: rejected,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(nodeUnschedulable.filter(c.pod, c.node)).toEqual(c.want);
    });
  }

  it('returns the shared success status (no allocation)', () => {
    expect(nodeUnschedulable.filter(makePod(), makeNode())).toBe(success);
  });
});
