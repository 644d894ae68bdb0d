// The one plain-object test: what every reader of untrusted JSON checks before it reads a field.

/** A plain JSON object (not null, not an array). */
export type JsonRecord = Record<string, unknown>;

/** True for a non-null, non-array object. Never throws. */
export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
