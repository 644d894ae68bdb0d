// Table tests for NodeName, after kube's TestNodeName.
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import { success } from '../framework/types.ts';
import { ErrReason, name, nodeName } from './node-name.ts';

describe('NodeName', () => {
  const cases = [
    { name: 'no host specified', podNode: undefined, node: 'foo', fits: true },
    { name: 'empty host specified', podNode: '', node: 'foo', fits: true },
    { name: 'host matches', podNode: 'foo', node: 'foo', fits: true },
    { name: 'host doesn\u2019t match', podNode: 'bar', node: 'foo', fits: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = nodeName.filter(makePod({ nodeName: c.podNode }), makeNode({ name: c.node }));
      if (c.fits) expect(got).toBe(success);
      else
        expect(got).toEqual({
          code: 'UnschedulableAndUnresolvable',
          reasons: [ErrReason],
          plugin: name,
        });
    });
  }
});
