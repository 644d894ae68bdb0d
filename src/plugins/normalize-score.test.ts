// Table tests for defaultNormalizeScore, after kube's TestDefaultNormalizeScore.
import { describe, expect, it } from 'vitest';
import { defaultNormalizeScore } from './normalize-score.ts';

describe('defaultNormalizeScore', () => {
  const cases = [
    {
      name: 'scales to the maximum',
      scores: [10, 20, 30, 40, 50],
      reverse: false,
      want: [20, 40, 60, 80, 100],
    },
    { name: 'reversed', scores: [10, 20, 30, 40, 50], reverse: true, want: [80, 60, 40, 20, 0] },
    {
      name: 'truncates like Go integer division',
      scores: [1, 2, 3],
      reverse: false,
      want: [33, 66, 100],
    },
    { name: 'truncates before reversing', scores: [1, 2, 3], reverse: true, want: [67, 34, 0] },
    { name: 'all zero stay zero', scores: [0, 0, 0], reverse: false, want: [0, 0, 0] },
    {
      name: 'all zero reversed become the maximum',
      scores: [0, 0, 0],
      reverse: true,
      want: [100, 100, 100],
    },
    { name: 'empty list', scores: [], reverse: true, want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = [...c.scores];
      defaultNormalizeScore(s, c.reverse);
      expect(s).toEqual(c.want);
    });
  }
});
