// Node selector term matching as kube's component-helpers/scheduling/corev1/nodeaffinity does it.

import type { NodeInfo } from '../cluster/types.ts';
import type { NodeSelectorRequirement, NodeSelectorTerm } from '../model/objects.ts';

// Go's strconv.ParseInt(s, 10, 64): optional sign, ASCII digits, no spaces or underscores.
const int64Pattern = /^[+-]?[0-9]+$/;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** What term matching reads of a node: its name (for matchFields) and labels. */
export type NodeLike = Pick<NodeInfo, 'name' | 'labels'>;

/**
 * Parses `s` as Go's strconv.ParseInt(s, 10, 64) does; undefined when Go would return an
 * error (syntax or range). Values beyond 15 digits come back as bigint so that
 * comparisons stay exact (JS compares number and bigint exactly).
 */
export function parseInt64(s: string): number | bigint | undefined {
  if (!int64Pattern.test(s)) return undefined;
  const signed = s.charCodeAt(0) === 43 || s.charCodeAt(0) === 45; // '+' or '-'
  if (s.length - (signed ? 1 : 0) <= 15) return Number(s);
  const b = BigInt(s);
  return b < int64Min || b > int64Max ? undefined : b;
}

/** A label's value, reading own properties only (labels are plain objects). */
export function labelValue(labels: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(labels, key) ? labels[key] : undefined;
}

/** True when every `key: value` of `selector` is a label of the node (kube's SelectorFromSet). */
export function matchesNodeSelector(
  selector: Record<string, string>,
  labels: Record<string, string>,
): boolean {
  for (const key in selector) {
    if (labelValue(labels, key) !== selector[key]) return false;
  }
  return true;
}

/** True when a term has neither expressions nor fields: kube says it matches nothing. */
export function isEmptyTerm(term: NodeSelectorTerm): boolean {
  return (term.matchExpressions?.length ?? 0) === 0 && (term.matchFields?.length ?? 0) === 0;
}

function hasValue(values: readonly string[], v: string): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] === v) return true;
  return false;
}

/**
 * One matchExpressions requirement against node labels, with labels.NewRequirement's
 * validation folded in: a malformed requirement (In/NotIn without values, Exists or
 * DoesNotExist with values, Gt/Lt without exactly one integer, unknown operator) is a
 * parse error in kube, which makes its whole term match nothing; here it returns false.
 * Label key/value syntax is not re-validated (the API server already did).
 */
function matchesExpression(r: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const values = r.values ?? [];
  const v = labelValue(labels, r.key);
  switch (r.operator) {
    case 'In':
      return values.length > 0 && v !== undefined && hasValue(values, v);
    case 'NotIn':
      return values.length > 0 && (v === undefined || !hasValue(values, v));
    case 'Exists':
      return values.length === 0 && v !== undefined;
    case 'DoesNotExist':
      return values.length === 0 && v === undefined;
    case 'Gt':
    case 'Lt': {
      if (values.length !== 1) return false;
      const bound = parseInt64(values[0] as string);
      if (bound === undefined || v === undefined) return false;
      const actual = parseInt64(v);
      if (actual === undefined) return false;
      return r.operator === 'Gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

/**
 * One matchFields requirement: only In/NotIn with exactly one value are valid. The node's
 * only field is `metadata.name`; any other key reads as "" (kube's fields.Set.Get).
 */
function matchesField(r: NodeSelectorRequirement, node: NodeLike): boolean {
  const values = r.values;
  if (values === undefined || values.length !== 1) return false;
  if (node.name === '') return true; // kube skips field checks for a node without a name
  const actual = r.key === 'metadata.name' ? node.name : '';
  if (r.operator === 'In') return actual === values[0];
  if (r.operator === 'NotIn') return actual !== values[0];
  return false;
}

/** True when a non-empty term matches: all its expressions and all its fields (ANDed). */
export function matchesTerm(term: NodeSelectorTerm, node: NodeLike): boolean {
  const exprs = term.matchExpressions;
  if (exprs !== undefined) {
    for (let i = 0; i < exprs.length; i++) {
      if (!matchesExpression(exprs[i] as NodeSelectorRequirement, node.labels)) return false;
    }
  }
  const fields = term.matchFields;
  if (fields !== undefined) {
    for (let i = 0; i < fields.length; i++) {
      if (!matchesField(fields[i] as NodeSelectorRequirement, node)) return false;
    }
  }
  return true;
}

/**
 * Required node affinity terms, ORed: true when some non-empty term matches. An empty
 * list, or a list of only empty terms, matches no node (kube's LazyErrorNodeSelector).
 */
export function matchesAnyTerm(terms: readonly NodeSelectorTerm[], node: NodeLike): boolean {
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i] as NodeSelectorTerm;
    if (!isEmptyTerm(term) && matchesTerm(term, node)) return true;
  }
  return false;
}
