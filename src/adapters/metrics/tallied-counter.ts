// A prom-client Counter fed from plain counts: prom-client hashes and checks the label set on every inc, a map lookup does not.
import { Counter, type CounterConfiguration } from 'prom-client';

/**
 * A labelled Counter whose increments are kept in a map and handed to prom-client only when
 * the counter is scraped (its `collect` hook). At thousands of increments a second (one per
 * log event) prom-client's own `inc` hashed and validated each label set: ~5 % of berth's CPU
 * while it folded the start-up lists. Only this object may increment `counter`.
 */
export class TalliedCounter<L extends string> {
  readonly counter: Counter<L>;
  private readonly counts = new Map<string, { labels: Record<L, string>; n: number }>();

  private readonly firstLabel: L;

  constructor(config: CounterConfiguration<L> & { labelNames: readonly L[] }) {
    const counts = this.counts;
    this.firstLabel = config.labelNames[0] as L;
    this.counter = new Counter<L>({
      ...config,
      collect(this: Counter<L>) {
        this.reset();
        for (const { labels, n } of counts.values()) this.inc(labels, n);
      },
    });
  }

  /** Adds `by` (default 1) to the series `labels`; `key` must name the label set uniquely. */
  add(key: string, labels: Record<L, string>, by = 1): void {
    const entry = this.counts.get(key);
    if (entry === undefined) this.counts.set(key, { labels, n: by });
    else entry.n += by;
  }

  /** Adds 1 to the series whose only label (the first label name) has `value`. */
  addValue(value: string): void {
    const entry = this.counts.get(value);
    if (entry === undefined) {
      const labels = { [this.firstLabel]: value } as Record<L, string>;
      this.counts.set(value, { labels, n: 1 });
    } else entry.n += 1;
  }
}
