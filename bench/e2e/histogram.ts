// Quantiles of a Prometheus histogram scraped from a scheduler, interpolated within buckets as histogram_quantile does.
import { parseSamples } from '../../test/support/prometheus-text.ts';

/**
 * Quantiles of one histogram, in ms: NaN when it has no observations, Infinity when the rank
 * falls beyond the last finite bucket (16.4 s for the attempt duration).
 */
export interface HistogramQuantiles {
  n: number;
  p50: number;
  p99: number;
}

/**
 * The p50 and p99 of the histogram `name` in the exposition `text`, over the series whose
 * labels include `match` (summed), in ms: linear within the bucket the rank falls in, as
 * Prometheus's histogram_quantile does; Infinity beyond the last finite bucket.
 */
export function histogramQuantiles(
  text: string,
  name: string,
  match: Record<string, string>,
): HistogramQuantiles {
  const counts = new Map<number, number>();
  for (const s of parseSamples(text)) {
    if (s.name !== `${name}_bucket`) continue;
    if (Object.entries(match).some(([k, v]) => s.labels[k] !== v)) continue;
    const le = s.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(s.labels.le);
    counts.set(le, (counts.get(le) ?? 0) + s.value);
  }
  const buckets = [...counts.entries()].sort((a, b) => a[0] - b[0]);
  const n = buckets[buckets.length - 1]?.[1] ?? 0;
  const quantile = (q: number): number => {
    if (n === 0) return Number.NaN;
    const rank = q * n;
    let lower = 0;
    let below = 0;
    for (const [le, cumulative] of buckets) {
      if (cumulative >= rank) {
        if (!Number.isFinite(le)) return Number.POSITIVE_INFINITY;
        const inBucket = cumulative - below;
        const share = inBucket === 0 ? 1 : (rank - below) / inBucket;
        return +((lower + (le - lower) * share) * 1000).toFixed(2);
      }
      lower = le;
      below = cumulative;
    }
    return Number.POSITIVE_INFINITY;
  };
  return { n, p50: quantile(0.5), p99: quantile(0.99) };
}
