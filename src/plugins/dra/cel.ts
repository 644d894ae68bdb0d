// CEL device selectors of DRA, compiled once per expression and evaluated against a device as kube-scheduler 1.37 does.
//
// The environment is kube's stored-expression DRA environment as the scheduler uses it
// (k8s.io/dynamic-resource-allocation/cel): `device.driver`, `device.allowMultipleAllocations`,
// `device.attributes[domain][id]` (dyn: int, bool, string or Semver) and
// `device.capacity[domain][id]` (Quantity); a missing domain reads as an empty map, a missing
// id fails with "no such key"; the quantity and semver libraries, `includes`, `cel.bind`,
// optional types, regex `find`/`findAll`, the string extensions and the standard macros.
//
// Differences from kube, on purpose or from the library (cel-js 8.0.0):
// - Cost: kube's scheduler enforces CELSelectorExpressionMaxCost (1,000,000) with CEL-go's
//   runtime cost model. cel-js measures no cost, so berth charges each comprehension step the
//   node count of its body and fails with kube's "actual cost limit exceeded" past 1,000,000
//   units. Runaway nested macros fail as in kube, but the count is not CEL-go's: code outside
//   comprehensions is free (it is bounded by the expression's size), string and regex
//   functions cost 1 whatever their input's length, so the limit is hit at a different point.
// - Expressions over 10 KiB (CELSelectorExpressionMaxLength, checked by kube's API validation,
//   not by the scheduler) are refused here, as is more than 20,000 AST nodes or nesting
//   deeper than 250. There is no compile-time cost estimate ("too complex, exceeds cost limit").
// - Not supported: the IP, CIDR, URL, format, authz, sets and kube lists libraries (isSorted,
//   sum, min, max, indexOf on lists), ext.Lists, two-variable comprehensions, string
//   `quote`/`format`/`reverse`, list-valued attributes (berth's DeviceAttribute has none),
//   and `has()` on an indexed operand (`has(device.attributes["d"].x)`: use `"x" in ...`).
// - Regular expressions are JavaScript's, not RE2: syntax differs at the edges and a
//   pathological pattern can backtrack for a long time (known debt).
// - Error texts follow kube where tests pin them (compile, "no such key", result type, cost,
//   quantity/semver parsing); other evaluation errors carry cel-js's wording.
import { TypeError as CelTypeError, ParseError } from '@marcbachmann/cel-js';
import {
  type CelDevice,
  DeviceValue,
  deviceValue,
  honestMap,
  newDraEnvironment,
} from './cel-env.ts';
import { CostLimitError, costLimitExceeded, installHooks, withMeter } from './cel-guard.ts';
import { CelQuantity, quantityTypeName } from './cel-quantity.ts';
import { CelSemver, semverTypeName } from './cel-semver.ts';

export type { CelDevice } from './cel-env.ts';

/** kube's CELSelectorExpressionMaxCost: the runtime cost limit of one evaluation. */
export const selectorMaxCost = 1_000_000;
/** kube's CELSelectorExpressionMaxLength, in bytes. */
export const selectorMaxLength = 10 * 1024;

/** A selector that compiled: evaluate it with {@link matchesDevice}. */
export interface CompiledSelector {
  readonly expression: string;
  /** @internal */ readonly run: (vars: Record<string, unknown>) => unknown;
}

/** What {@link compileDeviceSelector} returns. */
export type CompileResult = CompiledSelector | { error: string };
/** What {@link matchesDevice} returns. */
export type MatchResult = { matches: boolean } | { error: string };

let environment: ReturnType<typeof newDraEnvironment> | undefined;
const cache = new Map<string, CompileResult>();
const CACHE_LIMIT = 1024;

/** cel-go's location prefix for a compile error at offset `pos` of `input`. */
function location(input: string, pos: number | undefined): string {
  if (pos === undefined) return 'ERROR: <input>';
  const before = input.slice(0, pos).split('\n');
  return `ERROR: <input>:${before.length}:${before[before.length - 1]!.length + 1}`;
}

