// Scheduler configuration: what a run is configured with, recorded in the log header.
import { type BackoffConfig, defaultBackoff } from '../queue/backoff.ts';

/** Everything that shapes decisions. Recorded in the log header so replay uses the same. */
export interface BerthConfig {
  /** Pods whose `spec.schedulerName` equals this are scheduled by berth. */
  schedulerName: string;
  /** 0 = adaptive (kube-scheduler's default); 1–100 = fixed percentage. */
  percentageOfNodesToScore: number;
  /** Backoff after failed attempts. */
  backoff: BackoffConfig;
  /** Parked pods older than this are retried by the periodic flush (kube: 5 min). */
  maxParkedMs: number;
  /** How often the unschedulable pool is flushed (kube: 30 s). */
  flushIntervalMs: number;
}

/** kube-scheduler's defaults, with berth's scheduler name. */
export const defaultConfig: BerthConfig = {
  schedulerName: 'berth',
  percentageOfNodesToScore: 0,
  backoff: defaultBackoff,
  maxParkedMs: 5 * 60_000,
  flushIntervalMs: 30_000,
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function positive(value: unknown, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new Error(`config ${field} must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Reads a configuration object (from a log header or a --config file) over the defaults.
 * Throws an Error naming the field for a wrong type or range.
 */
export function parseConfig(raw: unknown): BerthConfig {
  if (raw === undefined) return defaultConfig;
  if (!isObject(raw)) throw new Error('config must be an object');
  const backoff = isObject(raw.backoff) ? raw.backoff : {};
  const pct = raw.percentageOfNodesToScore ?? defaultConfig.percentageOfNodesToScore;
  if (typeof pct !== 'number' || !Number.isInteger(pct) || pct < 0 || pct > 100) {
    throw new Error(
      `config percentageOfNodesToScore must be an integer 0–100, got ${JSON.stringify(pct)}`,
    );
  }
  const name = raw.schedulerName ?? defaultConfig.schedulerName;
  if (typeof name !== 'string' || name === '')
    throw new Error('config schedulerName must be a non-empty string');
  const initialMs = positive(
    backoff.initialMs,
    defaultConfig.backoff.initialMs,
    'backoff.initialMs',
  );
  const maxMs = positive(backoff.maxMs, defaultConfig.backoff.maxMs, 'backoff.maxMs');
  if (maxMs < initialMs) throw new Error('config backoff.maxMs must be ≥ backoff.initialMs');
  return {
    schedulerName: name,
    percentageOfNodesToScore: pct,
    backoff: { initialMs, maxMs },
    maxParkedMs: positive(raw.maxParkedMs, defaultConfig.maxParkedMs, 'maxParkedMs'),
    flushIntervalMs: positive(
      raw.flushIntervalMs,
      defaultConfig.flushIntervalMs,
      'flushIntervalMs',
    ),
  };
}
