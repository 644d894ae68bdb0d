// Total parsers for placement constraints: tolerations, taints, node selector, node affinity.

import type {
  NodeSelectorRequirement,
  NodeSelectorTerm,
  PreferredSchedulingTerm,
  Taint,
  Toleration,
} from '../model/objects.ts';
import { emptyRecord, isRecord, type JsonRecord, noEntries } from './fields.ts';

/** A parse result that either holds a value or names the field that made it unusable. */
export type ParsedField<T> = { ok: true; value: T } | { ok: false; error: string };

/** Operators a node selector requirement may use (anything else cannot be evaluated). */
const OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']);

const absent = (v: unknown): v is undefined | null => v === undefined || v === null;
const optString = (v: unknown): boolean => absent(v) || typeof v === 'string';

// Shared frozen results for what most pods leave out: parsing them allocates nothing.
const noTolerations: Toleration[] = Object.freeze([]) as unknown as Toleration[];
const noPreferred: PreferredSchedulingTerm[] = Object.freeze(
  [],
) as unknown as PreferredSchedulingTerm[];

/**
 * Well-formed tolerations only (a malformed entry is dropped: tolerating less can only keep
 * a pod off nodes, never put it somewhere wrong). Null fields count as absent.
 */
export function parseTolerations(v: unknown): Toleration[] {
  if (!Array.isArray(v) || v.length === 0) return noTolerations;
  const out: Toleration[] = [];
  for (const t of v) {
    if (!isRecord(t)) continue;
    const { key, operator, value, effect, tolerationSeconds } = t;
    if (!optString(key) || !optString(operator) || !optString(value) || !optString(effect)) {
      continue;
    }
    if (!absent(tolerationSeconds) && typeof tolerationSeconds !== 'number') continue;
    const tol: Toleration = {};
    if (typeof key === 'string') tol.key = key;
    if (typeof operator === 'string') tol.operator = operator;
    if (typeof value === 'string') tol.value = value;
    if (typeof effect === 'string') tol.effect = effect;
    if (typeof tolerationSeconds === 'number') tol.tolerationSeconds = tolerationSeconds;
    out.push(tol);
  }
  return out;
}

/**
 * A node's taints. A malformed taint makes the node unusable (error naming the field):
 * dropping it would let pods onto a node they must not go to.
 */
/** Shared by every untainted node: one hot cache line instead of an array per node. */
const noTaints: Taint[] = Object.freeze([]) as unknown as Taint[];

export function parseTaints(v: unknown, path: string): ParsedField<Taint[]> {
  if (absent(v)) return { ok: true, value: noTaints };
  if (!Array.isArray(v)) return { ok: false, error: `${path} is not a list` };
  const out: Taint[] = [];
  for (let i = 0; i < v.length; i++) {
    const t: unknown = v[i];
    const at = `${path}[${i}]`;
    if (!isRecord(t)) return { ok: false, error: `${at} is not an object` };
    if (typeof t.key !== 'string') return { ok: false, error: `${at}.key is not a string` };
    if (typeof t.effect !== 'string') return { ok: false, error: `${at}.effect is not a string` };
    if (!optString(t.value)) return { ok: false, error: `${at}.value is not a string` };
    const taint: Taint = { key: t.key, effect: t.effect };
    if (typeof t.value === 'string') taint.value = t.value;
    out.push(taint);
  }
  return { ok: true, value: out };
}

/**
 * `spec.nodeSelector`. Every value must be a string: a selector entry that cannot be read is
 * an error rather than dropped, since dropping it would widen where the pod may go.
 */
export function parseNodeSelector(v: unknown, path: string): ParsedField<Record<string, string>> {
  if (absent(v)) return noSelector;
  if (!isRecord(v)) return { ok: false, error: `${path} is not an object` };
  let out: Record<string, string> | undefined;
  for (const key of Object.keys(v)) {
    const value = v[key];
    if (typeof value !== 'string') {
      return { ok: false, error: `${path}[${JSON.stringify(key)}] is not a string` };
    }
    out ??= emptyRecord<string>();
    out[key] = value;
  }
  return out === undefined ? noSelector : { ok: true, value: out };
}

/** An absent or empty nodeSelector: one frozen result shared by every pod without one. */
const noSelector: ParsedField<Record<string, string>> = Object.freeze({
  ok: true,
  value: noEntries,
});

