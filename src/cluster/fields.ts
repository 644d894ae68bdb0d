// Total readers for untrusted manifest fields: they never throw and never trust a type.

/** A plain JSON object (not null, not an array). */
export type JsonRecord = Record<string, unknown>;

/** True for a non-null, non-array object. */
export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * An empty map without a prototype, so that keys taken from manifests ("constructor",
 * "__proto__") are ordinary keys and lookups of absent keys return undefined.
 */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The field when it is a non-empty string, else undefined. */
export function nonEmptyString(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** The string-valued entries of an object (others dropped); empty for a non-object. */
export function stringEntries(v: unknown): Record<string, string> {
  const out = emptyRecord<string>();
  if (!isRecord(v)) return out;
  for (const key of Object.keys(v)) {
    const value = v[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}
