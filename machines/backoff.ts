// Backoff after a failed attempt: initial × 2^(attempts−1), capped, without overflow (the pod machine's named delay; the queue re-exports it).

/** Backoff settings in milliseconds (kube-scheduler: 1 s initial, 10 s max). */
export interface BackoffConfig {
  initialMs: number;
  maxMs: number;
}

/** kube-scheduler's defaults. */
export const defaultBackoff: BackoffConfig = { initialMs: 1_000, maxMs: 10_000 };

/**
 * The delay before attempt `attempts + 1`, given `attempts` failed attempts (≥ 1).
 * Doubles from `initialMs` and stops at `maxMs`; never overflows for any attempt count.
 */
export function backoffDelayMs(attempts: number, config: BackoffConfig = defaultBackoff): number {
  let delay = config.initialMs;
  for (let i = 1; i < attempts; i++) {
    if (delay >= config.maxMs) return config.maxMs;
    delay *= 2;
  }
  return Math.min(delay, config.maxMs);
}
