// Tests for DynamicResources by release: the PostFilter (silent from 1.37), the Score (0 without claims) from 1.35.
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import { dynamicResources, noClaimsReason, noStateReason } from './dynamic-resources.ts';

describe('DynamicResources', () => {
  it('has no Score at 1.34 (kube 1.34 lists it without a weight and gives it none)', () => {
    const plugin = dynamicResources(undefined, '1.34');
    expect([plugin.score, plugin.scoreNodes, plugin.normalize]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('scores 0 on every node for a pod without claims from 1.35, normalized to 0', () => {
    for (const release of ['1.35', '1.36', '1.37'] as const) {
      const { score, scoreNodes, normalize } = dynamicResources(undefined, release);
      if (score === undefined || scoreNodes === undefined || normalize === undefined)
        throw new Error(`no Score at ${release}`);
      const pod = makePod();
      const nodes = [makeNode(), makeNode({ allocatable: { milliCPU: 64_000 } })];
      expect(nodes.map((n) => score(pod, n, new Map()))).toEqual([0, 0]);
      const scores = [7, 7];
      scoreNodes(pod, nodes, new Map(), scores);
      expect(scores).toEqual([0, 0]);
      normalize(pod, scores, new Map());
      expect(scores).toEqual([0, 0]);
    }
  });

  it('answers the PostFilter "no new claims to deallocate" to 1.36, with no message from 1.37', () => {
    for (const release of ['1.34', '1.35', '1.36', '1.37'] as const) {
      const plugin = dynamicResources(undefined, release);
      const args = (preFiltersCompleted: boolean) =>
        ({ preFiltersCompleted, state: new Map() }) as Parameters<typeof plugin.postFilter>[1];
      expect(plugin.postFilter(makePod(), args(true))).toMatchObject({
        code: 'Unschedulable',
        reasons: release === '1.37' ? [] : [noClaimsReason],
      });
      expect(plugin.postFilter(makePod(), args(false))).toMatchObject({
        code: 'Error',
        reasons: [noStateReason],
      });
    }
  });
});
