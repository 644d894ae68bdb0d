// The live mode's core: the listed objects fed to a fresh core explain a group as a berth just started would see it.
import { describe, expect, it } from 'vitest';
import { member, node, podGroup, upsert } from '../../test/support/gang-harness.ts';
import { defaultConfig } from '../core/config.ts';
import { coreOfListing } from './explain-group-live.ts';

describe('coreOfListing', () => {
  it('queues the listed members, so the group is explained by the step a fresh berth would take', () => {
    const core = coreOfListing(
      [
        { type: 'ResyncStarted', kind: 'PodGroup' },
        podGroup('train', 3),
        { type: 'ResyncDone', kind: 'PodGroup' },
        node('n1'),
        node('n2'),
        upsert(member('train-0', 'train')),
        upsert(member('train-1', 'train')),
        upsert(member('train-2', 'train')),
      ],
      { seed: 1, config: defaultConfig },
    );
    const e = core.explainGroup('default/train');
    expect(e.members.map((m) => m.machine)).toEqual(['pending', 'pending', 'pending']);
    expect(e.machine).toBeNull();
    expect(e.hold).toBeNull();
    expect(e.step?.cycles.map((c) => c.node === null)).toEqual([false, false, true]);
    expect(e.waiting).toEqual({
      kind: 'fit',
      text: 'pod group default/train: 2 of 3 members fit; 0/2 nodes are available for default/train-2: 2 Insufficient cpu.',
    });
  });
});
