// The smaller Kubernetes CEL libraries DRA selectors use: includes, the regex find functions, string extensions.
import type { Environment } from '@marcbachmann/cel-js';
import { functionDefiner } from './cel-define.ts';
import { CelQuantity } from './cel-quantity.ts';
import { CelSemver } from './cel-semver.ts';

/** CEL's heterogeneous equality for the values a DRA selector sees. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof CelSemver && b instanceof CelSemver) return a.compare(b) === 0n;
  if (a instanceof CelQuantity && b instanceof CelQuantity) return a.nanos === b.nanos;
  const numeric = (v: unknown) => typeof v === 'bigint' || typeof v === 'number';
  // biome-ignore lint/suspicious/noDoubleEquals: int == double compares numerically, as in CEL.
  if (numeric(a) && numeric(b)) return a == b;
  return false;
}

/** A JavaScript RegExp for a pattern, or the error kube's regex functions would report. */
function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'gu');
  } catch (e) {
    throw new Error(`error parsing regexp: ${(e as Error).message}`);
  }
}

function findAll(s: string, pattern: string, limit: bigint): string[] {
  const out: string[] = [];
  if (limit === 0n) return out;
  for (const m of s.matchAll(compilePattern(pattern))) {
    out.push(m[0]);
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

function charAt(s: string, i: bigint): string {
  const chars = Array.from(s);
  if (i < 0n || i > BigInt(chars.length)) throw new Error(`index out of range: ${i}`);
  return chars[Number(i)] ?? '';
}

function replace(s: string, from: string, to: string, limit: bigint): string {
  if (limit < 0n) return s.split(from).join(to);
  let out = s;
  let start = 0;
  for (let n = 0n; n < limit; n++) {
    const at = out.indexOf(from, start);
    if (at === -1) break;
    out = out.slice(0, at) + to + out.slice(at + from.length);
    start = at + to.length + (from === '' ? 1 : 0);
  }
  return out;
}

/**
 * Registers what kube's DRA environment adds beyond cel-js's standard library and that
 * selectors use: `<dyn>.includes(<dyn>)` (kube's IncludesOption: list membership, or equality
 * for a scalar), the regex library's `find`/`findAll`, and the string extensions
 * `charAt` and `replace`.
 */
export function registerDraExtensions(env: Environment): void {
  const fn = functionDefiner(env);
  fn(
    'includes',
    ['dyn'],
    'bool',
    (target: unknown, arg: unknown) =>
      Array.isArray(target) ? target.some((x) => celEquals(x, arg)) : celEquals(target, arg),
    'dyn',
  );
  fn('find', ['string'], 'string', (s: string, p: string) => findAll(s, p, 1n)[0] ?? '', 'string');
  fn('findAll', ['string'], 'list<string>', (s: string, p: string) => findAll(s, p, -1n), 'string');
  fn('findAll', ['string', 'int'], 'list<string>', findAll, 'string');
  fn('charAt', ['int'], 'string', charAt, 'string');
  fn(
    'replace',
    ['string', 'string'],
    'string',
    (s: string, a: string, b: string) => replace(s, a, b, -1n),
    'string',
  );
  fn('replace', ['string', 'string', 'int'], 'string', replace, 'string');
}
