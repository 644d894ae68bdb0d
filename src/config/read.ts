// Reading untyped config data field by field: every refusal names the field's path.
import { isRecord } from '../model/record.ts';

/**
 * A configuration value berth refuses: the message is `config PATH: PROBLEM`, one line,
 * so the CLI can print it as it is.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    /** Where the value is, e.g. `profiles[1].plugins.score.enabled[0].name`. */
    readonly path: string,
    /** What is wrong with it. */
    readonly problem: string,
  ) {
    super(path === '' ? `config: ${problem}` : `config ${path}: ${problem}`);
  }
}

/** A mapping from a parsed YAML/JSON document. */
export type Fields = Record<string, unknown>;

/** The path of `key` under `path` (`a.b`, or `b` at the top). */
export function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The path of element `i` under `path` (`a[3]`). */
export function at(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** A value as it would be quoted in a message (short). */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** True for a plain mapping (not null, not an array). */
export function isFields(value: unknown): value is Fields {
  return isRecord(value);
}

/** `value` as a mapping; null and undefined read as an empty one (as kube's decoder does). */
export function fields(value: unknown, path: string): Fields {
  if (value === undefined || value === null) return {};
  if (!isFields(value)) throw new ConfigError(path, `must be a mapping, got ${shown(value)}`);
  return value;
}

/**
 * Checks that `obj` has no key outside `known` (kube decodes strictly: an unknown field is
 * an error). `replaced` names, for keys that moved, what replaced them.
 */
export function knownKeys(
  obj: Fields,
  path: string,
  known: readonly string[],
  replaced: Readonly<Record<string, string>> = {},
): void {
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const where = child(path, key);
    const instead = Object.hasOwn(replaced, key) ? replaced[key] : undefined;
    if (instead !== undefined) throw new ConfigError(where, instead);
    throw new ConfigError(where, `unknown field (known: ${known.join(', ')})`);
  }
}

/** `value` as a list; null and undefined read as an empty one. */
export function list(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ConfigError(path, `must be a list, got ${shown(value)}`);
  return value;
}

/** `value` as a string, or undefined when absent. */
export function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new ConfigError(path, `must be a string, got ${shown(value)}`);
  return value;
}

/** `value` as a string that must be there and not be empty. */
export function requiredString(value: unknown, path: string): string {
  const s = optionalString(value, path);
  if (s === undefined || s === '') throw new ConfigError(path, 'is required');
  return s;
}

/** `value` as a boolean, or undefined when absent. */
export function optionalBool(value: unknown, path: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean')
    throw new ConfigError(path, `must be true or false, got ${shown(value)}`);
  return value;
}

/** `value` as a number, or undefined when absent. */
export function optionalNumber(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new ConfigError(path, `must be a number, got ${shown(value)}`);
  return value;
}

/**
 * `value` as an integer within [min, max], or undefined when absent. `range` words the
 * bounds in the message (e.g. `not in valid range [0, 100]`).
 */
export function optionalInt(
  value: unknown,
  path: string,
  min: number,
  max: number,
  range = `not in valid range [${min}, ${max}]`,
): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new ConfigError(path, `must be an integer, got ${shown(value)}`);
  if (value < min || value > max) throw new ConfigError(path, `${value} ${range}`);
  return value;
}

/** `value` as one of `allowed`, or undefined when absent. */
export function optionalEnum<T extends string>(
  value: unknown,
  path: string,
  allowed: readonly T[],
): T | undefined {
  const s = optionalString(value, path);
  if (s === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(s))
    throw new ConfigError(
      path,
      `unsupported value ${shown(s)} (supported: ${allowed.map((a) => `"${a}"`).join(', ')})`,
    );
  return s as T;
}

/** kube's TypeMeta inside args: optional, and then it must name this plugin's args. */
export function checkTypeMeta(args: Fields, path: string, plugin: string): void {
  const apiVersion = optionalString(args.apiVersion, child(path, 'apiVersion'));
  if (apiVersion !== undefined && apiVersion !== 'kubescheduler.config.k8s.io/v1')
    throw new ConfigError(
      child(path, 'apiVersion'),
      `must be kubescheduler.config.k8s.io/v1, got "${apiVersion}"`,
    );
  const kind = optionalString(args.kind, child(path, 'kind'));
  if (kind !== undefined && kind !== `${plugin}Args`)
    throw new ConfigError(child(path, 'kind'), `must be ${plugin}Args, got "${kind}"`);
}
