// Checks of configuration values shared by the configuration's parsers.

/** `value`, a positive number, or `fallback` when absent; throws naming `field` otherwise. */
export function positive(value: unknown, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new Error(`config ${field} must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}
