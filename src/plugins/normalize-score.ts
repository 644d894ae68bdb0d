// Score normalisation shared by score plugins (kube-scheduler's plugins/helper.DefaultNormalizeScore).
import { maxNodeScore } from '../framework/types.ts';

/**
 * Rescales `scores` in place from [0, max(scores)] to [0, maxNodeScore] with Go's
 * truncating integer division; with `reverse`, each score becomes maxNodeScore − score.
 * When every score is 0 the scores stay 0, or all become maxNodeScore when reversed.
 */
export function defaultNormalizeScore(scores: number[], reverse: boolean): void {
  let maxCount = 0;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i] as number;
    if (s > maxCount) maxCount = s;
  }
  if (maxCount === 0) {
    if (reverse) scores.fill(maxNodeScore);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    const s = Math.trunc((maxNodeScore * (scores[i] as number)) / maxCount);
    scores[i] = reverse ? maxNodeScore - s : s;
  }
}
