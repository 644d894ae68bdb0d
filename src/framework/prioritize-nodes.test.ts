// Tests for weighted scoring (kube's prioritizeNodes).
import { describe, expect, it } from 'vitest';
import { makeNode, makePod } from '../../test/support/builders.ts';
import { initialState } from '../cluster/reducer.ts';
import type { ClusterSnapshot, NodeInfo, PodInfo } from '../cluster/types.ts';
import { prioritizeNodes } from './prioritize-nodes.ts';
import type { CycleState, ScorePlugin } from './types.ts';

function constant(
  name: string,
  byNode: Record<string, number>,
  normalize?: ScorePlugin['normalize'],
): ScorePlugin {
  const p: ScorePlugin = { name, score: (_pod: PodInfo, node: NodeInfo) => byNode[node.name] ?? 0 };
  if (normalize) p.normalize = normalize;
  return p;
}

describe('prioritizeNodes', () => {
  const nodes = ['a', 'b', 'c'].map((name) => makeNode({ name }));
  const pod = makePod();
  const snapshot: ClusterSnapshot = initialState();

  it('multiplies each plugin\u2019s score by its weight and sums per node', () => {
    const totals = prioritizeNodes(
      pod,
      nodes,
      [
        { plugin: constant('x', { a: 10, b: 20, c: 30 }), weight: 3 },
        { plugin: constant('y', { a: 50, b: 0, c: 10 }), weight: 1 },
      ],
      new Map(),
      snapshot,
    );
    expect(totals).toEqual([80, 60, 100]);
  });

  it('normalises before weighting', () => {
    const halve: ScorePlugin['normalize'] = (_p, s) => {
      for (let i = 0; i < s.length; i++) s[i] = (s[i] as number) / 2;
    };
    const totals = prioritizeNodes(
      pod,
      nodes,
      [{ plugin: constant('x', { a: 10, b: 20, c: 40 }, halve), weight: 2 }],
      new Map(),
      snapshot,
    );
    expect(totals).toEqual([10, 20, 40]);
  });

  it('scores each call afresh though the raw scores share one buffer between calls', () => {
    const scale: ScorePlugin['normalize'] = (_p, s) => s.fill(100);
    const first = [{ plugin: constant('x', { a: 7, b: 8, c: 9 }, scale), weight: 1 }];
    const second = [
      { plugin: constant('y', { a: 1, b: 2, c: 3 }), weight: 1 },
      { plugin: constant('z', { a: 30, b: 20, c: 95 }), weight: 2 },
    ];
    expect(prioritizeNodes(pod, nodes, first, new Map(), snapshot)).toEqual([100, 100, 100]);
    expect(prioritizeNodes(pod, nodes, second, new Map(), snapshot)).toEqual([61, 42, 193]);
    // Normalising by the highest raw score sees this call's nodes only.
    const byMax: ScorePlugin['normalize'] = (_p, s) => {
      const max = Math.max(...s);
      for (let i = 0; i < s.length; i++) s[i] = Math.trunc((100 * (s[i] as number)) / max);
    };
    const fewer = [{ plugin: constant('m', { b: 10, c: 20 }, byMax), weight: 1 }];
    expect(prioritizeNodes(pod, nodes.slice(1), fewer, new Map(), snapshot)).toEqual([50, 100]);
    expect(prioritizeNodes(pod, nodes, first, new Map(), snapshot)).toEqual([100, 100, 100]);
  });

  it('gives every node 1 when there are no score plugins (kube\u2019s rule)', () => {
    expect(prioritizeNodes(pod, nodes, [], new Map(), snapshot)).toEqual([1, 1, 1]);
  });

  it('runs every PreScore once, before any Score, with the snapshot and the nodes to score', () => {
    const calls: string[] = [];
    const withPreScore = (name: string): ScorePlugin => ({
      name,
      preScore(_pod, state: CycleState, snap, scored) {
        calls.push(`preScore ${name} ${scored.length} ${snap === snapshot}`);
        state.set(name, 7);
      },
      score(_pod, node, state) {
        calls.push(`score ${name} ${node.name}`);
        return state.get(name) as number;
      },
    });
    const totals = prioritizeNodes(
      pod,
      nodes.slice(0, 2),
      [
        { plugin: withPreScore('x'), weight: 1 },
        { plugin: constant('plain', { a: 1, b: 2 }), weight: 1 },
        { plugin: withPreScore('y'), weight: 2 },
      ],
      new Map(),
      snapshot,
    );
    expect(calls).toEqual([
      'preScore x 2 true',
      'preScore y 2 true',
      'score x a',
      'score x b',
      'score y a',
      'score y b',
    ]);
    expect(totals).toEqual([7 + 1 + 14, 7 + 2 + 14]);
  });

  it('names the PreScore that is running, so that a throw can be blamed on it', () => {
    const running = { plugin: '' };
    const failing: ScorePlugin = {
      name: 'Broken',
      preScore() {
        throw new Error('no data');
      },
      score: () => 0,
    };
    expect(() =>
      prioritizeNodes(pod, nodes, [{ plugin: failing, weight: 1 }], new Map(), snapshot, running),
    ).toThrow('no data');
    expect(running.plugin).toBe('Broken');
  });
});
