// Kubernetes' CEL semver library (semver(), isSemver(), compareTo, major, ...) for DRA device selectors.
//
// Parsing and ordering follow github.com/blang/semver/v4 (which kube uses), with its error
// texts; `semver(s, true)` normalizes as kube's normalizeAndParse does ("v1.02" → "1.2.0").
import type { Environment } from '@marcbachmann/cel-js';
import { functionDefiner } from './cel-define.ts';

/** The opaque CEL type name kube gives semantic versions. */
export const semverTypeName = 'kubernetes.Semver';

const MAX_UINT64 = 2n ** 64n - 1n;
const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;

/** One dot-separated prerelease identifier: numeric or alphanumeric. */
type Prerelease = bigint | string;

/** A semantic version inside CEL. Build metadata is kept but never compared. */
export class CelSemver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly Prerelease[],
    readonly build: readonly string[],
  ) {}

  /** -1, 0 or 1, as blang/semver's Version.Compare. */
  compare(o: CelSemver): bigint {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a > b ? 1n : -1n;
    }
    if (this.pre.length === 0 || o.pre.length === 0) {
      return BigInt(Math.sign(o.pre.length - this.pre.length));
    }
    const n = Math.min(this.pre.length, o.pre.length);
    for (let i = 0; i < n; i++) {
      const c = comparePrerelease(this.pre[i]!, o.pre[i]!);
      if (c !== 0n) return c;
    }
    return BigInt(Math.sign(this.pre.length - o.pre.length));
  }
}

function comparePrerelease(a: Prerelease, b: Prerelease): bigint {
  if (typeof a !== typeof b) return typeof a === 'bigint' ? -1n : 1n;
  if (a === b) return 0n;
  return a > b ? 1n : -1n;
}

const hasLeadingZeroes = (s: string) => s.length > 1 && s[0] === '0';

/** Go's strconv.ParseUint(s, 10, 64) with its error text. */
function parseUint(s: string): bigint | { error: string } {
  if (s === '' || !NUMBERS.test(s)) {
    return { error: `strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax` };
  }
  const v = BigInt(s);
  if (v > MAX_UINT64) {
    return { error: `strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range` };
  }
  return v;
}

/** One of major, minor, patch: digits only, no leading zero. */
function parseNumber(s: string, what: string): bigint | { error: string } {
  if (!NUMBERS.test(s)) return { error: `Invalid character(s) found in ${what} number "${s}"` };
  const label = what[0]!.toUpperCase() + what.slice(1);
  if (hasLeadingZeroes(s))
    return { error: `${label} number must not contain leading zeroes "${s}"` };
  return parseUint(s);
}

function parsePrerelease(s: string): Prerelease | { error: string } {
  if (s.length === 0) return { error: 'Prerelease is empty' };
  if (NUMBERS.test(s)) {
    if (hasLeadingZeroes(s)) {
      return { error: `Numeric PreRelease version must not contain leading zeroes "${s}"` };
    }
    return parseUint(s);
  }
  if (ALPHANUM.test(s)) return s;
  return { error: `Invalid character(s) found in prerelease "${s}"` };
}

function parseBuild(s: string): string | { error: string } {
  if (s.length === 0) return { error: 'Build meta data is empty' };
  if (!ALPHANUM.test(s)) return { error: `Invalid character(s) found in build meta data "${s}"` };
  return s;
}

function collect<T>(items: string[], parse: (s: string) => T | { error: string }) {
  const out: T[] = [];
  for (const item of items) {
    const v = parse(item);
    if (typeof v === 'object' && v !== null && 'error' in v) return v;
    out.push(v as T);
  }
  return out;
}

/** Parses a version as blang/semver's Parse: the version, or its error text. */
export function parseCelSemver(s: string): CelSemver | { error: string } {
  if (s.length === 0) return { error: 'Version string empty' };
  const parts = splitN(s, '.', 3);
  if (parts.length !== 3) return { error: 'No Major.Minor.Patch elements found' };
  const major = parseNumber(parts[0]!, 'major');
  if (typeof major !== 'bigint') return major;
  const minor = parseNumber(parts[1]!, 'minor');
  if (typeof minor !== 'bigint') return minor;
  let rest = parts[2]!;
  let build: string[] = [];
  let pre: string[] = [];
  const plus = rest.indexOf('+');
  if (plus !== -1) [rest, build] = [rest.slice(0, plus), rest.slice(plus + 1).split('.')];
  const dash = rest.indexOf('-');
  if (dash !== -1) [rest, pre] = [rest.slice(0, dash), rest.slice(dash + 1).split('.')];
  const patch = parseNumber(rest, 'patch');
  if (typeof patch !== 'bigint') return patch;
  const prerelease = collect(pre, parsePrerelease);
  if (!Array.isArray(prerelease)) return prerelease;
  const meta = collect(build, parseBuild);
  if (!Array.isArray(meta)) return meta;
  return new CelSemver(major, minor, patch, prerelease, meta);
}

/** Go's strings.SplitN. */
function splitN(s: string, sep: string, n: number): string[] {
  const all = s.split(sep);
  return all.length <= n ? all : [...all.slice(0, n - 1), all.slice(n - 1).join(sep)];
}

/** kube's normalizeAndParse: drops a "v" prefix and leading zeroes, fills missing minor/patch. */
export function normalizeAndParseSemver(input: string): CelSemver | { error: string } {
  const parts = splitN(input.startsWith('v') ? input.slice(1) : input, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const trimmed = p.replace(/^0+/, '');
    return trimmed.length === 0 || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) {
      return { error: 'short version cannot contain PreRelease/Build meta data' };
    }
    while (parts.length < 3) parts.push('0');
  }
  return parseCelSemver(parts.join('.'));
}

function toSemver(s: string, normalize: boolean): CelSemver {
  const v = normalize ? normalizeAndParseSemver(s) : parseCelSemver(s);
  if (v instanceof CelSemver) return v;
  throw new Error(v.error);
}

/** Registers the semver type, `semver()`, `isSemver()` (with kube's optional normalize flag) and methods. */
export function registerSemverLibrary(env: Environment): void {
  const S = semverTypeName;
  env.registerType(S, CelSemver);
  env.registerOperator(`${S} == ${S}`, (a: CelSemver, b: CelSemver) => a.compare(b) === 0n);
  const fn = functionDefiner(env);
  fn('semver', ['string'], S, (s: string) => toSemver(s, false));
  fn('semver', ['string', 'bool'], S, (s: string, n: boolean) => toSemver(s, n));
  const valid = (s: string, n: boolean) =>
    (n ? normalizeAndParseSemver(s) : parseCelSemver(s)) instanceof CelSemver;
  fn('isSemver', ['string'], 'bool', (s: string) => valid(s, false));
  fn('isSemver', ['string', 'bool'], 'bool', (s: string, n: boolean) => valid(s, n));
  fn('isGreaterThan', [S], 'bool', (a: CelSemver, b: CelSemver) => a.compare(b) === 1n, S);
  fn('isLessThan', [S], 'bool', (a: CelSemver, b: CelSemver) => a.compare(b) === -1n, S);
  fn('compareTo', [S], 'int', (a: CelSemver, b: CelSemver) => a.compare(b), S);
  fn('major', [], 'int', (v: CelSemver) => v.major, S);
  fn('minor', [], 'int', (v: CelSemver) => v.minor, S);
  fn('patch', [], 'int', (v: CelSemver) => v.patch, S);
}