function compileError(expression: string, e: unknown): { error: string } {
  if (e instanceof ParseError || e instanceof CelTypeError) {
    const kind = e instanceof ParseError ? 'Syntax error: ' : '';
    const summary = e.summary.replace(/^No such key: (.*)$/, "undefined field '$1'");
    return {
      error: `compilation failed: ${location(expression, e.range?.start)}: ${kind}${summary}`,
    };
  }
  return { error: `compilation failed: ${(e as Error)?.message ?? String(e)}` };
}

/** cel-go's name for a type as cel-js prints it (`map<string, dyn>` → `map(string, dyn)`). */
function celGoTypeName(t: string): string {
  return t.replaceAll('<', '(').replaceAll('>', ')');
}

function compile(expression: string): CompileResult {
  if (new TextEncoder().encode(expression).length > selectorMaxLength) {
    return { error: `Too long: may not be more than ${selectorMaxLength} bytes` };
  }
  environment ??= newDraEnvironment();
  let parsed: ReturnType<typeof environment.parse>;
  try {
    parsed = environment.parse(expression);
  } catch (e) {
    return compileError(expression, e);
  }
  const checked = parsed.check();
  if (!checked.valid) return compileError(expression, checked.error);
  const outputType = checked.type ?? 'dyn';
  if (outputType !== 'bool' && outputType !== 'dyn') {
    const full = { map: 'map<dyn, dyn>', list: 'list<dyn>' }[outputType] ?? outputType;
    const type = celGoTypeName(full);
    return { error: `must evaluate to bool or the unknown type, not ${type}` };
  }
  installHooks(parsed.ast, honestMap);
  return { expression, run: (vars) => parsed(vars) };
}

/**
 * Compiles a DRA CEL selector, or says why it cannot be used (kube's wording: "compilation
 * failed: ...", "must evaluate to bool or the unknown type, not int", or the API's length
 * limit). Results are cached per expression string (a bounded map, oldest entry evicted
 * first), so a repeated expression returns the same object. Never throws.
 */
export function compileDeviceSelector(expression: string): CompileResult {
  const hit = cache.get(expression);
  if (hit !== undefined) return hit;
  let result: CompileResult;
  try {
    result = compile(expression);
  } catch (e) {
    result = { error: `compilation failed: ${(e as Error)?.message ?? String(e)}` };
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(expression, result);
  return result;
}

/** The CEL type name of a runtime value, for kube's "could not be converted to bool". */
function runtimeTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string' || typeof v === 'boolean')
    return typeof v === 'string' ? 'string' : 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof CelQuantity) return quantityTypeName;
  if (v instanceof CelSemver) return semverTypeName;
  return v instanceof Map || Object.getPrototypeOf(v) === Object.prototype ? 'map' : 'object';
}

/** kube's wording of an evaluation error, with the hint its allocator adds to "no such key". */
function evaluationError(e: unknown): string {
  if (e instanceof CostLimitError) return costLimitExceeded;
  const err = e as { summary?: string; message?: string };
  const text = (err?.summary ?? err?.message ?? String(e)).replace(/^No such key:/, 'no such key:');
  if (!text.includes('no such key:')) return text;
  return `${text}. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields`;
}

/**
 * Evaluates a compiled selector against a device: whether it matches, or kube's error (a bad
 * attribute, "no such key: x", a result that is not a bool, the cost limit). Never throws.
 */
export function matchesDevice(compiled: CompiledSelector, device: CelDevice): MatchResult {
  const input = deviceValue(device);
  if (!(input instanceof DeviceValue)) return input;
  const meter = { remaining: selectorMaxCost, exceeded: false };
  let result: unknown;
  try {
    result = withMeter(meter, () => compiled.run({ device: input }));
  } catch (e) {
    return { error: meter.exceeded ? costLimitExceeded : evaluationError(e) };
  }
  // An error absorbed by `||`/`&&` or a macro must not hide a spent budget.
  if (meter.exceeded) return { error: costLimitExceeded };
  if (typeof result === 'boolean') return { matches: result };
  const type = runtimeTypeName(result);
  return {
    error: `CEL result of type ${type} could not be converted to bool: type conversion error from '${type}' to 'bool'`,
  };
}