function parseRequirements(v: unknown, path: string): ParsedField<NodeSelectorRequirement[]> {
  if (!Array.isArray(v)) return { ok: false, error: `${path} is not a list` };
  const out: NodeSelectorRequirement[] = [];
  for (let i = 0; i < v.length; i++) {
    const r: unknown = v[i];
    const at = `${path}[${i}]`;
    if (!isRecord(r)) return { ok: false, error: `${at} is not an object` };
    if (typeof r.key !== 'string') return { ok: false, error: `${at}.key is not a string` };
    if (typeof r.operator !== 'string' || !OPERATORS.has(r.operator)) {
      return { ok: false, error: `${at}.operator is not a known operator` };
    }
    const req: NodeSelectorRequirement = { key: r.key, operator: r.operator };
    if (!absent(r.values)) {
      if (!Array.isArray(r.values) || !r.values.every((x) => typeof x === 'string')) {
        return { ok: false, error: `${at}.values is not a list of strings` };
      }
      req.values = [...r.values];
    }
    out.push(req);
  }
  return { ok: true, value: out };
}

/** One node selector term; both lists optional, each must be well-formed when present. */
export function parseTerm(v: unknown, path: string): ParsedField<NodeSelectorTerm> {
  if (!isRecord(v)) return { ok: false, error: `${path} is not an object` };
  const term: NodeSelectorTerm = {};
  for (const field of ['matchExpressions', 'matchFields'] as const) {
    if (absent(v[field])) continue;
    const reqs = parseRequirements(v[field], `${path}.${field}`);
    if (!reqs.ok) return reqs;
    term[field] = reqs.value;
  }
  return { ok: true, value: term };
}

/** What a pod's node affinity says, in the shape PodInfo keeps. */
export interface ParsedNodeAffinity {
  required: NodeSelectorTerm[] | undefined;
  preferred: PreferredSchedulingTerm[];
}

/** Preferred terms: malformed entries are dropped (they only ever change scores). */
function parsePreferred(v: unknown): PreferredSchedulingTerm[] {
  if (!Array.isArray(v) || v.length === 0) return noPreferred;
  const out: PreferredSchedulingTerm[] = [];
  for (const p of v) {
    if (!isRecord(p) || typeof p.weight !== 'number' || !Number.isFinite(p.weight)) continue;
    const term = parseTerm(p.preference, 'preference');
    if (term.ok) out.push({ weight: p.weight, preference: term.value });
  }
  return out;
}

/**
 * `spec.affinity` (only node affinity is read). A required affinity that cannot be read in
 * full is an error naming the field: dropping any of it could place the pod wrongly.
 */
export function parseNodeAffinity(v: unknown, path: string): ParsedField<ParsedNodeAffinity> {
  const none: ParsedNodeAffinity = { required: undefined, preferred: noPreferred };
  if (absent(v)) return { ok: true, value: none };
  if (!isRecord(v)) return { ok: false, error: `${path} is not an object` };
  const na: unknown = v.nodeAffinity;
  if (absent(na)) return { ok: true, value: none };
  const naPath = `${path}.nodeAffinity`;
  if (!isRecord(na)) return { ok: false, error: `${naPath} is not an object` };
  const preferred = parsePreferred(na.preferredDuringSchedulingIgnoredDuringExecution);
  const req: unknown = na.requiredDuringSchedulingIgnoredDuringExecution;
  if (absent(req)) return { ok: true, value: { required: undefined, preferred } };
  const reqPath = `${naPath}.requiredDuringSchedulingIgnoredDuringExecution`;
  if (!isRecord(req)) return { ok: false, error: `${reqPath} is not an object` };
  const terms = parseTermList(req, `${reqPath}.nodeSelectorTerms`);
  if (!terms.ok) return terms;
  return { ok: true, value: { required: terms.value, preferred } };
}

function parseTermList(req: JsonRecord, path: string): ParsedField<NodeSelectorTerm[]> {
  const list: unknown = req.nodeSelectorTerms;
  if (!Array.isArray(list)) return { ok: false, error: `${path} is not a list` };
  const out: NodeSelectorTerm[] = [];
  for (let i = 0; i < list.length; i++) {
    const term = parseTerm(list[i], `${path}[${i}]`);
    if (!term.ok) return term;
    out.push(term.value);
  }
  return { ok: true, value: out };
}
