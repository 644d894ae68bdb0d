// Total readers for DRA object fields: typed copies of what is well-formed, and the first problem found, by field path.
import type { DraNodeSelector } from '../model/dra-types.ts';
import { parseTerm } from './constraints.ts';
import { isRecord, type JsonRecord } from './fields.ts';

/**
 * Collects what is wrong with an object while its fields are read. Only the first problem
 * is kept: it is the one the pod's message names.
 */
export class Problems {
  first: string | undefined;

  /** Notes `problem` unless one was noted already; returns undefined for use in reads. */
  add(problem: string): undefined {
    this.first ??= problem;
    return undefined;
  }
}

/** The field as a string, or undefined; a present non-string is a problem. */
export function optString(v: unknown, path: string, p: Problems): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  return p.add(`${path} is not a string`);
}

/** The field as a non-empty string; absent or anything else is a problem (answer ''). */
export function reqString(v: unknown, path: string, p: Problems): string {
  if (typeof v === 'string' && v !== '') return v;
  p.add(
    v === undefined || v === null || v === '' ? `${path} is required` : `${path} is not a string`,
  );
  return '';
}

/** The field as a boolean, or undefined; a present non-boolean is a problem. */
export function optBool(v: unknown, path: string, p: Problems): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  return p.add(`${path} is not a boolean`);
}

/** The field as a safe integer, or undefined; a present non-integer is a problem. */
export function optInt(v: unknown, path: string, p: Problems): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  return p.add(`${path} is not an integer`);
}

/**
 * The field as a list read item by item with `item` (items it answers undefined for are
 * dropped); absent is an empty list; more than `max` items, or a non-list, is a problem.
 */
export function list<T>(
  v: unknown,
  path: string,
  p: Problems,
  max: number,
  item: (x: unknown, path: string) => T | undefined,
): T[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    p.add(`${path} is not a list`);
    return [];
  }
  if (v.length > max) p.add(`${path} has ${v.length} entries, more than the ${max} allowed`);
  const out: T[] = [];
  for (const [i, x] of v.entries()) {
    const value = item(x, `${path}[${i}]`);
    if (value !== undefined) out.push(value);
  }
  return out;
}

/** The field as a list of strings (see `list`). */
export function stringList(v: unknown, path: string, p: Problems, max: number): string[] {
  return list(v, path, p, max, (x, at) =>
    typeof x === 'string' ? x : p.add(`${at} is not a string`),
  );
}

/** The field as an object, or undefined; a present non-object is a problem. */
export function optRecord(v: unknown, path: string, p: Problems): JsonRecord | undefined {
  if (v === undefined || v === null) return undefined;
  if (isRecord(v)) return v;
  return p.add(`${path} is not an object`);
}

/**
 * The field as a map whose values `value` reads (entries it answers undefined for are
 * dropped), or undefined when absent; more than `max` entries is a problem.
 */
export function map<T>(
  v: unknown,
  path: string,
  p: Problems,
  max: number,
  value: (x: unknown, path: string) => T | undefined,
): Record<string, T> | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const keys = Object.keys(r);
  if (keys.length > max) p.add(`${path} has ${keys.length} entries, more than the ${max} allowed`);
  const out: Record<string, T> = {};
  for (const key of keys) {
    const x = value(r[key], `${path}[${JSON.stringify(key)}]`);
    if (x !== undefined) out[key] = x;
  }
  return out;
}

/** A core/v1 NodeSelector, or undefined when absent. */
export function nodeSelector(v: unknown, path: string, p: Problems): DraNodeSelector | undefined {
  const r = optRecord(v, path, p);
  if (r === undefined) return undefined;
  const at = `${path}.nodeSelectorTerms`;
  const term = (x: unknown, i: string) => {
    const parsed = parseTerm(x, i);
    return parsed.ok ? parsed.value : p.add(parsed.error);
  };
  return { nodeSelectorTerms: list(r.nodeSelectorTerms, at, p, 1e6, term) };
}

/** `metadata` with its name, or the reason the object cannot be stored at all. */
export function metadataOf(
  raw: unknown,
  kind: string,
): { meta: JsonRecord; name: string } | string {
  const meta = isRecord(raw) && isRecord(raw.metadata) ? raw.metadata : undefined;
  const name = meta !== undefined && typeof meta.name === 'string' ? meta.name : '';
  if (meta === undefined || name === '') return `${kind} has no metadata.name`;
  return { meta, name };
}

/** Drops the keys whose value is undefined, so that the parsed view is plain JSON. */
export function defined<T extends object>(o: T): T {
  for (const key of Object.keys(o) as (keyof T)[]) if (o[key] === undefined) delete o[key];
  return o;
}
